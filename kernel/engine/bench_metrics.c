/*
 * bench_metrics.c — derived metrics of a benchmark (see bench_metrics.h).
 */
#include "bench_metrics.h"
#include "nb_text.h"

void metrics_arch_file(enum cpu_vendor vendor, char *out, size_t cap)
{
    nb_snprintf(out, cap, METRICS_DIR "/arch_%s.txt", vendor == VENDOR_AMD ? "amd" : "intel");
}

void metrics_file_for(const char *default_config, enum cpu_vendor vendor, char *out, size_t cap)
{
    static const char prefix[] = "configs/cfg_", suffix[] = "_common.txt";
    size_t n = default_config ? nb_strlen(default_config) : 0;
    size_t lp = sizeof(prefix) - 1, ls = sizeof(suffix) - 1;
    if (n > lp + ls && nb_starts_with(default_config, prefix) &&
        nb_strcmp(default_config + n - ls, suffix) == 0) {
        nb_snprintf(out, cap, METRICS_DIR "/%.*s.txt", (int)(n - lp - ls), default_config + lp);
        return;
    }
    metrics_arch_file(vendor, out, cap);
}

bool metrics_select(struct metric_plan *plan, const struct metric_file *f, enum cpu_vendor vendor,
                    const char *list, char *err, size_t cap)
{
    nb_memset(plan, 0, sizeof(*plan));
    plan->f = f;
    plan->vendor = vendor;
    const char *p = list;
    while (*p) {
        const char *end = p;
        while (*end && *end != ',')
            end++;
        char name[METRIC_NAME_MAX];
        size_t n = (size_t)(end - p);
        int g = -1;
        if (n > 0 && n < sizeof(name)) {
            nb_memcpy(name, p, n);
            name[n] = '\0';
            g = metric_file_group(f, name);
        }
        if (g < 0) {
            size_t len = nb_snprintf(err, cap, "-metrics: no group '%.*s' for this CPU (groups:",
                                     (int)(n > 40 ? 40 : n), p);
            for (unsigned i = 0; i < f->n_groups && len < cap; i++)
                len += nb_snprintf(err + len, cap - len, " %s", f->groups[i].name);
            if (len < cap)
                nb_snprintf(err + len, cap - len, ")");
            return false;
        }
        bool dup = false;
        for (unsigned i = 0; i < plan->n_groups; i++)
            dup |= plan->groups[i] == g;
        if (!dup && plan->n_groups < METRIC_GROUP_MAX) {
            plan->groups[plan->n_groups++] = (uint8_t)g;
            metric_file_group_inputs(f, (unsigned)g, plan->need);
        }
        p = *end ? end + 1 : end;
    }
    return true;
}

/* The same counter configuration, whatever the name and counter set. */
static bool same_encoding(const struct pmu_event *a, const struct pmu_event *b)
{
    if (a->event != b->event || a->umask != b->umask || a->cmask != b->cmask || a->any != b->any ||
        a->edge != b->edge || a->inv != b->inv)
        return false;
    for (int k = 0; k < AUX_COUNT; k++)
        if (a->has_aux[k] != b->has_aux[k] || (a->has_aux[k] && a->aux[k] != b->aux[k]))
            return false;
    return true;
}

size_t metrics_add_events(struct metric_plan *plan, struct pmu_event *events, size_t n, size_t max,
                          const struct pmu_event *const *config_events, const size_t *n_config,
                          const char *const *config_why)
{
    const struct metric_file *f = plan->f;
    plan->first_added = n;
    for (unsigned i = 0; i < f->n_idents; i++) {
        const struct metric_ident *id = &f->idents[i];
        if (!plan->need[i] || id->kind != METRIC_ID_EVENT)
            continue;
        int fixed = metric_fixed_counter(plan->vendor, id->name);
        if (fixed >= 0) {
            plan->source[i] = SRC_FIXED;
            plan->index[i] = (unsigned)fixed;
            plan->needs_fixed = true;
            continue;
        }
        const struct pmu_event *def = NULL;
        for (unsigned c = 0; c < f->n_configs && !def; c++)
            for (size_t k = 0; config_events[c] && k < n_config[c] && !def; k++)
                if (nb_strcmp(config_events[c][k].name, id->name) == 0)
                    def = &config_events[c][k];
        size_t found = n;
        for (size_t k = 0; k < n && found == n; k++)
            if (nb_strcmp(events[k].name, id->name) == 0 || (def && same_encoding(&events[k], def)))
                found = k;
        if (found == n && def && n < max) {
            events[n] = *def;
            found = n++;
        }
        if (found < n) {
            plan->source[i] = SRC_EVENT;
            plan->index[i] = (unsigned)found;
            continue;
        }
        plan->source[i] = SRC_MISSING;
        const char *why = NULL;
        for (unsigned c = 0; c < f->n_configs && !why; c++)
            if (!config_events[c])
                why = config_why[c];
        if (def)
            nb_snprintf(plan->why[i], METRICS_WHY_MAX, "too many events to add %s", id->name);
        else if (why)
            nb_snprintf(plan->why[i], METRICS_WHY_MAX, "%s", why);
        else
            nb_snprintf(plan->why[i], METRICS_WHY_MAX, "event %s is not in %s", id->name,
                        f->configs[0]);
    }
    return n;
}

