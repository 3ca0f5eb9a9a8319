/*
 * fuzz_pmu_config.c — libFuzzer target for the event config parser
 * (pmu/pmu_event.h) and the counter scheduler (pmu/pmu_schedule.h).
 *
 * Input: byte 0 gives the number of general-purpose counters (0..16, modulo
 * 17); the rest is config text, parsed once for Intel and once for AMD and
 * then scheduled on that many counters. The event and group arrays have
 * exactly the size promised to the callee.
 *
 * Invariants (a failure traps):
 *   parser   - at most `max` events; every event has a non-empty name without
 *              spaces, an event code within the vendor's width, .CTR below the
 *              counter count, a line number that grows; every error callback
 *              gets a non-empty, NUL-terminated message and a real line number;
 *              parsing with a smaller `max` yields a prefix of the same events.
 *   schedule - with counters, every event is in exactly one group, in config
 *              order; no two events of a group share a counter; a .CTR event
 *              sits on its counter; a .TakenAlone event is alone in its group
 *              and `alone` is set exactly then; the group's aux MSR values are
 *              the values of its events, which never disagree. With no
 *              counters there are no groups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "machine.h"
#include "pmu.h"
#include "pmu_event.h"
#include "pmu_schedule.h"

/* A small limit for the second parse, so the "too many events" path runs. */
#define FUZZ_SMALL_MAX 3

struct error_log {
    unsigned n_lines; /* physical lines in the text */
    unsigned calls;
};

static void on_error(void *arg, unsigned line, const char *message)
{
    struct error_log *log = arg;
    FUZZ_CHECK(message != NULL && message[0] != '\0');
    /* The parser formats into a 160-byte buffer: an unterminated one reads past it (ASan). */
    FUZZ_CHECK(strlen(message) < 160);
    FUZZ_CHECK(line >= 1 && line <= log->n_lines);
    log->calls++;
}

static void check_events(const struct pmu_event *ev, size_t n, enum cpu_vendor vendor,
                         unsigned n_counters, unsigned n_lines)
{
    unsigned last_line = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pmu_event *e = &ev[i];
        size_t len = strnlen(e->name, sizeof(e->name));
        FUZZ_CHECK(len > 0 && len < sizeof(e->name));
        for (size_t k = 0; k < len; k++)
            FUZZ_CHECK(e->name[k] != ' ' && e->name[k] != '\t' && e->name[k] != '\n');
        FUZZ_CHECK(e->event <= (vendor == VENDOR_AMD ? 0xFFFu : 0xFFu));
        FUZZ_CHECK(e->ctr == -1 || (e->ctr >= 0 && (unsigned)e->ctr < n_counters));
        FUZZ_CHECK(e->line > last_line && e->line <= n_lines);
        last_line = e->line;
        for (int a = 0; a < AUX_COUNT; a++)
            FUZZ_CHECK(e->has_aux[a] || e->aux[a] == 0);
    }
}

static void check_schedule(const struct pmu_event *ev, size_t n, unsigned n_gp,
                           const struct pmu_group *groups, size_t n_groups)
{
    if (n_gp == 0 || n == 0) {
        FUZZ_CHECK(n_groups == 0);
        return;
    }
    FUZZ_CHECK(n_groups >= 1 && n_groups <= n);
    unsigned char *seen = calloc(n, 1);
    if (!seen)
        abort();
    for (size_t g = 0; g < n_groups; g++) {
        const struct pmu_group *grp = &groups[g];
        FUZZ_CHECK(grp->n >= 1 && grp->n <= n_gp && grp->n <= PMU_MAX_GP);
        bool has_alone = false;
        bool aux_used[AUX_COUNT] = { false };
        for (unsigned i = 0; i < grp->n; i++) {
            unsigned idx = grp->event_index[i];
            FUZZ_CHECK(idx < n);
            FUZZ_CHECK(i == 0 || grp->event_index[i - 1] < idx); /* config order */
            FUZZ_CHECK(!seen[idx]);
            seen[idx] = 1;
            const struct pmu_event *e = &ev[idx];
            unsigned ctr = grp->counter[i];
            FUZZ_CHECK(ctr < n_gp);
            for (unsigned j = 0; j < i; j++)
                FUZZ_CHECK(grp->counter[j] != ctr);
            if (e->ctr >= 0)
                FUZZ_CHECK(ctr == (unsigned)e->ctr);
            if (e->taken_alone) {
                FUZZ_CHECK(grp->n == 1);
                has_alone = true;
            }
            for (int a = 0; a < AUX_COUNT; a++) {
                if (!e->has_aux[a])
                    continue;
                FUZZ_CHECK(grp->has_aux[a] && grp->aux[a] == e->aux[a]);
                aux_used[a] = true;
            }
        }
        FUZZ_CHECK(grp->alone == has_alone);
        for (int a = 0; a < AUX_COUNT; a++)
            FUZZ_CHECK(grp->has_aux[a] == aux_used[a]);
    }
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(seen[i]); /* the parser only keeps .CTR < n_gp, so all fit */
    free(seen);
}

/*
 * A global rather than a heap block: 1024 events are over 128 KiB, which ASan
 * would mmap and unmap on every input (a third of the speed). A global has a
 * redzone after it too, so a write past events[PMU_MAX_EVENTS - 1] is still caught.
 */
static struct pmu_event events[PMU_MAX_EVENTS];

static void run(const char *text, size_t len, enum cpu_vendor vendor, unsigned n_counters,
                unsigned n_lines)
{
    struct error_log log = { n_lines, 0 };
    size_t n = pmu_config_parse(text, len, vendor, n_counters, events, PMU_MAX_EVENTS,
                                on_error, &log);
    FUZZ_CHECK(n <= PMU_MAX_EVENTS);
    check_events(events, n, vendor, n_counters, n_lines);

    /* A smaller limit keeps the first events and stops after them. */
    struct pmu_event *few = malloc(sizeof(*few) * FUZZ_SMALL_MAX);
    if (!few)
        abort();
    struct error_log few_log = { n_lines, 0 };
    size_t n_few = pmu_config_parse(text, len, vendor, n_counters, few, FUZZ_SMALL_MAX, on_error,
                                    &few_log);
    FUZZ_CHECK(n_few == (n < FUZZ_SMALL_MAX ? n : FUZZ_SMALL_MAX));
    FUZZ_CHECK(memcmp(few, events, sizeof(*few) * n_few) == 0);
    free(few);

    size_t room = n ? n : 1;
    struct pmu_group *groups = malloc(sizeof(*groups) * room);
    if (!groups)
        abort();
    size_t n_groups = pmu_schedule(events, n, n_counters, groups);
    check_schedule(events, n, n_counters, groups, n_groups);
    free(groups);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned n_counters = data[0] % (PMU_MAX_GP + 1);
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    unsigned n_lines = 1;
    for (size_t i = 0; i < len; i++)
        n_lines += (text[i] == '\n');

    run(text, len, VENDOR_INTEL, n_counters, n_lines);
    run(text, len, VENDOR_AMD, n_counters, n_lines);
    return 0;
}
