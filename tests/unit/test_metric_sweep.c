/*
 * test_metric_sweep.c — every group of every metric file, measured on a fake
 * machine of a processor that uses the file.
 *
 * The files and their groups are found at run time (every .txt file of
 * configs/metrics), so a new file or group is covered without editing this
 * test. For each file the processor is the first configs/cpu_map.txt line
 * naming its prefix (the P-core or E-core of a hybrid line, by the prefix's
 * place), or an Intel / AMD family the map lacks for arch_intel / arch_amd. Its CPUID
 * and IA32_PERF_CAPABILITIES come from pmu/pmu_models.c, as for -plan, and
 * the image's whole counter path runs with an empty -config and -metrics
 * GROUP: detection, probe, the metric file and its configs from the fake
 * medium, scheduling, programming, the runs and the report.
 *
 * The fake runs count, per copy of the main code, a scripted nonzero value
 * for every programmed counter, distinct per counter configuration
 * (101 + 37k hundredths for the k-th configuration seen, so no two add up to
 * a third), plus distinct fixed counters, MPERF/APERF, TSC and
 * IA32_PERF_METRICS fields; AMD's event 003H counts only with the
 * MergeEvent on the odd counter after it. Then every metric of the group must print a
 * number when all its inputs are counters, RDTSC, the TSC frequency (given)
 * or constants the file sets; a metric that needs N1..N4 (calibration) or a
 * constant the file leaves out must print n/a with that reason (the reason
 * once per benchmark, as the report prints it). Nothing may print an error
 * or a warning. A number must also be the one the file's expression gives
 * on the scripted values (see struct oracle). Failures name the file, the
 * group and the metric; METRIC_SWEEP_PRINT=1 prints every report.
 */
#include "bench_counters.h"
#include "bench_metrics.h"
#include "cpuid_bits.h"
#include "host_platform.h"
#include "metric_file.h"
#include "msr_names.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_arch_events.h"
#include "pmu_config_parse.h"
#include "pmu_models.h"
#include "pmu_msrs.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_MAX_FILES 96
#define SWEEP_MAX_KEYS 64
#define SWEEP_TSC_HZ 2000000000ull

/* The fake machine of one file's processor. */
static struct sweep_hw {
    struct host_platform *h;
    struct pmu_model_cpu cpu;
    bool amd, has_global;
    uint64_t keys[SWEEP_MAX_KEYS]; /* counter configurations seen, in order: the k-th counts 101 + 37k */
    unsigned n_keys;
    bool probing;
} sw;

/* Events per copy of the main code, in hundredths. */
#define SWEEP_TSC_CENTI 10007
#define SWEEP_MPERF_CENTI 1201
#define SWEEP_APERF_CENTI 1423
static const int64_t FIXED_CENTI[7] = { 1013, 1511, 1259, 2550, 1601, 1709, 1801 };
/* Retiring 0x33, bad speculation 0x1A, front end 0x33, back end 0x7F of the slots (sum 0xFF). */
#define SWEEP_PERF_METRICS 0x7F331A33ull
#define READ_OVERHEAD 17

static uint64_t count(int64_t centi, int64_t copies)
{
    return (uint64_t)(centi * copies / 100) + READ_OVERHEAD;
}

static void sweep_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    (void)ctx;
    pmu_model_cpuid(&sw.cpu, leaf, subleaf, r);
}

static uint32_t gp_ctl(unsigned i)
{
    return sw.amd ? MSR_AMD_PERF_CTL0 + 2 * i : MSR_IA32_PERFEVTSEL0 + i;
}

static uint32_t gp_ctr(unsigned i)
{
    return sw.amd ? MSR_AMD_PERF_CTR0 + 2 * i : MSR_IA32_PMC0 + i;
}

/*
 * The probe (pmu_detect.c): instructions retired (C0H) enabled on a counter,
 * the host loop, the control cleared: the counter then holds the loop's
 * 2002 instructions.
 */
