/*
 * nb_selftest.h — the image's side of the known-answer self-test: captures
 * what each benchmark prints, evaluates its -expect checks right after it
 * (one `check:` line each), runs the -expect_restore read-back after the
 * counters were restored, and prints the `selftest:` summary at the end of a
 * suite that had any check. The verdicts are computed on the image, so a
 * machine with no host attached reports them on serial and in the results
 * file.
 */
#ifndef NB_SELFTEST_H
#define NB_SELFTEST_H

#include <stdbool.h>

#include "bench_expect.h"
#include "bench_options.h"
#include "nb_report.h"
#include "pmu_session.h"

struct nb_selftest {
    struct expect_values values; /* the current benchmark's printed values */
    struct selftest tally;
    bool any_check;              /* some benchmark had -expect or -expect_restore */
    bool expect_restore;
};

/* Hooks the report so that every value and error is captured. */
void nb_selftest_init(struct nb_selftest *t, struct report *r);
/* Forgets the previous benchmark's values (call before report_begin). */
void nb_selftest_begin(struct nb_selftest *t);

/* The machine facts for one benchmark (the PMU of the processor it ran on). */
struct nb_selftest_machine {
    bool pmu_usable;
    const char *no_pmu_why;
    bool tsc_invariant;
    unsigned n_cpus;
    const char *default_config; /* the PMU's default config path, for the uarch condition */
};

/* Evaluates the benchmark's -expect options; call before report_end. */
void nb_selftest_check(struct nb_selftest *t, struct report *r, const char *benchmark,
                       const struct bench_options *o, const struct nb_selftest_machine *m);

/*
 * At the end of the suite: the -expect_restore line (`saved` is a copy of the
 * session taken before counters_finish restored it, or NULL without a PMU,
 * then `why` says why) and the summary line.
 */
void nb_selftest_finish(struct nb_selftest *t, struct report *r, const struct pmu_session *saved,
                        const char *why);

#endif
