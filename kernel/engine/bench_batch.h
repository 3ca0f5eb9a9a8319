/*
 * bench_batch.h — the hot loop: one batch of runs of the generated code
 * (warm-up runs, then the kept measurements), executed on the benchmark's
 * processor. Separate from bench_run.c so that host tests can drive it with
 * scripted readings (SMI counts, faults) instead of real instructions.
 */
#ifndef BENCH_BATCH_H
#define BENCH_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_codegen.h"
#include "counter_read.h"

typedef void (*generated_fn)(void);

/*
 * Host tests only: called instead of the generated function, it writes into
 * data->m1/m2 what the n_reads reads would return for a run of `copies`
 * copies of the main code.
 */
typedef void (*fake_run_fn)(void *arg, struct codegen_data *data, const struct counter_read *reads,
                            size_t n_reads, int64_t copies);

struct run_batch {
    generated_fn fn;
    struct codegen_data *data;
    size_t n_reads;         /* readings kept per measurement */
    size_t first;           /* index of the first kept reading (1 when slot 0 is the SMI count) */
    int64_t warm_up, n;
    int64_t *const *values; /* NULL: runs whose readings are not kept */
    bool smi_check;         /* slot 0 is MSR_SMI_COUNT: repeat measurements that saw an SMI */
    unsigned smi_repeated;  /* out: measurements that saw an SMI and were repeated */
    unsigned smi_kept;      /* out: measurements kept although they saw one (at most n repeats per batch) */
    /* Every read of a measurement (first + n_reads): their widths mask the deltas. */
    const struct counter_read *reads;
    int64_t copies;         /* copies of the main code per run (for fake_run) */
    fake_run_fn fake_run;   /* NULL: run fn */
    void *fake_arg;
    /*
     * -debug (debug_stop.h): the execution numbered debug_index (warm-ups
     * negative) runs with INT3 in the slot at debug_slot; its readings are
     * discarded and that measurement is run again without it. NULL: none.
     */
    volatile uint8_t *debug_slot;
    int64_t debug_index;
    /*
     * -debug: counts every stop (a debugger's breakpoints and steps too); an
     * execution during which it changed is run again. NULL: none.
     */
    volatile uint64_t *debug_stops;
};

/* True when the last run ended in an exception (the stubs restored the state). */
bool run_batch_faulted(const struct codegen_data *data);

/*
 * Runs the batch (arg: struct run_batch *). Stops at the first fault. A kept
 * measurement whose SMI count changed is discarded and repeated.
 */
void run_batch_execute(void *arg);

#endif