static void probe_counts(struct host_platform *h, uint32_t msr, uint64_t value)
{
    for (unsigned i = 0; i < PMU_MAX_GP; i++) {
        if (msr != gp_ctl(i))
            continue;
        if ((value & 0xFF) == 0xC0 && (value & (sw.amd ? AMD_PERF_CTL_EN : PERFEVTSEL_EN)))
            sw.probing = true;
        else if (value == 0 && sw.probing) {
            host_msr_set(h, gp_ctr(i), 2002);
            sw.probing = false;
        }
    }
}

/* The scripted rate of a counter configuration: the k-th one seen counts 101 + 37k hundredths per copy. */
static int64_t rate_of(uint64_t key)
{
    unsigned k = 0;
    while (k < sw.n_keys && sw.keys[k] != key)
        k++;
    if (k == sw.n_keys && sw.n_keys < SWEEP_MAX_KEYS)
        sw.keys[sw.n_keys++] = key;
    return 101 + 37 * (int64_t)k;
}

/* A counter configuration as a key: event, umask, cmask, inv, edge, any. */
static uint64_t event_key(uint16_t event, uint8_t umask, uint8_t cmask, bool inv, bool edge, bool any)
{
    return event | (uint64_t)umask << 12 | (uint64_t)cmask << 20 | (uint64_t)inv << 28 |
           (uint64_t)edge << 29 | (uint64_t)any << 30;
}

/* The key of what a control register selects. */
static uint64_t sel_key(uint64_t sel)
{
    uint16_t event = (uint16_t)(sel & 0xFF);
    if (sw.amd)
        event |= (uint16_t)(((sel >> AMD_PERF_CTL_EVENT_HI_SHIFT) & 0xF) << 8);
    return event_key(event, (uint8_t)(sel >> PERFEVTSEL_UMASK_SHIFT), (uint8_t)(sel >> PERFEVTSEL_CMASK_SHIFT),
                     sel & PERFEVTSEL_INV, sel & PERFEVTSEL_EDGE, !sw.amd && (sel & PERFEVTSEL_ANY));
}

static bool gp_counting(unsigned i, uint64_t *sel)
{
    *sel = host_msr_get(sw.h, gp_ctl(i));
    bool en = *sel & (sw.amd ? AMD_PERF_CTL_EN : PERFEVTSEL_EN);
    if (!sw.has_global)
        return en;
    uint64_t global = host_msr_get(sw.h, sw.amd ? MSR_AMD_PERF_CNTR_GLOBAL_CTL : MSR_IA32_PERF_GLOBAL_CTRL);
    return en && (global >> i & 1);
}

static bool fixed_counting(unsigned i)
{
    uint64_t ctrl = host_msr_get(sw.h, MSR_IA32_FIXED_CTR_CTRL) >> (4 * i);
    uint64_t global = host_msr_get(sw.h, MSR_IA32_PERF_GLOBAL_CTRL);
    return (ctrl & (FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR)) && (global >> (GLOBAL_CTRL_FIXED_SHIFT + i) & 1);
}

static bool merged_with_next(unsigned i)
{
    uint64_t odd;
    return i % 2 == 0 && gp_counting(i + 1, &odd) &&
           (odd & AMD_PERF_CTL_MERGE_ENABLE) == AMD_PERF_CTL_MERGE_ENABLE;
}