struct eval_ctx {
    const struct metric_plan *plan;
    const struct metric_measured *m;
};

static double as_value(const struct metric_measured *m, int64_t v)
{
    return m->no_normalization ? (double)v : (double)v / 100;
}

/*
 * The run's effective frequency over the TSC's, from its own fixed counters
 * (METRICS-FACTS.md 4: f_eff = TSC_Hz x THREAD / REF_TSC, AMD APERF / MPERF);
 * false when they were not read.
 */
static bool run_frequency_ratio(const struct metric_plan *plan, const struct metric_measured *m, double *ratio)
{
    int cyc = metric_fixed_counter(plan->vendor, plan->vendor == VENDOR_AMD ? "APERF" : "CPU_CLK_UNHALTED.THREAD");
    int ref = metric_fixed_counter(plan->vendor, plan->vendor == VENDOR_AMD ? "MPERF" : "CPU_CLK_UNHALTED.REF_TSC");
    if (cyc < 0 || ref < 0 || (unsigned)cyc >= m->n_fixed || (unsigned)ref >= m->n_fixed || !m->fixed_values ||
        m->fixed_values[ref] <= 0 || m->fixed_values[cyc] <= 0)
        return false;
    *ratio = (double)m->fixed_values[cyc] / (double)m->fixed_values[ref];
    return true;
}

/*
 * N1..N3: the load-to-use penalties of L2, L3 and DRAM over an L1 hit that
 * -calibrate measured (METRICS-FACTS.md 3c), in core cycles; N4: a TLB walk
 * over an L2 hit. DRAM latency is fixed in ns, so N3 is the DRAM latency in
 * ns at this run's effective frequency, minus the L1 latency, when the run's
 * fixed counters give the frequency (3c step 4); else the calibration's N3.
 */
static struct metric_value latency_penalty(const struct metric_plan *plan, const struct metric_measured *m,
                                           unsigned constant)
{
    static const enum latency_level LEVEL[] = { LAT_L2, LAT_L3, LAT_DRAM, LAT_WALK };
    const struct machine_latencies *l = m->latencies;
    if (!l || !l->measured)
        return (struct metric_value){ false, 0, "memory latencies N1..N4 not measured (add -calibrate)" };
    if (!l->core_cycles)
        return (struct metric_value){ false, 0, "memory latencies were measured in TSC ticks, not core cycles" };
    enum latency_level level = LEVEL[constant - METRIC_CONST_N1];
    /* The counter check found the footprint elsewhere than intended (3c step 3): no number rather than a wrong one. */
    const char *distrust = machine_latency_distrust(l, level);
    if (distrust)
        return (struct metric_value){ false, 0, distrust };
    int64_t penalty;
    if (!machine_latency_penalty(l, level, &penalty))
        return (struct metric_value){ false, 0, level == LAT_WALK && l->why[LAT_WALK]
                                                    ? l->why[LAT_WALK]
                                                    : "a memory latency level was not measured" };
    double ratio;
    if (level == LAT_DRAM && l->dram_ns > 0 && m->tsc_hz && run_frequency_ratio(plan, m, &ratio)) {
        /* ns x GHz = cycles: dram_ns / 100 x tsc_hz x ratio / 1e9. */
        double dram_cycles = (double)l->dram_ns / 100 * ((double)m->tsc_hz * ratio / 1e9);
        return (struct metric_value){ true, dram_cycles - (double)l->latency[LAT_L1] / 100, NULL };
    }
    return (struct metric_value){ true, (double)penalty / 100, NULL };
}

