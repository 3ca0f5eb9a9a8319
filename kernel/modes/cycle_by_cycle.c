/*
 * cycle_by_cycle.c — -cycle_by_cycle (see cycle_by_cycle.h).
 */
#include "cycle_by_cycle.h"
#include "bench_stats.h"
#include "nb_text.h"
#include "pmu_freeze.h"
#include "pmu_msrs.h"

#define N_READS 7 /* PMC0-3, fixed counters 0-2 */
#define SEARCH_COUNTER 2u /* nanoBench searches on PMC2: PMC0/1 freeze late on some cores */

#define EV_INST_RETIRED PMU_FREEZE_INST_RETIRED
#define EV_IDQ_MS_UOPS PMU_FREEZE_IDQ_MS_UOPS
#define EV_IDQ_MITE_UOPS PMU_FREEZE_IDQ_MITE_UOPS

struct cbc {
    const struct nb_platform *p;
    const struct pmu_desc *d;
    const struct cbc_config *c;
    cbc_run_fn run;
    void *ctx;
    struct pmu_freeze_state s;
    struct cbc_event all[CBC_MAX_EVENTS + 2];
    size_t n_all;
    int64_t *samples; /* N_READS x n_measurements */
    bool failed;      /* a run failed: nothing more runs */
};

/* Runs warm-up + n_measurements times with `pmi` preset; out = the aggregate of each read. */
static void measure(struct cbc *b, bool empty, unsigned pmi, uint64_t preset, int64_t out[N_READS])
{
    int64_t n = b->c->n_measurements;
    for (unsigned k = 0; k < N_READS; k++)
        out[k] = 0;
    for (int64_t ri = -b->c->warm_up_count; ri < n; ri++) {
        uint64_t gp[PMU_FREEZE_GP], fixed[3];
        if (b->failed)
            return;
        pmu_freeze_arm(b->p, b->d, &b->s, pmi, preset);
        if (!b->run(b->ctx, empty)) {
            b->failed = true;
            return;
        }
        pmu_freeze_read(b->p, gp, fixed);
        if (ri < 0)
            continue;
        for (unsigned k = 0; k < N_READS; k++)
            b->samples[k * n + ri] = (int64_t)(k < PMU_FREEZE_GP ? gp[k] : fixed[k - PMU_FREEZE_GP]);
    }
    for (unsigned k = 0; k < N_READS; k++) {
        struct agg_value v = stats_aggregate(b->samples + k * n, (size_t)n, b->c->agg);
        out[k] = v.num / v.den;
    }
}

static void select_search(struct cbc *b, uint64_t evtsel)
{
    uint64_t sel[PMU_FREEZE_GP] = { 0 };
    sel[SEARCH_COUNTER] = evtsel;
    pmu_freeze_select(b->p, &b->s, sel, PMU_FREEZE_GP);
}

static uint64_t cycle_preset_max(void) { return 0; }

/* The core cycles of one whole run, and its retired instructions (no PMI). */
static void end_to_end(struct cbc *b, bool empty, int64_t *cycles, int64_t *retired)
{
    int64_t v[N_READS];
    measure(b, empty, PMU_FREEZE_PMI_NONE, cycle_preset_max(), v);
    *cycles = v[PMU_FREEZE_GP + PMU_FREEZE_FIXED_CYCLES];
    *retired = v[PMU_FREEZE_GP + PMU_FREEZE_FIXED_RETIRED];
}

/*
 * The cycle in which the last instruction of the benchmark retired (with
 * `lfence`, the LFENCE after it): nanoBench's get_cycle_last_retired. The
 * counters freeze a little after an overflow, so the cycle is searched
 * downwards from the cycles counted when INST_RETIRED reached it. -1: the
 * run retired fewer instructions than the template's own.
 */