static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads, size_t n_reads,
                     int64_t copies)
{
    (void)arg;
    for (size_t k = 0; k < n_reads; k++) {
        const struct counter_read *r = &reads[k];
        uint64_t m1 = 1000, n = 0;
        if (r->kind == READ_TSC) {
            n = count(SWEEP_TSC_CENTI, copies);
        } else if (r->kind == READ_MSR) {
            n = count(r->ecx == MSR_IA32_MPERF ? SWEEP_MPERF_CENTI : SWEEP_APERF_CENTI, copies);
        } else if (r->ecx == RDPMC_METRICS) {
            bool on = fixed_counting(3) &&
                      (host_msr_get(sw.h, MSR_IA32_PERF_GLOBAL_CTRL) & GLOBAL_CTRL_EN_PERF_METRICS);
            data->m1[k] = 0x01020304;
            data->m2[k] = on ? SWEEP_PERF_METRICS : 0;
            continue;
        } else if (r->ecx & RDPMC_FIXED) {
            unsigned i = r->ecx & 0xFF;
            m1 = i == 3 ? 0 : 1000; /* fixed counter 3 was zeroed before m1 */
            n = i < 7 && fixed_counting(i) ? count(FIXED_CENTI[i], copies) : 0;
            /*
             * Fixed counter 3 (TOPDOWN.SLOTS) without the reads' overhead:
             * 25.5 slots per copy make every IA32_PERF_METRICS field
             * (slots x byte / 0xFF per run) exact, byte / 10 per copy.
             */
            if (i == 3 && n)
                n = (uint64_t)(FIXED_CENTI[3] * copies / 100);
        } else {
            uint64_t sel;
            n = gp_counting(r->ecx, &sel) ? count(rate_of(sel_key(sel)), copies) : 0;
            /*
             * AMD's Large Increment event 003H loses all but 15 per cycle on a
             * counter alone (PPR "Large Increment per Cycle Events"): here it
             * counts nothing unless the odd counter after it holds the
             * enabled MergeEvent.
             */
            if (sw.amd && (sel_key(sel) & 0xFFF) == 0x003 && !merged_with_next(r->ecx))
                n = 0;
        }
        data->m1[k] = m1;
        data->m2[k] = m1 + n;
    }
}

/* Reads a repository file; NULL when it cannot be read. Free with free(). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *more = realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
    }
    fclose(f);
    if (text)
        text[n] = '\0';
    return text;
}

/* Puts a repository file onto the fake medium as nanobench/PATH. */
static void add_repo_file(struct host_platform *h, const char *path)
{
    char *text = read_text(path);
    if (!text)
        return;
    char target[256];
    snprintf(target, sizeof(target), "nanobench/%s", path);
    host_fs_add_text(h, target, text);
    free(text);
}

/*
 * The processor that uses metric file PREFIX.txt: the first cpu_map.txt line
 * naming the prefix, or a family the map lacks for arch_intel / arch_amd.
 * False when there is none.
 */
static bool cpu_for(const char *map, const char *prefix, struct pmu_model_cpu *c, char *spec, size_t cap)
{
    memset(c, 0, sizeof(*c));
    struct pmu_model *row = &c->row;
    if (strcmp(prefix, "arch_intel") == 0) {
        *row = (struct pmu_model){ .name = "generic", .vendor = VENDOR_INTEL, .family = 0x13, .model = 1,
                                   .version = 4, .n_gp = 8, .gp_width = 48, .n_fixed = 3, .fixed_width = 48 };
        snprintf(spec, cap, "intel:0x13:0x1:8");
        return true;
    }
    if (strcmp(prefix, "arch_amd") == 0) {
        *row = (struct pmu_model){ .name = "generic", .vendor = VENDOR_AMD, .family = 0x1B, .model = 0,
                                   .n_gp = 6, .gp_width = 48, .amd_ext_core = true, .amd_perfmon_v2 = true };
        snprintf(spec, cap, "amd:0x1b:0x0:6");
        return true;
    }
    for (const char *line = map; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char vendor[16], p[64], e[64] = "";
        int family, model;
        if (*line == '#' || sscanf(line, "%15s %i %i %63s %63[^ \n#]", vendor, &family, &model, p, e) < 4)
            continue;
        /* stepping= / native= qualifiers: a processor they are for (the first stepping). */
        const char *eol = strchr(line, '\n') ? strchr(line, '\n') : line + strlen(line);
        const char *qs = strstr(line, " stepping="), *qn = strstr(line, " native=");
        unsigned long stepping = qs && qs < eol ? strtoul(qs + 10, NULL, 0) : 0;
        unsigned long native = qn && qn < eol ? strtoul(qn + 8, NULL, 0) : 0;
        if (strchr(e, '='))
            e[0] = 0;
        bool as_p = strcmp(p, prefix) == 0, as_e = e[0] && strcmp(e, prefix) == 0;
        if (!as_p && !as_e)
            continue;
        enum cpu_vendor v = strcmp(vendor, "amd") == 0 ? VENDOR_AMD : VENDOR_INTEL;
        const struct pmu_model *known = pmu_model_find(v, (uint32_t)family, (uint32_t)model);
        if (!known)
            return false;
        *row = *known;
        row->model = (uint32_t)model;
        row->model_last = 0;
        /* A native= line names the config of the cores with that native model ID: E-cores. */
        if (row->hybrid)
            c->core_type = as_p && !native ? HYBRID_CORE_CORE : HYBRID_CORE_ATOM;
        c->stepping = (uint32_t)stepping;
        c->native_model = (uint32_t)native;
        char quals[48] = "";
        if (qs && qs < eol)
            snprintf(quals, sizeof(quals), ":stepping=%lu", stepping);
        if (qn && qn < eol)
            snprintf(quals + strlen(quals), sizeof(quals) - strlen(quals), ":native=0x%lx", native);
        snprintf(spec, cap, "%s:0x%x:0x%x%s%s", vendor, family, model,
                 !row->hybrid ? "" : c->core_type == HYBRID_CORE_CORE ? ":p" : ":e", quals);
        return true;
    }
    return false;
}

