/*
 * bench_cycles.c — -cycle_by_cycle in the run loop (see bench_cycles.h).
 */
#include "bench_cycles.h"
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

void bench_cycles_measure(const struct nb_platform *p, const struct pmu_desc *d, struct bench_context *bench,
                          const struct bench_options *o, const struct bench_code *code,
                          const struct cbc_event *events, size_t n, const char *name, struct report *r)
{
    struct bench_cycles_code cc;
    char err[240];
    if (bench_cycles_prepare(bench, o, code, pmu_freeze_global_enable(d), &cc, err, sizeof(err)) != NB_OK) {
        report_error(r, "%s", err);
        return;
    }
    struct cbc_config cfg = { events, n, o->end_to_end, o->n_measurements, o->warm_up_count,
                              o->aggregate, (int64_t)cc.tail };
    struct cycles_run cr = { bench, &cc };
    struct cbc_result res;
    int st = cbc_measure(p, d, &cfg, run_template, &cr, &res, err, sizeof(err));
    bench_cycles_release(bench, &cc);
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
                      const struct bench_code *code, const char *name, struct report *r)
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
    bench_cycles_measure(env->p, &env->desc, bench, o, code, events, (size_t)n, name, r);
}
