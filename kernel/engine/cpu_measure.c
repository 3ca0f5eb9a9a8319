/*
 * cpu_measure.c — a benchmark's whole measurement in one call on its processor (see cpu_measure.h).
 */
#include "cpu_measure.h"
#include "cpu_platform.h"
#include "nb_paths.h"
#include "nb_text.h"

struct measure_args {
    struct counter_env *env;
    struct bench_context *bench;
    const struct bench_options *o;
    const struct bench_code *code;
    struct report *r;
};

int cpu_measure_call(struct cpu_measure *cm, const struct nb_platform *base, unsigned cpu, struct report *r,
                     void (*fn)(const struct nb_platform *local, void *arg), void *arg, struct report_tape *tape)
{
    if (!cm->tape)
        cm->tape = base->alloc_data(base->ctx, CPU_MEASURE_TAPE_BYTES);
    if (!cm->tape)
        return NB_ENOMEM;
    report_tape_start(r, tape, cm->tape, CPU_MEASURE_TAPE_BYTES);
    int st = nb_run_on_cpu_with(base, cpu, &cm->local.p, fn, arg);
    report_tape_stop(r);
    return st;
}

/* On processor N: the firmware is not called from here on (cpu_local.h). */
static void measure_here(const struct nb_platform *local, void *arg)
{
    (void)local; /* env and bench hold it already */
    struct measure_args *a = arg;
    counters_measure(a->env, a->bench, a->o, a->code, a->r);
}

static void add_config(struct cpu_local *l, const char *rel)
{
    char path[160];
    if (!rel || !rel[0])
        return;
    nb_snprintf(path, sizeof(path), NB_DIR "/%s", rel);
    cpu_local_add_file(l, path);
}

void cpu_measure_counters(struct cpu_measure *cm, struct counter_env *env, struct bench_context *bench,
                          const struct bench_options *o, const struct bench_code *code, struct report *r,
                          const struct nb_platform *base, unsigned cpu)
{
    if (cpu == nb_current_cpu(base) || o->debug || !env->p->run_locally) {
        counters_measure(env, bench, o, code, r);
        return;
    }
    /* Everything the measurement needs of the firmware, ahead of the call. */
    struct cpu_local *local = &cm->local;
    cpu_local_init(local, base, cpu, bench->tsc_hz);
    add_config(local, o->config_path ? o->config_path : env->default_config);
    add_config(local, o->msr_config_path);
    if (o->metrics)
        counters_metrics_load(env, r);
    char error[200];
    if (bench_reserve(bench, o, code, error, sizeof(error)) != NB_OK) {
        report_error(r, "%s", error);
        cpu_local_finish(local);
        return;
    }
    if (!cm->tape)
        cm->tape = base->alloc_data(base->ctx, CPU_MEASURE_TAPE_BYTES);
    if (!cm->tape) {
        report_error(r, "processor %u: no memory for the report lines of its measurement (%u bytes)", cpu,
                     CPU_MEASURE_TAPE_BYTES);
        cpu_local_finish(local);
        return;
    }
    /*
     * The NMI watcher where bench_measure would start it (bench_run.c
     * watch_begin): started from here, signalled from N; when nobody can
     * watch N, the timer scheme, armed on N.
     */
    struct nmi_watchdog *nmi = bench->nmi;
    bool watched = bench->catch_faults && bench->tsc_hz && o->timeout > 0 && o->qemu_icount < 0;
    if (nmi && watched && !nmi_watchdog_prepare(nmi, cpu))
        bench->nmi = NULL;

    /* N's own seam for every call of the measurement. */
    const struct nb_platform *env_p = env->p, *session_p = env->session.p;
    const struct nb_platform *bench_p = bench->p, *bench_cpu_p = bench->cpu_p;
    env->p = &local->p;
    env->session.p = &local->p;
    bench->p = &local->p;
    bench->cpu_p = &local->p;
    bench->reserved = true;
    struct measure_args args = { env, bench, o, code, r };
    struct report_tape tape;
    int st = cpu_measure_call(cm, base, cpu, r, measure_here, &args, &tape);
    env->p = env_p;
    env->session.p = session_p;
    bench->p = bench_p;
    bench->cpu_p = bench_cpu_p;
    bench->nmi = nmi;
    bench->reserved = false;
    bench->benchmark_started = false;

    report_tape_replay(r, &tape);
    if (st != NB_OK)
        report_error(r, "processor %u cannot run the benchmark (the firmware refused the call)", cpu);
    if (local->refused)
        report_line(r, "warning: processor %u: %u firmware call%s refused during the measurement there",
                    cpu, local->refused, local->refused == 1 ? " was" : "s were");
    cpu_local_finish(local);
}

void cpu_measure_free(struct cpu_measure *cm, const struct nb_platform *base)
{
    if (cm->tape)
        base->free_mem(base->ctx, cm->tape, CPU_MEASURE_TAPE_BYTES);
    cm->tape = NULL;
}
