/*
 * nb_text.h — freestanding string helpers and a small printf for the engine.
 *
 * kernel/ and pmu/ cannot use the C library (they also build into the UEFI
 * image), so the few routines they need live here. The formatter supports
 * exactly the conversions the engine uses: %s %c %d %u %x %X %% with the
 * l / ll / z length modifiers, a '0' flag, a width and '*' width, and %.*s.
 */
#ifndef NB_TEXT_H
#define NB_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

size_t nb_strlen(const char *s);
int nb_strcmp(const char *a, const char *b);
int nb_strncmp(const char *a, const char *b, size_t n);
bool nb_starts_with(const char *s, const char *prefix);
void nb_memcpy(void *dst, const void *src, size_t n);
void nb_memset(void *dst, int value, size_t n);
int nb_memcmp(const void *a, const void *b, size_t n);
bool nb_is_space(char c);
char nb_to_lower(char c);

/*
 * Parses a whole string as a signed 64-bit integer: decimal, or hexadecimal
 * with a 0x prefix, optional leading '-'. Returns false on any other text or
 * on overflow.
 */
bool nb_parse_i64(const char *s, int64_t *out);
/* Parses a whole string as an unsigned 64-bit hexadecimal number, 0x optional. */
bool nb_parse_hex_u64(const char *s, uint64_t *out);

/* snprintf-alike: always NUL-terminates when cap > 0, returns the length it wanted. */
size_t nb_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
size_t nb_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);

/*
 * Formats value/100 with two decimals, rounding already done by the caller:
 * 3200 -> "32.00", -5 -> "-0.05". Returns the length written.
 */
size_t nb_format_centi(char *buf, size_t cap, int64_t centi);

#endif
