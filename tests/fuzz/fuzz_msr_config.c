/*
 * fuzz_msr_config.c — libFuzzer target for the MSR config parser
 * (pmu/pmu_msr_config.h), the -msr_config file read from the image.
 *
 * Input: the whole input is the config text. It is parsed with room for
 * MSR_EVENT_MAX events and again with room for a few, in heap blocks of
 * exactly that size.
 *
 * Invariants (a failure traps): at most `max` events; each has a non-empty
 * name without spaces shorter than PMU_EVENT_NAME_MAX, at most
 * MSR_EVENT_MAX_WRITES writes, a line number that grows; every error callback
 * gets a non-empty, NUL-terminated message and a real line number; a smaller
 * `max` yields a prefix of the same events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pmu_msr_config.h"

#define FUZZ_SMALL_MAX 3

struct error_log {
    unsigned n_lines;
};

static void on_error(void *arg, unsigned line, const char *message)
{
    const struct error_log *log = arg;
    FUZZ_CHECK(message != NULL && message[0] != '\0');
    /* The parser formats into a 160-byte buffer: an unterminated one reads past it (ASan). */
    FUZZ_CHECK(strlen(message) < 160);
    FUZZ_CHECK(line >= 1 && line <= log->n_lines);
}

static void check_events(const struct msr_event *ev, size_t n, unsigned n_lines)
{
    unsigned last_line = 0;
    for (size_t i = 0; i < n; i++) {
        const struct msr_event *e = &ev[i];
        size_t len = strnlen(e->name, sizeof(e->name));
        FUZZ_CHECK(len > 0 && len < sizeof(e->name));
        for (size_t k = 0; k < len; k++)
            FUZZ_CHECK(e->name[k] != ' ' && e->name[k] != '\t' && e->name[k] != '\n');
        FUZZ_CHECK(e->n_writes <= MSR_EVENT_MAX_WRITES);
        FUZZ_CHECK(e->width <= 64);
        FUZZ_CHECK(e->line > last_line && e->line <= n_lines);
        last_line = e->line;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    unsigned n_lines = 1;
    for (size_t i = 0; i < size; i++)
        n_lines += (data[i] == '\n');
    struct error_log log = { n_lines };

    struct msr_event *events = malloc(sizeof(*events) * MSR_EVENT_MAX);
    struct msr_event *few = malloc(sizeof(*few) * FUZZ_SMALL_MAX);
    if (!events || !few)
        abort();
    size_t n = msr_config_parse(text, size, events, MSR_EVENT_MAX, on_error, &log);
    FUZZ_CHECK(n <= MSR_EVENT_MAX);
    check_events(events, n, n_lines);

    size_t n_few = msr_config_parse(text, size, few, FUZZ_SMALL_MAX, on_error, &log);
    FUZZ_CHECK(n_few == (n < FUZZ_SMALL_MAX ? n : FUZZ_SMALL_MAX));
    FUZZ_CHECK(memcmp(few, events, sizeof(*few) * n_few) == 0);
    free(few);
    free(events);
    return 0;
}