static int64_t cycle_last_retired(struct cbc *b, bool empty, bool lfence)
{
    int64_t cycles, retired, v[N_READS];
    select_search(b, EV_INST_RETIRED);
    end_to_end(b, empty, &cycles, &retired);
    int64_t last = retired - b->c->template_tail + (lfence ? 1 : 0);
    if (last <= 0 || b->failed)
        return -1;
    measure(b, empty, PMU_FREEZE_PMI_GP(SEARCH_COUNTER), (uint64_t)last, v);
    for (int64_t cycle = v[PMU_FREEZE_GP + PMU_FREEZE_FIXED_CYCLES]; cycle >= 0 && !b->failed; cycle--) {
        measure(b, empty, PMU_FREEZE_PMI_FIXED(PMU_FREEZE_FIXED_CYCLES), (uint64_t)cycle, v);
        if (v[SEARCH_COUNTER] < last)
            return cycle + 1;
    }
    return 0;
}

/*
 * The cycle in which the first uop after the template's head enters the IDQ
 * (nanoBench's get_cycle_first_added_to_IDQ, on the empty template): going
 * back from the end, where IDQ.MITE_UOPS last grew by more than one uop.
 */
static int64_t cycle_first_added(struct cbc *b, int64_t last_retired_empty)
{
    int64_t v[N_READS], prev = 0;
    select_search(b, EV_IDQ_MITE_UOPS);
    for (int64_t cycle = last_retired_empty - 3; cycle >= 0 && !b->failed; cycle--) {
        measure(b, true, PMU_FREEZE_PMI_FIXED(PMU_FREEZE_FIXED_CYCLES), (uint64_t)cycle, v);
        int64_t uops = v[SEARCH_COUNTER];
        if (prev != 0 && prev - uops > 1)
            return cycle + 1;
        prev = uops;
    }
    return 0;
}

/* Every event's count at the end of `cycle`, PMU_FREEZE_GP events at a time (nanoBench's perform_measurements_for_cycle). */
static void counts_at(struct cbc *b, bool empty, int64_t cycle, int64_t *out)
{
    for (size_t first = 0; first < b->n_all; first += PMU_FREEZE_GP) {
        uint64_t sel[PMU_FREEZE_GP] = { 0 };
        unsigned n = 0;
        for (; n < PMU_FREEZE_GP && first + n < b->n_all; n++)
            sel[n] = b->all[first + n].evtsel;
        pmu_freeze_select(b->p, &b->s, sel, n);
        int64_t v[N_READS];
        measure(b, empty, PMU_FREEZE_PMI_FIXED(PMU_FREEZE_FIXED_CYCLES), (uint64_t)cycle, v);
        for (unsigned k = 0; k < n; k++)
            out[first + k] = v[k];
    }
}

static bool name_has(const char *name, const char *part)
{
    size_t n = nb_strlen(part);
    for (const char *s = name; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && (s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]) == part[i])
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/*
 * The rows measured before a run failed (`done` of `planned`): the counts
 * per cycle as they are, the first row the reading before cycle 1 as in a
 * whole table (without -end_to_end). Nothing when no cycle was measured.
 */