struct sweep_rig {
    struct host_platform h;
    struct report r;
    struct counter_env env;
    struct bench_context bench;
    struct bench_options o;
    struct bench_code code;
};

static const uint8_t NOP = 0x90;

/* The fake machine of `cpu` with the medium for metric file `rel`. False when the image finds no PMU. */
static bool rig_up(struct sweep_rig *x, const struct pmu_model_cpu *cpu, const char *rel,
                   const struct metric_file *f)
{
    struct machine_info m;
    memset(x, 0, sizeof(*x));
    host_platform_init(&x->h);
    memset(&sw, 0, sizeof(sw));
    sw.h = &x->h;
    sw.cpu = *cpu;
    sw.amd = cpu->row.vendor == VENDOR_AMD;
    sw.has_global = sw.amd ? cpu->row.amd_perfmon_v2 : true;
    x->h.p.cpuid = sweep_cpuid;
    host_msr_set(&x->h, MSR_IA32_PERF_CAPABILITIES, pmu_model_perf_capabilities(cpu));
    x->h.on_msr_write = probe_counts;
    add_repo_file(&x->h, "configs/cpu_map.txt");
    add_repo_file(&x->h, rel);
    for (unsigned c = 0; c < f->n_configs; c++) {
        char path[128];
        snprintf(path, sizeof(path), "configs/%s", f->configs[c]);
        add_repo_file(&x->h, path);
    }
    host_fs_add_text(&x->h, "nanobench/cfg.txt", "");
    machine_identify(&x->h.p, &m);
    report_init(&x->r, &x->h.p);
    counters_init(&x->env, &x->h.p, &m, &x->r);
    if (!x->env.usable || bench_context_init(&x->bench, &x->h.p) != NB_OK)
        return false;
    x->env.tsc_hz = SWEEP_TSC_HZ;
    x->bench.fake_run = fake_run;
    bench_options_init(&x->o);
    x->o.config_path = "cfg.txt";
    memset(&x->code, 0, sizeof(x->code));
    x->code.part[PART_MAIN] = &NOP;
    x->code.len[PART_MAIN] = 1;
    return true;
}

static void rig_down(struct sweep_rig *x)
{
    bench_context_free(&x->bench);
    counters_finish(&x->env);
    host_platform_free(&x->h);
}

static void sweep_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sweep_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    nb_check(false, __FILE__, __LINE__, msg);
}

