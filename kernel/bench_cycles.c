/*
 * bench_cycles.c — -cycle_by_cycle in the run loop (see bench_cycles.h).
 */
#include "bench_cycles.h"
#include "pmu_freeze.h"

void bench_cycles_run(struct counter_env *env, const struct bench_options *o, struct report *r)
{
    (void)o;
    char why[240];
    const char *no = pmu_freeze_unsupported(&env->desc, env->usable ? NULL : env->why, why, sizeof(why));
    if (no) {
        report_error(r, "-cycle_by_cycle: %s", no);
        return;
    }
    /*
     * The method (cycle_by_cycle.c) is tested on the host's model of the
     * PMU; the image does not yet generate its template (WRMSR
     * IA32_PERF_GLOBAL_CTRL; LFENCE; code; LFENCE; WRMSR) to run it on.
     */
    report_error(r, "-cycle_by_cycle: this image cannot run the cycle-by-cycle template yet "
                    "(the measurement is implemented and tested on the host only)");
}
