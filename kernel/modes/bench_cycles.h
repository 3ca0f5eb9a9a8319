/*
 * bench_cycles.h — -cycle_by_cycle in the image's run loop: the benchmark's
 * events (its config's) measured in every cycle (cycle_by_cycle.h) with the
 * template of bench_run.h, written to run-NNNN-<name>-cycles.csv beside the
 * run's other files, or one error line saying why not (no PMU, not Intel,
 * perfmon v1, fewer than four counters: pmu_freeze.h; a fault; no place for
 * the table).
 */
#ifndef BENCH_CYCLES_H
#define BENCH_CYCLES_H

#include "bench_counters.h"
#include "bench_options.h"
#include "bench_run.h"
#include "cycle_by_cycle.h"
#include "nb_report.h"

void bench_cycles_run(struct counter_env *env, struct bench_context *bench, const struct bench_options *o,
                      const struct bench_code *code, const char *name, struct report *r);

/*
 * A measured table: written to run-NNNN-<name>-cycles.csv with its
 * "cycles:" line (or an error line), and in serve mode also put into the
 * reply after the benchmark's CSV rows (serve_table.h).
 */
void bench_cycles_report(const struct nb_platform *p, struct report *r, const char *name,
                         const struct cbc_result *res);

#endif
