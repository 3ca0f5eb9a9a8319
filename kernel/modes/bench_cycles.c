/*
 * bench_cycles.c — -cycle_by_cycle in the run loop (see bench_cycles.h).
 */
#include "bench_cycles.h"
#include "cpu_platform.h"
#include "cycle_by_cycle.h"
#include "nb_text.h"
#include "pmu_freeze.h"
#include "result_path.h"
#include "serve_table.h"

struct cycles_run {
    struct bench_context *bench;
    struct bench_cycles_code *code;
};

static bool run_template(void *ctx, bool empty)
{
    struct cycles_run *cr = ctx;
    return bench_cycles_run_once(cr->bench, cr->code, empty);
}

static int write_table(const struct nb_platform *p, const char *path, const struct cbc_result *res)
{
    size_t len = cbc_csv(res, NULL, 0) + 1;
    char *text = p->alloc_data(p->ctx, len);
    if (!text)
        return NB_ENOMEM;
    cbc_csv(res, text, len);
    struct nb_file *f;
    int st = p->create_file(p->ctx, path, &f);
    if (st == NB_OK) {
        st = p->write_file(p->ctx, f, text, len - 1);
        if (st == NB_OK)
            st = p->flush_file(p->ctx, f);
        p->close_file(p->ctx, f);
    }
    p->free_mem(p->ctx, text, len);
    return st;
}

/*
 * Serve mode: the table as a block of the reply (serve_table.h), after the
 * benchmark's CSV rows: the reading before cycle 1 when there is one, then
 * the counts of each cycle.
 */
static void capture_table(const struct nb_platform *p, struct report *r, const char *name,
                          const struct cbc_result *res)
{
    size_t n_rows = res->n_cycles + (res->has_start ? 1 : 0);
    size_t rows_size = sizeof(int64_t) * (n_rows ? n_rows : 1) * res->n_events;
    int64_t *rows = p->alloc_data(p->ctx, rows_size);
    if (!rows) {
        report_error(r, "-cycle_by_cycle: out of memory for the reply's table");
        return;
    }
    size_t k = 0;
    if (res->has_start)
        for (size_t e = 0; e < res->n_events; e++)
            rows[k++] = res->start[e];
    for (size_t i = 0; i < res->n_cycles * res->n_events; i++)
        rows[k++] = res->counts[i];
    struct serve_table t = { name, res->n_events, res->names, n_rows, rows };
    size_t room = r->capture_cap - r->capture_len;
    size_t n = serve_table_encode((uint8_t *)r->capture + r->capture_len, room, &t);
    p->free_mem(p->ctx, rows, rows_size);
    if (n == 0)
        report_error(r, "-cycle_by_cycle: the table cannot go into the reply (a name is empty or longer "
                        "than %u bytes)", SERVE_TABLE_NAME_MAX);
    else if (n > room)
        r->capture_full = true;
    else
        r->capture_len += n;
}

void bench_cycles_report(const struct nb_platform *p, struct report *r, const char *name,
                         const struct cbc_result *res)
{
    char path[128];
    result_path(r, name, "-cycles.csv", path, sizeof(path)); /* run-NNNN-<name>-cycles.csv */
    if (write_table(p, path, res) != NB_OK)
        report_error(r, "-cycle_by_cycle: cannot write %s", path);
    else if (res->partial)
        report_line(r, "cycles: %s, %zu cycles of %zu events (partial: the first %zu of %zu cycles%s)", path,
                    res->n_cycles, res->n_events, res->n_cycles, res->planned,
                    res->has_start ? ", not clamped" : ""); /* -end_to_end clamps nothing anyway */
    else
        report_line(r, "cycles: %s, %zu cycles of %zu events", path, res->n_cycles, res->n_events);
    if (r->capture)
        capture_table(p, r, name, res);
}

/*
 * -cpu N (cpu_measure.h): all the runs in ONE call on N, with N's own seam
 * (cpu_local.h), so the counters are programmed and the template run there
 * without the firmware. Nothing may be allocated on N: the samples and room
 * for the running totals of CYCLES_ON_CPU_ROOM bytes come from the boot
 * processor beforehand. The engine sets no upper bound on the cycles (a
 * run's own length, up to -timeout, is the only one), so a benchmark whose
 * cycles do not fit there takes a second call, after the boot processor
 * has allocated what the first one found.
 */
#define CYCLES_ON_CPU_ROOM (1u << 20)

struct cycles_on_cpu {
    const struct pmu_desc *d;
    const struct cbc_config *cfg;
    struct cycles_run *cr;
    struct cbc_work *w;
};

static void cycles_here(const struct nb_platform *local, void *arg)
{
    struct cycles_on_cpu *a = arg;
    cbc_run(local, a->d, a->cfg, run_template, a->cr, a->w);
}

static void call_on_cpu(const struct bench_cycles_cpu *on, struct bench_context *bench, struct report *r,
                        struct cycles_on_cpu *a)
{
    struct cpu_local *local = &on->cm->local;
    cpu_local_init(local, on->base, on->cpu, bench->tsc_hz);
    const struct nb_platform *bench_p = bench->p, *cpu_p = bench->cpu_p;
    bench->p = &local->p;
    bench->cpu_p = &local->p;
    struct report_tape tape = { 0 };
    int st = cpu_measure_call(on->cm, on->base, on->cpu, r, cycles_here, a, &tape);
    bench->p = bench_p;
    bench->cpu_p = cpu_p;
    report_tape_replay(r, &tape);
    if (st != NB_OK) {
        a->w->status = st;
        nb_snprintf(a->w->err, sizeof(a->w->err), "processor %u cannot run the benchmark (%s)", on->cpu,
                    st == NB_ENOMEM ? "no memory for its report lines" : "the firmware refused the call");
    }
    if (local->refused)
        report_line(r, "warning: processor %u: %u firmware call%s refused during the measurement there",
                    on->cpu, local->refused, local->refused == 1 ? " was" : "s were");
    cpu_local_finish(local);
}