static struct metric_value input(void *arg, const struct metric_ident *id)
{
    struct eval_ctx *c = arg;
    const struct metric_plan *plan = c->plan;
    const struct metric_measured *m = c->m;
    unsigned i = (unsigned)(id - plan->f->idents);
    switch (id->kind) {
    case METRIC_ID_TSC:
        if (m->tsc_known)
            return (struct metric_value){ true, as_value(m, m->tsc), NULL };
        return (struct metric_value){ false, 0, "RDTSC not measured" };
    case METRIC_ID_CONST:
        if (id->index == METRIC_CONST_TSC_HZ && m->tsc_hz)
            return (struct metric_value){ true, (double)m->tsc_hz, NULL };
        if (id->index == METRIC_CONST_TSC_HZ)
            return (struct metric_value){ false, 0, "TSC frequency unknown" };
        if (id->index >= METRIC_CONST_N1)
            return latency_penalty(plan, m, id->index);
        return (struct metric_value){ false, 0, id->index == METRIC_CONST_ISSUE_WIDTH
                                                    ? "issue_width unknown for this CPU"
                                                    : "peak_flop_per_cycle unknown for this CPU" };
    default:
        break;
    }
    if (m->no_pmu_why)
        return (struct metric_value){ false, 0, m->no_pmu_why };
    switch (plan->source[i]) {
    case SRC_FIXED:
        if (plan->index[i] < m->n_fixed)
            return (struct metric_value){ true, as_value(m, m->fixed_values[plan->index[i]]), NULL };
        return (struct metric_value){ false, 0, "fixed counters not measured" };
    case SRC_EVENT:
        if (m->event_measured[plan->index[i]])
            return (struct metric_value){ true, as_value(m, m->event_values[plan->index[i]]), NULL };
        return (struct metric_value){ false, 0, "an event was not measured (see the warnings above)" };
    case SRC_MISSING:
        return (struct metric_value){ false, 0, plan->why[i] };
    default:
        return (struct metric_value){ false, 0, "not planned" };
    }
}

/* The value of metric `name` of the file, or unknown when the file has none. */
static struct metric_value named(const struct metric_plan *plan, struct eval_ctx *ctx, const char *name)
{
    int metric = metric_file_find(plan->f, name);
    if (metric < 0)
        return (struct metric_value){ false, 0, "no such metric" };
    return metric_file_eval(plan->f, (unsigned)metric, input, ctx);
}

static int percent(double v)
{
    return (int)(v * 100 + (v >= 0 ? 0.5 : -0.5));
}

/*
 * Codemon's report ends in plain words (seed 002): how much of the time is
 * stalls, which overlapping part of the stalls is largest, and where the
 * latency model puts the memory delay. Only from values that are known.
 */
static void codemon_words(const struct metric_plan *plan, struct eval_ctx *ctx, struct report *r)
{
    struct metric_value delay = named(plan, ctx, "PROG_DELAY_RATIO");
    if (!delay.known)
        return;
    static const struct {
        const char *metric, *words;
    } PARTS[] = { { "PROG_ACCESS_DELAY_RATIO", "memory access" }, { "EXE_RATIO", "execution" },
                  { "FE_RATIO", "the front end" }, { "FLUSH_RATIO", "pipeline flushes" } };
    enum { N_PARTS = sizeof(PARTS) / sizeof(PARTS[0]) };
    double value[N_PARTS];
    bool known[N_PARTS];
    for (unsigned i = 0; i < N_PARTS; i++) {
        struct metric_value v = named(plan, ctx, PARTS[i].metric);
        known[i] = v.known;
        value[i] = v.v;
    }
    char text[320];
    size_t n = nb_snprintf(text, sizeof(text), "codemon: stalls are %d%% of cycles", percent(delay.v));
    /* The parts overlap (METRICS-FACTS.md 3b): largest first. */
    bool used[N_PARTS] = { false };
    for (unsigned k = 0; k < N_PARTS; k++) {
        int best = -1;
        for (unsigned i = 0; i < N_PARTS; i++)
            if (known[i] && !used[i] && (best < 0 || value[i] > value[best]))
                best = (int)i;
        if (best < 0)
            break;
        used[best] = true;
        n += nb_snprintf(text + n, sizeof(text) - n, "%s %s %d%%", k == 0 ? "; of them" : ",",
                         PARTS[best].words, percent(value[best]));
    }
    struct metric_value cache = named(plan, ctx, "CACHE_DELAY_RATIO"), mem = named(plan, ctx, "MEM_DELAY_RATIO"),
                        tlb = named(plan, ctx, "TLB_DELAY_RATIO");
    /* The latency model's shares of the bubbles (METRICS-FACTS.md 3b rows 14-16), the largest named. */
    if (cache.known && mem.known && tlb.known)
        nb_snprintf(text + n, sizeof(text) - n, " (parts overlap); the latency model puts %d%% of the memory "
                                                "delay in L2/L3 hits, %d%% in DRAM and %d%% in page walks: %s dominate",
                    percent(cache.v), percent(mem.v), percent(tlb.v),
                    tlb.v > mem.v && tlb.v > cache.v ? "page walks"
                    : mem.v > cache.v                ? "L3 misses"
                                                     : "cache hits below L1");
    else if (cache.known && mem.known)
        nb_snprintf(text + n, sizeof(text) - n, " (parts overlap); the latency model puts %d%% of the memory "
                                                "delay in L2/L3 hits and %d%% in DRAM: %s dominate",
                    percent(cache.v), percent(mem.v), mem.v > cache.v ? "L3 misses" : "cache hits below L1");
    else
        nb_snprintf(text + n, sizeof(text) - n, " (parts overlap)");
    report_line(r, "%s", text);
}

