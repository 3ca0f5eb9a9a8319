/*
 * fuzz_util.h — helpers shared by the libFuzzer targets in tests/fuzz/.
 *
 * An invariant that does not hold stops the run with __builtin_trap(), which
 * libFuzzer reports as a crash and saves the input; the failed condition and
 * its line go to stderr first so the report says which invariant broke.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            __builtin_trap();                                                             \
        }                                                                                 \
    } while (0)

/* Byte the targets fill output buffers with, so "was it terminated?" is a real question. */
#define FUZZ_POISON_BYTE 0xA5

/* True when buf[0..cap) holds a NUL-terminated, non-empty string. */
static inline bool fuzz_message_ok(const char *buf, size_t cap)
{
    return cap > 0 && buf[0] != '\0' && memchr(buf, '\0', cap) != NULL;
}

static inline bool fuzz_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool fuzz_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

#endif
