/*
 * machine_latencies.h — load-to-use latencies measured on this machine by
 * the calibration (kernel/bench_calibrate.c), for the memory-latency model
 * of the metrics (../shared/METRICS-FACTS.md §3c: N1 = L2 - L1, N2 = L3 - L1,
 * N3 = DRAM - L1). Plain data, so the metric evaluator in pmu/ can read it
 * without depending on kernel/.
 */
#ifndef MACHINE_LATENCIES_H
#define MACHINE_LATENCIES_H

#include <stdbool.h>
#include <stdint.h>

enum latency_level { LAT_L1 = 0, LAT_L2, LAT_L3, LAT_DRAM, LAT_LEVELS };

struct machine_latencies {
    bool measured;    /* the calibration ran (some levels may still be missing) */
    bool core_cycles; /* unit: core cycles (a PMU counted them); false: TSC ticks */
    const char *cycle_counter; /* what counted: "Core cycles", "APERF", "RDTSC" */
    /* Per level: hundredths of the unit per dependent load; 0 = not measured (see `why`). */
    int64_t latency[LAT_LEVELS];
    uint64_t bytes[LAT_LEVELS];  /* footprint of the pointer chase */
    const char *why[LAT_LEVELS]; /* why a level is missing, or NULL */
};

/*
 * The penalty of `level` relative to an L1 hit (N1..N3), in hundredths;
 * false when either level is missing. It may be negative on a noisy machine
 * (or under an emulator); the caller decides what that means.
 */
static inline bool machine_latency_penalty(const struct machine_latencies *l, enum latency_level level,
                                           int64_t *out)
{
    if (!l || !l->measured || !l->latency[LAT_L1] || !l->latency[level])
        return false;
    *out = l->latency[level] - l->latency[LAT_L1];
    return true;
}

#endif
