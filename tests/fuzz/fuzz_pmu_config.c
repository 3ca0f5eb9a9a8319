/*
 * fuzz_pmu_config.c — libFuzzer target for the event config parser
 * (pmu/pmu_event.h) and the counter scheduler (pmu/pmu_schedule.h).
 *
 * Input: byte 0 describes the PMU: bits 0-4 give the number of general-
 * purpose counters (modulo 17), bit 5 removes counter 1 from the bitmap (a
 * hole, as CPUID.23H may report), bit 6 sets AnyThread deprecation; the rest
 * is config text, parsed once for Intel and once for AMD and then scheduled
 * on those counters, and again on only the lowest two of them (what -no_mem
 * leaves). The event and group arrays have exactly the size promised to the
 * callee.
 *
 * Invariants (a failure traps):
 *   parser   - at most `max` events; every event has a non-empty name without
 *              spaces, an event code within the vendor's width, a line number
 *              that grows; a counter set (ctr_mask) that is non-empty and
 *              only has counters of the bitmap, a pinned counter (.CTR=n)
 *              that is the whole set; no AnyThread on AMD or when deprecated,
 *              no auxiliary MSR on AMD; every error callback gets a non-empty,
 *              NUL-terminated message and a real line number; parsing with a
 *              smaller `max` yields a prefix of the same events.
 *   schedule - with counters, every event that may use one of them is in
 *              exactly one group, in config order, and the others in none;
 *              every event sits on a counter of its set and of the bitmap; no
 *              two events of a group share a counter; a .TakenAlone event is
 *              alone in its group and `alone` is set exactly then; the group's
 *              aux MSR values are the values of its events, which never
 *              disagree. With no counters there are no groups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "machine.h"
#include "pmu.h"
#include "pmu_config_parse.h"
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

static void check_events(const struct pmu_event *ev, size_t n, const struct pmu_desc *d,
                         unsigned n_lines)
{
    enum cpu_vendor vendor = d->vendor;
    uint32_t avail = pmu_gp_mask(d);
    unsigned last_line = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pmu_event *e = &ev[i];
        size_t len = strnlen(e->name, sizeof(e->name));
        FUZZ_CHECK(len > 0 && len < sizeof(e->name));
        for (size_t k = 0; k < len; k++)
            FUZZ_CHECK(e->name[k] != ' ' && e->name[k] != '\t' && e->name[k] != '\n');
        FUZZ_CHECK(e->event <= (vendor == VENDOR_AMD ? 0xFFFu : 0xFFu));
        FUZZ_CHECK(e->ctr == -1 || (e->ctr >= 0 && e->ctr < 32 && e->ctr_mask == 1u << e->ctr));
        FUZZ_CHECK(e->ctr_mask == 0 || (e->ctr_mask & ~avail) == 0);
        FUZZ_CHECK(!e->any || (vendor == VENDOR_INTEL && !d->anythread_deprecated));
        FUZZ_CHECK(e->line > last_line && e->line <= n_lines);
        last_line = e->line;
        for (int a = 0; a < AUX_COUNT; a++) {
            FUZZ_CHECK(e->has_aux[a] || e->aux[a] == 0);
            FUZZ_CHECK(!e->has_aux[a] || vendor == VENDOR_INTEL);
        }
    }
}

static void check_schedule(const struct pmu_event *ev, size_t n, uint32_t gp_mask,
                           const struct pmu_group *groups, size_t n_groups)
{
    unsigned n_gp = (unsigned)__builtin_popcount(gp_mask);
    size_t schedulable = 0, topdown = 0;
    for (size_t i = 0; i < n; i++) {
        schedulable += pmu_event_counters(&ev[i], gp_mask) != 0;
        topdown += ev[i].topdown != TOPDOWN_NONE;
    }
    if (gp_mask == 0 || (schedulable == 0 && topdown == 0)) {
        FUZZ_CHECK(n_groups == 0);
        return;
    }
    /* Top-down events need no GP counter: at most one more group, opened for them. */
    FUZZ_CHECK(n_groups >= 1 && n_groups <= schedulable + (topdown ? 1 : 0));
    unsigned char *seen = calloc(n, 1);
    if (!seen)
        abort();
    for (size_t g = 0; g < n_groups; g++) {
        const struct pmu_group *grp = &groups[g];
        FUZZ_CHECK((grp->n >= 1 || grp->n_topdown >= 1) && grp->n <= n_gp && grp->n <= PMU_MAX_GP);
        FUZZ_CHECK(grp->n_topdown <= PMU_TOPDOWN_MAX);
        /* Top-down events: in config order, never with a .TakenAlone event, never twice. */
        for (unsigned t = 0; t < grp->n_topdown; t++) {
            unsigned idx = grp->topdown_index[t];
            FUZZ_CHECK(idx < n && ev[idx].topdown != TOPDOWN_NONE && !seen[idx]);
            FUZZ_CHECK(t == 0 || grp->topdown_index[t - 1] < idx);
            FUZZ_CHECK(!grp->alone);
            seen[idx] = 1;
        }
        /* Counters taken, merge partners included: each at most once. */
        uint32_t taken = 0;
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
            FUZZ_CHECK(ctr < 32 && (gp_mask & (1u << ctr)));
            FUZZ_CHECK(pmu_event_counters(e, gp_mask) & (1u << ctr));
            for (unsigned j = 0; j < i; j++)
                FUZZ_CHECK(grp->counter[j] != ctr);
            FUZZ_CHECK(!(taken & (1u << ctr)));
            taken |= 1u << ctr;
            if (e->merge) {
                /* An even counter whose odd partner exists and holds only the MergeEvent. */
                FUZZ_CHECK(ctr % 2 == 0 && ctr + 1 < 32 && (gp_mask & (1u << (ctr + 1))));
                FUZZ_CHECK(!(taken & (1u << (ctr + 1))));
                taken |= 1u << (ctr + 1);
            }
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
    size_t topdown_seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].topdown)
            topdown_seen += seen[i];
        else
            FUZZ_CHECK(seen[i] == (pmu_event_counters(&ev[i], gp_mask) != 0));
    }
    /* All of them, up to PMU_TOPDOWN_MAX per group they go to. */
    FUZZ_CHECK(topdown_seen == topdown || topdown_seen >= PMU_TOPDOWN_MAX);
    free(seen);
}

