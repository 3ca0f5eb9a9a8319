/*
 * machine_latencies.h — load-to-use latencies measured on this machine by
 * the calibration (kernel/engine/bench_calibrate.c), for the memory-latency model
 * of the metrics (../shared/METRICS-FACTS.md §3c: N1 = L2 - L1, N2 = L3 - L1,
 * N3 = DRAM - L1). Plain data, so the metric evaluator in pmu/ can read it
 * without depending on kernel/.
 */
#ifndef MACHINE_LATENCIES_H
#define MACHINE_LATENCIES_H

#include <stdbool.h>
#include <stdint.h>

#include "core_kind.h"

/* LAT_WALK: one load per 4 KiB page, more pages than any STLB, data in the L2 (kernel/engine/tlb_window.h). */
enum latency_level { LAT_L1 = 0, LAT_L2, LAT_L3, LAT_DRAM, LAT_WALK, LAT_LEVELS };

struct machine_latencies {
    bool measured;    /* the calibration ran (some levels may still be missing) */
    /*
     * The core kind it ran on (core_kind.h): on a hybrid part a P-core's
     * latencies are not an E-core's, so each kind has its own calibration.
     */
    struct core_kind kind;
    unsigned cpu;     /* the firmware number of the processor it ran on */
    bool core_cycles; /* unit: core cycles (a PMU counted them); false: TSC ticks */
    const char *cycle_counter; /* what counted: "Core cycles", "APERF", "RDTSC" */
    /* Per level: hundredths of the unit per dependent load; 0 = not measured (see `why`). */
    int64_t latency[LAT_LEVELS];
    uint64_t bytes[LAT_LEVELS];  /* footprint of the pointer chase (LAT_WALK: its data) */
    const char *why[LAT_LEVELS]; /* why a level is missing, or NULL */
    uint64_t walk_pages;         /* LAT_WALK: 4 KiB pages of the window */
    char walk_why[120];          /* why[LAT_WALK] when the window could not be mapped */
    /*
     * DRAM latency in hundredths of a ns (RDTSC per load / tsc_hz), 0 when
     * unknown: fixed in time, so the metrics convert it to core cycles at
     * each run's effective frequency (METRICS-FACTS.md §3c step 4).
     */
    int64_t dram_ns;
    /*
     * The counter check of each level (METRICS-FACTS.md §3c step 3): the
     * percentage of the chased loads that the level's event counted
     * (`checked`), and whether the level fell under the threshold: its
     * latency is still printed, but no penalty built on it is given to the
     * metrics; `distrust_why` names the level and the fraction.
     */
    bool checked[LAT_LEVELS];
    int64_t check_pct[LAT_LEVELS];
    bool distrusted[LAT_LEVELS];
    char distrust_why[LAT_LEVELS][96];
};

/*
 * The calibrations of one boot, one per core kind (a part that is not hybrid
 * has one kind). Plain data: the image keeps one book and hands the entry of
 * the processor a benchmark runs on to the metrics.
 */
#define LATENCY_KINDS 4
struct latency_book {
    unsigned n;
    struct machine_latencies kind[LATENCY_KINDS];
};

/* The calibration of core kind `k`, or NULL when that kind was not calibrated. */
static inline const struct machine_latencies *latency_book_find(const struct latency_book *b,
                                                                const struct core_kind *k)
{
    for (unsigned i = 0; b && i < b->n; i++) {
        if (core_kind_equal(&b->kind[i].kind, k))
            return &b->kind[i];
    }
    return NULL;
}

/* The entry for kind `k`: its old one, else a new one; NULL when the book is full. */
static inline struct machine_latencies *latency_book_entry(struct latency_book *b, const struct core_kind *k)
{
    for (unsigned i = 0; i < b->n; i++) {
        if (core_kind_equal(&b->kind[i].kind, k))
            return &b->kind[i];
    }
    if (b->n >= LATENCY_KINDS)
        return NULL;
    struct machine_latencies *l = &b->kind[b->n++];
    *l = (struct machine_latencies){ .kind = *k };
    return l;
}

/* Why the penalty of `level` (N1..N4) must not be used: its level or its base was distrusted; NULL if neither. */
static inline const char *machine_latency_distrust(const struct machine_latencies *l, enum latency_level level)
{
    enum latency_level base = level == LAT_WALK ? LAT_L2 : LAT_L1;
    if (!l)
        return NULL;
    if (l->distrusted[level])
        return l->distrust_why[level];
    if (l->distrusted[base])
        return l->distrust_why[base];
    return NULL;
}

/*
 * The penalty of `level` relative to an L1 hit (N1..N3), or of a TLB walk
 * relative to an L2 hit (N4: the walk level's data sits in the L2), in
 * hundredths; false when either level is missing or distrusted. It may be negative on a noisy machine
 * (or under an emulator); the caller decides what that means.
 */
static inline bool machine_latency_penalty(const struct machine_latencies *l, enum latency_level level,
                                           int64_t *out)
{
    enum latency_level base = level == LAT_WALK ? LAT_L2 : LAT_L1;
    if (!l || !l->measured || !l->latency[base] || !l->latency[level] || machine_latency_distrust(l, level))
        return false;
    *out = l->latency[level] - l->latency[base];
    return true;
}

#endif