static void partial_table(const struct nb_platform *p, const struct cbc *b, const struct cbc_config *c,
                          const int64_t *cum, size_t done, size_t planned, struct cbc_result *r)
{
    size_t skip = c->end_to_end ? 0 : 1;
    if (done <= skip)
        return;
    size_t n = done - skip;
    size_t size = sizeof(int64_t) * n * c->n_events;
    int64_t *counts = p->alloc_data(p->ctx, size);
    if (!counts)
        return;
    r->n_events = c->n_events;
    for (size_t e = 0; e < c->n_events; e++)
        r->names[e] = c->events[e].name;
    r->has_start = skip != 0;
    for (size_t e = 0; skip && e < c->n_events; e++)
        r->start[e] = cum[e];
    for (size_t i = skip; i < done; i++)
        for (size_t e = 0; e < c->n_events; e++)
            counts[(i - skip) * c->n_events + e] = cum[i * b->n_all + e] - (i ? cum[(i - 1) * b->n_all + e] : 0);
    r->counts = counts;
    r->counts_size = size;
    r->n_cycles = n;
    r->partial = true;
    r->planned = planned - skip;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

int cbc_check(const struct pmu_desc *d, const struct cbc_config *c, char *err, size_t err_cap)
{
    char why[200];
    const char *no = pmu_freeze_unsupported(d, NULL, why, sizeof(why));
    if (no) {
        nb_snprintf(err, err_cap, "%s", no);
        return NB_EUNSUPP;
    }
    if (c->n_events == 0 || c->n_events > CBC_MAX_EVENTS) {
        nb_snprintf(err, err_cap, "-cycle_by_cycle needs 1 to %d events (the config's), not %zu",
                    CBC_MAX_EVENTS, c->n_events);
        return NB_EINVAL;
    }
    if (c->n_measurements < 1) {
        nb_snprintf(err, err_cap, "-cycle_by_cycle needs -n_measurements of at least 1");
        return NB_EINVAL;
    }
    return NB_OK;
}

size_t cbc_samples_size(const struct cbc_config *c)
{
    return sizeof(int64_t) * N_READS * (size_t)c->n_measurements;
}

/* The events measured: the user's, then (without -end_to_end) the two internal ones at i_ms and i_ret. */
static void collect_events(struct cbc *b, const struct cbc_config *c, size_t *i_ms, size_t *i_ret)
{
    b->n_all = 0;
    for (size_t i = 0; i < c->n_events; i++)
        b->all[b->n_all++] = c->events[i];
    *i_ms = *i_ret = 0;
    if (!c->end_to_end) {
        *i_ms = b->n_all;
        b->all[b->n_all++] = (struct cbc_event){ "IDQ.MS_UOPS_internal", EV_IDQ_MS_UOPS };
        *i_ret = b->n_all;
        b->all[b->n_all++] = (struct cbc_event){ "INST_RETIRED_internal", EV_INST_RETIRED };
    }
}

static size_t n_all_of(const struct cbc_config *c)
{
    return c->n_events + (c->end_to_end ? 0 : 2);
}

size_t cbc_cum_size(const struct cbc_config *c, const struct cbc_work *w)
{
    if (!w->searched || w->status != NB_OK)
        return 0;
    return sizeof(int64_t) * (size_t)(w->last - w->first + 1) * n_all_of(c);
}

void cbc_work_init(struct cbc_work *w, int64_t *samples, size_t samples_size)
{
    nb_memset(w, 0, sizeof(*w));
    w->samples = samples;
    w->samples_size = samples_size;
}

void cbc_run(const struct nb_platform *p, const struct pmu_desc *d, const struct cbc_config *c, cbc_run_fn run,
             void *ctx, struct cbc_work *w)
{
    if (w->status != NB_OK || w->failed)
        return;
    struct cbc b = { .p = p, .d = d, .c = c, .run = run, .ctx = ctx, .samples = w->samples };
    size_t i_ms, i_ret;
    collect_events(&b, c, &i_ms, &i_ret);
    if (pmu_freeze_begin(p, d, &b.s) != NB_OK) {
        nb_snprintf(w->err, sizeof(w->err), "-cycle_by_cycle: IA32_DEBUGCTL (0x%x) cannot be written",
                    MSR_IA32_DEBUGCTL);
        w->status = NB_EFAULT;
        return;
    }
    if (!w->searched) {
        if (c->end_to_end) {
            int64_t cycles, retired;
            end_to_end(&b, false, &cycles, &retired);
            w->first = 0;
            w->last = cycles - 1; /* cycles 0..cycles-1: the run's own (nanoBench reads one more) */
        } else {
            int64_t lr_empty = cycle_last_retired(&b, true, false);
            int64_t lr_empty_lf = b.failed ? -1 : cycle_last_retired(&b, true, true);
            if (!b.failed && (lr_empty < 0 || lr_empty_lf < 0)) {
                nb_snprintf(w->err, sizeof(w->err), "-cycle_by_cycle: the empty template retired fewer "
                                                    "instructions than its own %lld; try -end_to_end",
                            (long long)c->template_tail);
                w->status = NB_EINVAL;
                goto out;
            }
            if (!b.failed) {
                counts_at(&b, true, lr_empty, w->empty);
                counts_at(&b, true, lr_empty_lf, w->empty_lf);
                w->first = cycle_first_added(&b, lr_empty);
                w->last = cycle_last_retired(&b, false, true);
            }
        }
        if (b.failed)
            goto out;
        if (w->last < w->first) {
            nb_snprintf(w->err, sizeof(w->err), "-cycle_by_cycle: no cycle to measure (the run took %lld cycles)",
                        (long long)w->last + 1);
            w->status = NB_EINVAL;
            goto out;
        }
        w->searched = true;
    }
    /* The counts of every cycle, into the caller's memory when it holds them all. */
    size_t n_cycles = (size_t)(w->last - w->first + 1);
    if (w->cum && w->cum_size >= cbc_cum_size(c, w)) {
        for (; w->done < n_cycles && !b.failed; w->done++) {
            counts_at(&b, false, w->first + (int64_t)w->done, w->cum + w->done * b.n_all);
            if (b.failed)
                break;
        }
    }
out:
    w->failed = b.failed;
    pmu_freeze_end(p, &b.s);
}

int cbc_finish(const struct nb_platform *p, const struct cbc_config *c, const struct cbc_work *w,
               struct cbc_result *r, char *err, size_t err_cap)
{
    *r = (struct cbc_result){ 0 };
    struct cbc b = { .p = p, .c = c };
    size_t i_ms, i_ret;
    collect_events(&b, c, &i_ms, &i_ret);
    int64_t *cum = w->cum;
    if (w->failed) {
        if (cum && w->searched)
            partial_table(p, &b, c, cum, w->done, (size_t)(w->last - w->first + 1), r);
        nb_snprintf(err, err_cap, "-cycle_by_cycle: a run of the code failed");
        return NB_EFAULT;
    }
    if (w->status != NB_OK) {
        nb_snprintf(err, err_cap, "%s", w->err);
        return w->status;
    }
    size_t n_cycles = (size_t)(w->last - w->first + 1);
    if (!cum || w->done < n_cycles) {
        nb_snprintf(err, err_cap, "-cycle_by_cycle: out of memory for %zu cycles", n_cycles);
        return NB_ENOMEM;
    }

    /* The rows to keep (0..keep-1 of cum) and each event's bounds (kernelNanoBench.py). */
    size_t keep = n_cycles;
    size_t lfence_uop = 0;
    if (!c->end_to_end) {
#define CUM(i, e) cum[(i) * b.n_all + (e)]
        if (n_cycles < 3 || CUM(n_cycles - 1, i_ret) == CUM(n_cycles - 2, i_ret) ||
            CUM(n_cycles - 2, i_ret) != CUM(n_cycles - 3, i_ret)) {
            nb_snprintf(err, err_cap, "-cycle_by_cycle: the end of the benchmark could not be found in the "
                                      "retired instructions; try -end_to_end");
            return NB_EINVAL;
        }
        size_t last_retired = 0;
        while (CUM(last_retired, i_ret) != CUM(n_cycles - 2, i_ret))
            last_retired++;
        bool found = false;
        for (size_t i = 0; i + 1 < n_cycles; i++) {
            if (CUM(i, i_ms) < CUM(n_cycles - 1, i_ms) && CUM(i, i_ms) == CUM(i + 1, i_ms)) {
                lfence_uop = i;
                found = true;
            }
        }
        if (!found) {
            nb_snprintf(err, err_cap, "-cycle_by_cycle: the LFENCE after the benchmark could not be found in "
                                      "IDQ.MS_UOPS; try -end_to_end");
            return NB_EINVAL;
        }
        keep = last_retired + 1;
        for (size_t e = 0; e < c->n_events; e++) {
            const char *name = c->events[e].name;
            int64_t left = CUM(0, e), right = CUM(n_cycles - 1, e);
            if (name_has(name, "RETIRE")) {
                left = w->empty[e];
                right = name_has(name, "UOP") ? CUM(n_cycles - 1, e) - (w->empty_lf[e] - w->empty[e])
                                              : CUM(last_retired, e);
            } else if (name_has(name, "ISSUE")) {
                right = (last_retired ? CUM(last_retired - 1, e) : CUM(0, e)) - (w->empty[e] - CUM(0, e));
            } else if (name_has(name, "IDQ")) {
                right = lfence_uop ? CUM(lfence_uop - 1, e) : CUM(0, e);
            }
            for (size_t i = 0; i < keep; i++)
                CUM(i, e) = max64(0, min64(CUM(i, e), right) - left);
        }
#undef CUM
    }
    /* Counts per cycle. -end_to_end: cycle i+1 is row i; otherwise row 0 is the first cycle's end (0). */
    size_t skip = c->end_to_end ? 0 : 1;
    r->n_events = c->n_events;
    for (size_t e = 0; e < c->n_events; e++)
        r->names[e] = c->events[e].name;
    r->n_cycles = keep > skip ? keep - skip : 0;
    r->counts_size = sizeof(int64_t) * (r->n_cycles ? r->n_cycles : 1) * c->n_events;
    r->counts = p->alloc_data(p->ctx, r->counts_size);
    if (!r->counts) {
        *r = (struct cbc_result){ 0 };
        nb_snprintf(err, err_cap, "-cycle_by_cycle: out of memory");
        return NB_ENOMEM;
    }
    r->has_start = skip != 0;
    for (size_t e = 0; skip && e < c->n_events; e++)
        r->start[e] = cum[e];
    for (size_t i = skip; i < keep; i++) {
        for (size_t e = 0; e < c->n_events; e++) {
            int64_t now = cum[i * b.n_all + e], before = i ? cum[(i - 1) * b.n_all + e] : 0;
            r->counts[(i - skip) * c->n_events + e] = now - before;
        }
    }
    return NB_OK;
}

int cbc_measure(const struct nb_platform *p, const struct pmu_desc *d, const struct cbc_config *c,
                cbc_run_fn run, void *ctx, struct cbc_result *r, char *err, size_t err_cap)
{
    *r = (struct cbc_result){ 0 };
    int status = cbc_check(d, c, err, err_cap);
    if (status != NB_OK)
        return status;
    size_t samples_size = cbc_samples_size(c);
    int64_t *samples = p->alloc_data(p->ctx, samples_size);
    if (!samples) {
        nb_snprintf(err, err_cap, "-cycle_by_cycle: out of memory");
        return NB_ENOMEM;
    }
    struct cbc_work w;
    cbc_work_init(&w, samples, samples_size);
    cbc_run(p, d, c, run, ctx, &w); /* the search: how many cycles */
    size_t cum_size = cbc_cum_size(c, &w);
    if (cum_size && !w.failed) {
        w.cum = p->alloc_data(p->ctx, cum_size);
        w.cum_size = w.cum ? cum_size : 0;
        cbc_run(p, d, c, run, ctx, &w); /* the cycles */
    }
    status = cbc_finish(p, c, &w, r, err, err_cap);
    if (w.cum)
        p->free_mem(p->ctx, w.cum, cum_size);
    p->free_mem(p->ctx, samples, samples_size);
    return status;
}

void cbc_free(const struct nb_platform *p, struct cbc_result *r)
{
    if (r->counts)
        p->free_mem(p->ctx, r->counts, r->counts_size);
    *r = (struct cbc_result){ 0 };
}

size_t cbc_csv(const struct cbc_result *r, char *out, size_t cap)
{
    size_t len = nb_snprintf(out, cap, "cycle");
    for (size_t e = 0; e < r->n_events; e++)
        len += nb_snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, ",%s", r->names[e]);
    len += nb_snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, "\n");
    for (size_t i = 0; i < r->n_cycles; i++) {
        len += nb_snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, "%zu", i + 1);
        for (size_t e = 0; e < r->n_events; e++)
            len += nb_snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, ",%lld",
                               (long long)r->counts[i * r->n_events + e]);
        len += nb_snprintf(out + (len < cap ? len : cap), len < cap ? cap - len : 0, "\n");
    }
    return len;
}