/*
 * A global rather than a heap block: 1024 events are over 128 KiB, which ASan
 * would mmap and unmap on every input (a third of the speed). A global has a
 * redzone after it too, so a write past events[PMU_MAX_EVENTS - 1] is still caught.
 */
static struct pmu_event events[PMU_MAX_EVENTS];

static void schedule_and_check(size_t n, uint32_t gp_mask)
{
    size_t room = n ? n : 1;
    struct pmu_group *groups = malloc(sizeof(*groups) * room);
    if (!groups)
        abort();
    size_t n_groups = pmu_schedule(events, n, gp_mask, groups);
    check_schedule(events, n, gp_mask, groups, n_groups);
    free(groups);
}

static void run(const char *text, size_t len, const struct pmu_desc *d, unsigned n_lines)
{
    struct error_log log = { n_lines, 0 };
    size_t n = pmu_config_parse(text, len, d, events, PMU_MAX_EVENTS, on_error, &log);
    FUZZ_CHECK(n <= PMU_MAX_EVENTS);
    check_events(events, n, d, n_lines);

    /* A smaller limit keeps the first events and stops after them. */
    struct pmu_event *few = malloc(sizeof(*few) * FUZZ_SMALL_MAX);
    if (!few)
        abort();
    struct error_log few_log = { n_lines, 0 };
    size_t n_few = pmu_config_parse(text, len, d, few, FUZZ_SMALL_MAX, on_error, &few_log);
    FUZZ_CHECK(n_few == (n < FUZZ_SMALL_MAX ? n : FUZZ_SMALL_MAX));
    FUZZ_CHECK(memcmp(few, events, sizeof(*few) * n_few) == 0);
    free(few);

    uint32_t mask = pmu_gp_mask(d);
    schedule_and_check(n, mask);
    /* The lowest two counters only, as -no_mem may leave. */
    uint32_t first = mask & -mask, rest = mask & ~first;
    uint32_t low2 = first | (rest & -rest);
    schedule_and_check(n, low2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct pmu_desc d = { 0 };
    d.n_gp = (data[0] & 0x1F) % (PMU_MAX_GP + 1);
    d.gp_mask = pmu_low_bits(d.n_gp);
    if (data[0] & 0x20)
        d.gp_mask &= ~2u;
    d.n_gp = (unsigned)__builtin_popcount(d.gp_mask);
    d.anythread_deprecated = (data[0] & 0x40) != 0;
    /* Bit 7: Intel fixed counter 3 and PERF_METRICS (top-down events); AMD Zen 4 (merge events). */
    bool newer = (data[0] & 0x80) != 0;
    d.n_fixed = newer ? 4 : 3;
    d.perf_metrics = newer;
    /* Bits 7 and 6 (a perfmon v5 part): IA32_PERF_METRICS with the level-2 bytes (00.84-00.87). */
    d.perf_metrics_l2 = newer && d.anythread_deprecated;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    unsigned n_lines = 1;
    for (size_t i = 0; i < len; i++)
        n_lines += (text[i] == '\n');

    d.vendor = VENDOR_INTEL;
    run(text, len, &d, n_lines);
    d.vendor = VENDOR_AMD;
    d.family = newer ? 0x19 : 0x15;
    run(text, len, &d, n_lines);
    return 0;
}