/* The report's reason for each constant the file may leave unknown (bench_metrics.c). */
static const char *const CONST_WHY[METRIC_CONST_COUNT] = {
    [METRIC_CONST_TSC_HZ] = NULL, /* the rig gives the TSC frequency */
    [METRIC_CONST_ISSUE_WIDTH] = "issue_width unknown for this CPU",
    [METRIC_CONST_PEAK_FLOP] = "peak_flop_per_cycle unknown for this CPU",
    [METRIC_CONST_N1] = "memory latencies N1..N4 not measured (add -calibrate)",
    [METRIC_CONST_N2] = "memory latencies N1..N4 not measured (add -calibrate)",
    [METRIC_CONST_N3] = "memory latencies N1..N4 not measured (add -calibrate)",
    [METRIC_CONST_N4] = "memory latencies N1..N4 not measured (add -calibrate)",
};

#define WHY_MAX (METRIC_CONST_COUNT + METRIC_MAX)

/*
 * The reasons metric `metric` can have no value for: the constants it needs
 * that the file leaves unknown, and the reasons of the `na` metrics it is
 * or builds on.
 */
static size_t unknown_inputs(const struct metric_file *f, unsigned metric, const char *why[WHY_MAX])
{
    static struct metric_file one;
    one = *f;
    one.n_groups = 1;
    one.groups[0].n = 1;
    one.groups[0].member[0] = (uint8_t)metric;
    bool need[METRIC_IDENT_MAX] = { false };
    metric_file_group_inputs(&one, 0, need);
    size_t n = 0;
    for (unsigned i = 0; i < f->n_idents; i++) {
        const struct metric_ident *id = &f->idents[i];
        if (need[i] && id->kind == METRIC_ID_CONST && !f->const_set[id->index] && CONST_WHY[id->index])
            why[n++] = CONST_WHY[id->index];
        if (need[i] && id->kind == METRIC_ID_METRIC && f->metrics[id->index].na_why[0])
            why[n++] = f->metrics[id->index].na_why;
    }
    if (f->metrics[metric].na_why[0])
        why[n++] = f->metrics[metric].na_why;
    return n;
}

/*
 * What each metric should be: the file's expression evaluated on the values
 * the fake machine counted, each input looked up by name in the metric
 * file's configs (the first that defines it, as the image does) and its
 * configuration's scripted rate, so a wrong event, counter, fixed counter or
 * normalisation on the way through the image shows as a different value.
 */
struct oracle {
    const struct metric_file *f;
    enum cpu_vendor vendor;
    struct pmu_event *events[METRIC_CONFIG_MAX];
    size_t n[METRIC_CONFIG_MAX];
};

static void oracle_config_error(void *arg, unsigned line, const char *message)
{
    (void)arg;
    (void)line;
    (void)message; /* the image reports its own; a missing event shows in the metric */
}

static void oracle_init(struct oracle *o, const struct metric_file *f, const struct pmu_desc *d)
{
    memset(o, 0, sizeof(*o));
    o->f = f;
    o->vendor = d->vendor;
    for (unsigned c = 0; c < f->n_configs; c++) {
        char path[128], arch[512];
        char *text = NULL;
        size_t len;
        if (strcmp(f->configs[c], "builtin") == 0) {
            len = pmu_arch_events_for(d, arch, sizeof(arch));
        } else {
            snprintf(path, sizeof(path), "configs/%s", f->configs[c]);
            if (!(text = read_text(path)))
                continue;
            len = strlen(text);
        }
        o->events[c] = calloc(PMU_MAX_EVENTS, sizeof(struct pmu_event));
        o->n[c] = pmu_config_parse(text ? text : arch, len, d, o->events[c], PMU_MAX_EVENTS, oracle_config_error,
                                   NULL);
        free(text);
    }
}

static void oracle_free(struct oracle *o)
{
    for (unsigned c = 0; c < METRIC_CONFIG_MAX; c++)
        free(o->events[c]);
}

static struct metric_value centi_value(int64_t centi)
{
    return (struct metric_value){ true, (double)centi / 100, NULL };
}

