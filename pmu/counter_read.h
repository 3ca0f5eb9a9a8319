/*
 * counter_read.h — how the generated code reads one counter value.
 *
 * The planner (pmu/) decides what is read; the code generator (kernel/)
 * turns each entry into instructions: RDTSC, RDPMC with ECX = index
 * (bit 30 selects the fixed counters on Intel, SDM vol. 2B RDPMC), or RDMSR
 * with ECX = MSR address for counters only readable that way (uncore, RAPL,
 * APERF/MPERF).
 */
#ifndef COUNTER_READ_H
#define COUNTER_READ_H

#include <stdint.h>

#define NB_MAX_COUNTERS 32

enum counter_read_kind {
    READ_TSC = 0,
    READ_PMC,
    READ_MSR,
};

struct counter_read {
    enum counter_read_kind kind;
    uint32_t ecx;     /* RDPMC index or MSR address; unused for RDTSC */
    const char *name; /* what the report calls it: "RDTSC", "CORE_CYCLES"... */
    /*
     * Bits the counter has (CPUID.0AH GP or fixed width, 48 on AMD); 0 means
     * all 64 (RDTSC, RDMSR). m2 - m1 is taken modulo 2^width, so a counter
     * that wraps between the two reads still gives the right count
     * (RDPMC returns only the counter's bits, SDM vol. 2B RDPMC).
     */
    unsigned width;
    /*
     * An IA32_PERF_METRICS field (RDPMC_METRICS): `metric` is the field
     * number + 1 (0: an ordinary counter), `metric_slots` the index of the
     * TOPDOWN.SLOTS read (fixed counter 3) among the same reads. Each read
     * then counts slots x field / 0xFF (Linux icl_get_metrics_event_value),
     * so the difference of two reads is slots like any other count.
     */
    uint8_t metric;
    uint8_t metric_slots;
};

/* The slots an IA32_PERF_METRICS field stands for in one snapshot (slots x field / 0xFF). */
uint64_t counter_metric_slots(uint64_t slots, uint64_t metrics, unsigned field);

#endif
