/*
 * cycle_by_cycle.h — -cycle_by_cycle: what every event counted in each cycle
 * of a benchmark, nanoBench's cycle-by-cycle mode (its kernel module's
 * run_nanoBench_cycle_by_cycle and kernelNanoBench.py's
 * runNanoBenchCycleByCycle), on the counters of pmu_freeze.h.
 *
 * For each cycle c the core-cycle counter is preset to overflow after c + 1
 * cycles; its PMI request freezes every counter, which are read afterwards:
 * the events up to the end of cycle c. The measured code (the "template") is
 *
 *     WRMSR IA32_PERF_GLOBAL_CTRL (enable); LFENCE; <benchmark>; LFENCE;
 *     MOV ECX, 38FH; MOV EAX, 0; MOV EDX, 0; WRMSR (disable)
 *
 * and the run callback runs it once, with the benchmark or empty.
 *
 * -end_to_end: every cycle from the first counted one to the last, template
 * included. Otherwise the template's cycles are cut off as nanoBench does it:
 * the cycles start where the first benchmark uop enters the IDQ (searched on
 * the empty template with IDQ.MITE_UOPS) and end where the last benchmark
 * instruction retires (searched with INST_RETIRED and its own PMI, then with
 * the internal events IDQ.MS_UOPS and INST_RETIRED added to the events), and
 * the counts of the events that also count template work are clamped as
 * kernelNanoBench.py clamps them (retired: less the empty template's; issued:
 * up to the cycle before the last retirement; IDQ: up to the LFENCE's uops).
 * The result is the count per cycle (the difference of consecutive cycles),
 * where nanoBench's CSV has the running totals.
 */
#ifndef CYCLE_BY_CYCLE_H
#define CYCLE_BY_CYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"
#include "nb_platform.h"
#include "pmu.h"

#define CBC_MAX_EVENTS 62 /* the user's; two internal ones are added */

struct cbc_event {
    const char *name;
    uint64_t evtsel; /* IA32_PERFEVTSELx value (EN and the rings set; INT is the engine's) */
};

struct cbc_config {
    const struct cbc_event *events;
    size_t n_events;
    bool end_to_end;
    int64_t n_measurements, warm_up_count;
    enum aggregate agg; /* nanoBench's default for this mode: median */
    /*
     * Instructions of the template that retire after the benchmark while the
     * counters count (the image's: codegen_cycles_tail; the WRMSR that stops
     * the counters is not counted). nanoBench's template has its own (258).
     */
    int64_t template_tail;
};

/* Runs the template once: with the benchmark, or empty. false: it failed (nothing more is run). */
typedef bool (*cbc_run_fn)(void *ctx, bool empty);

struct cbc_result {
    size_t n_events;
    const char *names[CBC_MAX_EVENTS];
    size_t n_cycles;
    int64_t *counts;  /* n_cycles rows of n_events: the events of cycle 1, 2, ... */
    size_t counts_size;
    /*
     * Without -end_to_end the counts start from a reading: the (clamped)
     * running totals at the end of the cycle before cycle 1 (kernelNanoBench.py's
     * first value; nonzero for retired events the empty template did not
     * retire). With -end_to_end cycle 1 starts from the counters' zero.
     */
    bool has_start;
    int64_t start[CBC_MAX_EVENTS];
    /*
     * A run failed (a fault, a timeout) while the cycles were being measured:
     * the table holds the cycles measured before it, n_cycles of `planned`,
     * as raw differences (the bounds that clamp the counts come from the last
     * cycles, which were not measured).
     */
    bool partial;
    size_t planned;
};

/*
 * Measures cycle by cycle. NB_OK, or NB_EUNSUPP / NB_EINVAL / NB_ENOMEM /
 * NB_EFAULT with one sentence in err (without "error: "); NB_EFAULT when a
 * run failed (the run callback knows how). After NB_EFAULT, r may still
 * hold a partial table (r->partial, r->n_cycles > 0: cbc_free it).
 */
int cbc_measure(const struct nb_platform *p, const struct pmu_desc *d, const struct cbc_config *c,
                cbc_run_fn run, void *ctx, struct cbc_result *r, char *err, size_t err_cap);
void cbc_free(const struct nb_platform *p, struct cbc_result *r);

/*
 * cbc_measure in steps, for a caller that must give every piece of memory
 * beforehand (-cpu N: the runs happen in one call on another processor,
 * where nothing may be allocated; bench_cycles.c). cbc_check first; then
 * cbc_run with cbc_samples_size bytes of samples: the search for the
 * cycles to measure (first and last), and, when `cum` holds
 * cbc_cum_size bytes, the counts of every cycle; else a second cbc_run
 * once the caller has that memory. cbc_finish makes the table (it
 * allocates the counts). Each cbc_run sets up the counters and puts them
 * back (pmu_freeze_begin/end).
 */
struct cbc_work {
    int64_t *samples;      /* the caller's: cbc_samples_size bytes */
    size_t samples_size;
    int64_t *cum;          /* the caller's, or NULL: the running totals of every cycle */
    size_t cum_size;       /* bytes at cum */
    int status;            /* NB_OK, or why the search found nothing to measure (err) */
    char err[240];
    bool searched;         /* first and last are known */
    int64_t first, last;   /* the cycles to measure */
    int64_t empty[CBC_MAX_EVENTS + 2], empty_lf[CBC_MAX_EVENTS + 2];
    size_t done;           /* cycles whose counts are in cum */
    bool failed;           /* a run failed: nothing more runs */
};
int cbc_check(const struct pmu_desc *d, const struct cbc_config *c, char *err, size_t err_cap);
size_t cbc_samples_size(const struct cbc_config *c);
void cbc_work_init(struct cbc_work *w, int64_t *samples, size_t samples_size);
void cbc_run(const struct nb_platform *p, const struct pmu_desc *d, const struct cbc_config *c, cbc_run_fn run,
             void *ctx, struct cbc_work *w);
/* The bytes `cum` needs for every cycle (0 until the search has found them). */
size_t cbc_cum_size(const struct cbc_config *c, const struct cbc_work *w);
/* The result as cbc_measure gives it (a partial table after a failed run). */
int cbc_finish(const struct nb_platform *p, const struct cbc_config *c, const struct cbc_work *w,
               struct cbc_result *r, char *err, size_t err_cap);
/* The CSV, "cycle,NAME,...\n" then "1,COUNT,...\n" per cycle; returns its length (truncated at cap). */
size_t cbc_csv(const struct cbc_result *r, char *out, size_t cap);

#endif