/*
 * The TSC chapter's equality check (seed 004, METRICS-FACTS.md 4): with no
 * halt in the region, reference cycles equal the TSC ticks; flag a run where
 * they are more than 0.1% apart, beyond the rounding of the printed values
 * (each is kept in hundredths of a count per copy, so allow two of those).
 */
#define REF_TSC_TOLERANCE 1e-3

static void cpi_reference_check(const struct metric_plan *plan, struct eval_ctx *ctx, struct report *r)
{
    struct metric_value ratio = named(plan, ctx, "REF_PER_TSC");
    const struct metric_measured *m = ctx->m;
    if (!ratio.known || !m->tsc_known || m->tsc <= 0)
        return;
    double gap = ratio.v > 1 ? ratio.v - 1 : 1 - ratio.v;
    if (gap <= REF_TSC_TOLERANCE + 2.0 / (double)m->tsc)
        return;
    int tenths = (int)(ratio.v * 1000 + 0.5);
    report_line(r, "cpi: reference cycles are %d.%d%% of the TSC ticks (more than 0.1%% apart): the core halted, "
                   "was throttled (TM duty cycle) or spent time in SMM, or the TSC is not invariant",
                tenths / 10, tenths % 10);
}

void metrics_report(const struct metric_plan *plan, const struct metric_measured *m, struct report *r)
{
    const struct metric_file *f = plan->f;
    struct eval_ctx ctx = { plan, m };
    const char *told[METRIC_MAX];
    unsigned n_told = 0;
    bool printed[METRIC_MAX] = { false };
    for (unsigned g = 0; g < plan->n_groups; g++) {
        const struct metric_group *grp = &f->groups[plan->groups[g]];
        for (unsigned k = 0; k < grp->n; k++) {
            unsigned metric = grp->member[k];
            if (printed[metric])
                continue;
            printed[metric] = true;
            struct metric_value v = metric_file_eval(f, metric, input, &ctx);
            char text[METRICS_WHY_MAX + 16], csv_name[METRIC_NAME_MAX + 8];
            metric_format(text, sizeof(text), v);
            nb_snprintf(csv_name, sizeof(csv_name), "metric.%s", f->metrics[metric].name);
            bool seen = v.known;
            for (unsigned t = 0; t < n_told && !seen; t++)
                seen = nb_strcmp(told[t], v.why) == 0;
            if (!seen && n_told < METRIC_MAX) {
                told[n_told++] = v.why;
                size_t n = nb_strlen(text);
                nb_snprintf(text + n, sizeof(text) - n, " (%s)", v.why);
            }
            report_metric(r, f->metrics[metric].name, csv_name, text);
        }
        if (nb_strcmp(grp->name, "codemon") == 0)
            codemon_words(plan, &ctx, r);
        if (nb_strcmp(grp->name, "cpi") == 0)
            cpi_reference_check(plan, &ctx, r);
    }
}

bool metrics_need_latencies(const struct metric_plan *plan)
{
    const struct metric_file *f = plan->f;
    for (unsigned i = 0; f && i < f->n_idents; i++) {
        const struct metric_ident *id = &f->idents[i];
        if (plan->need[i] && id->kind == METRIC_ID_CONST && id->index >= METRIC_CONST_N1 &&
            id->index <= METRIC_CONST_N4)
            return true;
    }
    return false;
}