static struct metric_value oracle_input(void *arg, const struct metric_ident *id)
{
    const struct oracle *o = arg;
    if (id->kind == METRIC_ID_TSC)
        return centi_value(SWEEP_TSC_CENTI);
    if (id->kind == METRIC_ID_CONST) {
        if (id->index == METRIC_CONST_TSC_HZ)
            return (struct metric_value){ true, (double)SWEEP_TSC_HZ, NULL };
        return (struct metric_value){ false, 0, CONST_WHY[id->index] };
    }
    int fixed = metric_fixed_counter(o->vendor, id->name);
    if (fixed >= 0 && o->vendor == VENDOR_AMD)
        return centi_value(fixed == 0 ? SWEEP_MPERF_CENTI : SWEEP_APERF_CENTI);
    if (fixed >= 0)
        return centi_value(FIXED_CENTI[fixed]);
    for (unsigned c = 0; c < o->f->n_configs; c++) {
        for (size_t k = 0; o->events[c] && k < o->n[c]; k++) {
            const struct pmu_event *ev = &o->events[c][k];
            if (strcmp(ev->name, id->name) != 0)
                continue;
            if (ev->topdown == TOPDOWN_SLOTS)
                return centi_value(FIXED_CENTI[3]);
            if (ev->topdown == TOPDOWN_METRIC) /* 25.5 slots x byte / 0xFF = byte / 10 */
                return centi_value(10 * (int64_t)(SWEEP_PERF_METRICS >> (8 * (ev->umask - TOPDOWN_METRIC_UMASK)) & 0xFF));
            uint64_t key = event_key(ev->event, ev->umask, ev->cmask, ev->inv, ev->edge, ev->any);
            for (unsigned i = 0; i < sw.n_keys; i++)
                if (sw.keys[i] == key)
                    return centi_value(101 + 37 * (int64_t)i);
            return (struct metric_value){ false, 0, "its configuration was never counted" };
        }
    }
    return (struct metric_value){ false, 0, "not in the metric file's configs" };
}

/* The value printed for NAME ("NAME: value" at a line start), or NULL; *end: the end of that line. */
static const char *printed(const char *text, const char *name, size_t *len)
{
    size_t n = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, n) == 0 && line[n] == ':' && line[n + 1] == ' ') {
            const char *v = line + n + 2;
            *len = strcspn(v, "\n");
            return v;
        }
    }
    return NULL;
}