void bench_cycles_measure(const struct nb_platform *p, const struct pmu_desc *d, struct bench_context *bench,
                          const struct bench_options *o, const struct bench_code *code,
                          const struct cbc_event *events, size_t n, const char *name, struct report *r,
                          const struct bench_cycles_cpu *on)
{
    /* The NMI watcher where the other modes start it (cpu_measure.c): from here, before the call to N. */
    struct nmi_watchdog *nmi = bench->nmi;
    bool watched = bench->catch_faults && bench->tsc_hz && o->timeout > 0 && o->qemu_icount < 0;
    if (on && nmi && watched && !nmi_watchdog_prepare(nmi, on->cpu))
        bench->nmi = NULL;
    struct bench_cycles_code cc;
    char err[240];
    if (bench_cycles_prepare(bench, o, code, pmu_freeze_global_enable(d), &cc, err, sizeof(err)) != NB_OK) {
        bench->nmi = nmi;
        report_error(r, "%s", err);
        return;
    }
    struct cbc_config cfg = { events, n, o->end_to_end, o->n_measurements, o->warm_up_count,
                              o->aggregate, (int64_t)cc.tail };
    struct cycles_run cr = { bench, &cc };
    struct cbc_result res = { 0 };
    int st;
    if (!on) {
        st = cbc_measure(p, d, &cfg, run_template, &cr, &res, err, sizeof(err));
    } else if ((st = cbc_check(d, &cfg, err, sizeof(err))) == NB_OK) {
        const struct nb_platform *base = on->base;
        size_t samples_size = cbc_samples_size(&cfg);
        int64_t *samples = base->alloc_data(base->ctx, samples_size);
        int64_t *room = base->alloc_data(base->ctx, CYCLES_ON_CPU_ROOM);
        int64_t *more = NULL;
        size_t more_size = 0;
        struct cbc_work w;
        cbc_work_init(&w, samples, samples_size);
        w.cum = room;
        w.cum_size = room ? CYCLES_ON_CPU_ROOM : 0;
        struct cycles_on_cpu a = { d, &cfg, &cr, &w };
        if (samples) {
            call_on_cpu(on, bench, r, &a);
        } else {
            w.status = NB_ENOMEM;
            nb_snprintf(w.err, sizeof(w.err), "-cycle_by_cycle: out of memory");
        }
        /* More cycles than the room: a second call once the boot processor has their memory. */
        more_size = cbc_cum_size(&cfg, &w);
        if (more_size > w.cum_size && !w.failed) {
            more = base->alloc_data(base->ctx, more_size);
            if (more) {
                w.cum = more;
                w.cum_size = more_size;
                call_on_cpu(on, bench, r, &a);
            }
        }
        st = cbc_finish(base, &cfg, &w, &res, err, sizeof(err));
        if (more)
            base->free_mem(base->ctx, more, more_size);
        if (room)
            base->free_mem(base->ctx, room, CYCLES_ON_CPU_ROOM);
        if (samples)
            base->free_mem(base->ctx, samples, samples_size);
        p = base; /* res's memory */
    }
    bench_cycles_release(bench, &cc);
    bench->nmi = nmi;
    /* A fault or a timeout: the cycles measured before it, then the error line, as for a measurement. */
    if (res.partial && res.n_cycles)
        bench_cycles_report(bench->p, r, name, &res);
    if (cc.faulted)
        report_error(r, "%s", cc.error);
    else if (st != NB_OK)
        report_error(r, "%s", err);
    else
        bench_cycles_report(bench->p, r, name, &res);
    cbc_free(p, &res);
}

void bench_cycles_run(struct counter_env *env, struct bench_context *bench, const struct bench_options *o,
                      const struct bench_code *code, const char *name, struct report *r, struct cpu_measure *cm,
                      const struct nb_platform *base)
{
    char why[240];
    const char *no = pmu_freeze_unsupported(&env->desc, env->usable ? NULL : env->why, why, sizeof(why));
    if (no) {
        report_error(r, "-cycle_by_cycle: %s", no);
        return;
    }
    if (!r->files_ok) {
        report_error(r, "-cycle_by_cycle: the table needs the results folder on the medium, which cannot be written");
        return;
    }
    long n = counters_load_events(env, o, r);
    if (n < 0)
        return;
    if (n == 0) {
        report_error(r, "-cycle_by_cycle: the config has no events to measure");
        return;
    }
    if (n > CBC_MAX_EVENTS) {
        report_line(r, "warning: -cycle_by_cycle: the first %d of the config's %ld events are measured",
                    CBC_MAX_EVENTS, n);
        n = CBC_MAX_EVENTS;
    }
    static struct cbc_event events[CBC_MAX_EVENTS];
    for (long i = 0; i < n; i++)
        events[i] = (struct cbc_event){ env->events[i].name, pmu_intel_ops.encode(&env->events[i]) };
    /* -cpu N: one call there, as for the other modes (cpu_measure.c cpu_measure_counters). */
    struct bench_cycles_cpu on = { cm, base, bench->cpu };
    bool elsewhere = cm && base && bench->cpu != nb_current_cpu(base) && !o->debug && env->p->run_locally;
    bench_cycles_measure(env->p, &env->desc, bench, o, code, events, (size_t)n, name, r, elsewhere ? &on : NULL);
}
