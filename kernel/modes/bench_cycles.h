/*
 * bench_cycles.h — -cycle_by_cycle in the image's run loop: the benchmark's
 * events (its config's) measured in every cycle (cycle_by_cycle.h) with the
 * template of bench_run.h, written to run-NNNN-<name>-cycles.csv beside the
 * run's other files, or one error line saying why not (no PMU, not Intel,
 * perfmon v1, fewer than four counters: pmu_freeze.h; a fault or a timeout,
 * after the partial table of the cycles measured before it; no place for
 * the table).
 */
#ifndef BENCH_CYCLES_H
#define BENCH_CYCLES_H

#include "bench_counters.h"
#include "bench_options.h"
#include "bench_run.h"
#include "cpu_measure.h"
#include "cycle_by_cycle.h"
#include "nb_report.h"

/*
 * cm, base: -cpu N's one call per benchmark (cpu_measure.h): with them, a
 * benchmark whose processor is not the current one is measured in one call
 * there (two when its cycles need more than the room reserved for them).
 * NULL, NULL: the runs are calls of their own.
 */
void bench_cycles_run(struct counter_env *env, struct bench_context *bench, const struct bench_options *o,
                      const struct bench_code *code, const char *name, struct report *r, struct cpu_measure *cm,
                      const struct nb_platform *base);

/* Where the runs happen: processor `cpu` of `base`, through cm's call (cpu_measure_call). */
struct bench_cycles_cpu {
    struct cpu_measure *cm;
    const struct nb_platform *base;
    unsigned cpu;
};

/*
 * The measurement itself, for events already chosen (d: the PMU of p, the
 * benchmark's processor's): the template generated, every cycle measured
 * under the watchdog (bench_run.h bench_cycles_code), and the table
 * reported; after a fault or a timeout the cycles measured before it are
 * written as a partial table, then the error line. `on`: in one call on
 * another processor (bench_cycles_run says when), p then that processor's
 * forwarding seam (unused: the call brings N's own); NULL: here.
 */
void bench_cycles_measure(const struct nb_platform *p, const struct pmu_desc *d, struct bench_context *bench,
                          const struct bench_options *o, const struct bench_code *code,
                          const struct cbc_event *events, size_t n, const char *name, struct report *r,
                          const struct bench_cycles_cpu *on);

/*
 * A measured table: written to run-NNNN-<name>-cycles.csv with its
 * "cycles:" line (or an error line), and in serve mode also put into the
 * reply after the benchmark's CSV rows (serve_table.h).
 */
void bench_cycles_report(const struct nb_platform *p, struct report *r, const char *name,
                         const struct cbc_result *res);

#endif