/* Checks the report of group g (text) metric by metric. */
static void check_group(const char *rel, const char *spec, const struct metric_file *f, unsigned g,
                        const char *text, struct oracle *o)
{
    const struct metric_group *grp = &f->groups[g];
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "error", 5) == 0 || strncmp(line, "warning", 7) == 0)
            sweep_fail("%s group %s (%s): the report says: %.*s", rel, grp->name, spec,
                       (int)strcspn(line, "\n"), line);
    }
    const char *given[METRIC_CONST_COUNT * METRIC_GROUP_MEMBERS];
    size_t n_given = 0;
    for (unsigned k = 0; k < grp->n; k++) {
        const char *name = f->metrics[grp->member[k]].name;
        const char *why[WHY_MAX];
        size_t n_why = unknown_inputs(f, grp->member[k], why);
        size_t len;
        const char *v = printed(text, name, &len);
        if (!v) {
            sweep_fail("%s group %s (%s) metric %s: not printed", rel, grp->name, spec, name);
            continue;
        }
        char value[256];
        snprintf(value, sizeof(value), "%.*s", (int)len, v);
        if (n_why == 0) {
            char *end;
            strtod(value, &end);
            if (end == value || *end) {
                sweep_fail("%s group %s (%s) metric %s: expected a number (all its inputs are counted), got '%s'",
                           rel, grp->name, spec, name, value);
                continue;
            }
            char want[64];
            metric_format(want, sizeof(want), metric_file_eval(f, grp->member[k], oracle_input, o));
            if (strcmp(want, value) != 0)
                sweep_fail("%s group %s (%s) metric %s: expected %s from the counted values, got %s", rel,
                           grp->name, spec, name, want, value);
            continue;
        }
        bool ok = false;
        if (strncmp(value, "n/a (", 5) == 0 && value[strlen(value) - 1] == ')') {
            /* A reason printed for the first time: one of the metric's unknown inputs. */
            size_t wl = strlen(value) - 6;
            bool repeated = false;
            for (size_t i = 0; i < n_given; i++)
                repeated |= strlen(given[i]) == wl && strncmp(given[i], value + 5, wl) == 0;
            for (size_t i = 0; i < n_why && !repeated; i++) {
                if (strlen(why[i]) == wl && strncmp(why[i], value + 5, wl) == 0) {
                    ok = true;
                    given[n_given++] = why[i];
                }
            }
        } else if (strcmp(value, "n/a") == 0) {
            /* The reason was given before in this benchmark. */
            for (size_t i = 0; i < n_why; i++)
                for (size_t j = 0; j < n_given; j++)
                    ok |= strcmp(why[i], given[j]) == 0;
        }
        if (!ok)
            sweep_fail("%s group %s (%s) metric %s: expected n/a (%s%s), got '%s'", rel, grp->name, spec, name,
                       why[0], n_why > 1 ? " or another unknown constant" : "", value);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void parse_error(void *arg, const char *message)
{
    sweep_fail("%s: %s", (const char *)arg, message);
}

NB_TEST(metric_sweep_every_group_of_every_file)
{
    char *map = read_text("configs/cpu_map.txt");
    REQUIRE(map);
    DIR *dir = opendir(METRICS_DIR);
    REQUIRE(dir);
    char *names[SWEEP_MAX_FILES];
    size_t n_files = 0;
    for (struct dirent *de; (de = readdir(dir)) != NULL;) {
        size_t n = strlen(de->d_name);
        if (n > 4 && strcmp(de->d_name + n - 4, ".txt") == 0 && n_files < SWEEP_MAX_FILES)
            names[n_files++] = strndup(de->d_name, n - 4);
    }
    closedir(dir);
    qsort(names, n_files, sizeof(names[0]), by_name);
    CHECK(n_files >= 47);
    static struct metric_file f;
    unsigned n_groups = 0;
    for (size_t i = 0; i < n_files; i++) {
        char rel[160], spec[128];
        snprintf(rel, sizeof(rel), METRICS_DIR "/%s.txt", names[i]);
        struct pmu_model_cpu cpu;
        char *text = read_text(rel);
        if (!text || !metric_file_parse(text, strlen(text), rel, &f, parse_error, rel)) {
            sweep_fail("%s: cannot be read or parsed", rel);
            free(text);
            continue;
        }
        free(text);
        if (!cpu_for(map, names[i], &cpu, spec, sizeof(spec))) {
            sweep_fail("%s: no configs/cpu_map.txt line (with a pmu/pmu_models.c row) names %s", rel, names[i]);
            continue;
        }
        if (f.n_groups == 0)
            sweep_fail("%s: no group", rel);
        for (unsigned g = 0; g < f.n_groups; g++) {
            struct sweep_rig x;
            n_groups++;
            if (!rig_up(&x, &cpu, rel, &f)) {
                sweep_fail("%s group %s (%s): no usable PMU on the fake machine: %s", rel, f.groups[g].name,
                           spec, host_text(&x.h));
                rig_down(&x);
                continue;
            }
            x.o.metrics = f.groups[g].name;
            host_text_reset(&x.h);
            x.r.serial_seq = 0;
            counters_measure(&x.env, &x.bench, &x.o, &x.code, &x.r);
            if (getenv("METRIC_SWEEP_PRINT")) /* each report, to look at */
                fprintf(stderr, "== %s group %s (%s)\n%s", rel, f.groups[g].name, spec, host_text(&x.h));
            struct oracle o;
            oracle_init(&o, &f, &x.env.desc);
            check_group(rel, spec, &f, g, host_text(&x.h), &o);
            oracle_free(&o);
            rig_down(&x);
        }
    }
    CHECK(n_groups >= 47 * 5); /* every file has cpi, memory, topdown, flops and codemon */
    for (size_t i = 0; i < n_files; i++)
        free(names[i]);
    free(map);
}
