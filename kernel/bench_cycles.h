/*
 * bench_cycles.h — -cycle_by_cycle in the image's run loop: says why a
 * machine cannot measure cycle by cycle (no PMU, not Intel, perfmon v1,
 * fewer than four counters; pmu_freeze.h), in one error line under the
 * benchmark.
 */
#ifndef BENCH_CYCLES_H
#define BENCH_CYCLES_H

#include "bench_counters.h"
#include "bench_options.h"
#include "nb_report.h"

/* Reports the benchmark's cycle-by-cycle result or its error line. */
void bench_cycles_run(struct counter_env *env, const struct bench_options *o, struct report *r);

#endif
