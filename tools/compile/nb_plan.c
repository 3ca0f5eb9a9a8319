/*
 * nb_plan.c — counter planning without booting (see nb_plan.h).
 */
#define _GNU_SOURCE
#include "nb_plan.h"
#include "plan_cpu_names.h"
#include "bench_metrics.h"
#include "bench_codegen.h"
#include "cpuid_bits.h"
#include "host_file.h"
#include "machine.h"
#include "nb_text.h"
#include "pmu.h"
#include "pmu_arch_events.h"
#include "freq_pin.h"
#include "pmu_config_map.h"
#include "pmu_config_parse.h"
#include "pmu_ctr_rules.h"
#include "pmu_models.h"
#include "pmu_msr_config.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include "pmu_freeze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_CPU_SYNTAX "VENDOR:FAMILY:MODEL[:p|:e][:stepping=N][:native=ID][:GPCOUNTERS]"

/* The described processor: CPUID and IA32_PERF_CAPABILITIES from its model row. */
struct plan_cpu {
    struct pmu_model_cpu cpu;
    bool printing; /* MSR writes are printed once detection is over */
};

static void plan_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    pmu_model_cpuid(&((struct plan_cpu *)ctx)->cpu, leaf, subleaf, r);
}

/* The recording platform: MSR reads return 0 (IA32_PERF_CAPABILITIES the model's), writes are printed. */
static int plan_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct plan_cpu *pc = ctx;
    *value = msr == MSR_IA32_PERF_CAPABILITIES ? pmu_model_perf_capabilities(&pc->cpu) : 0;
    return NB_OK;
}

static int plan_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    struct plan_cpu *pc = ctx;
    if (pc->printing)
        printf("wrmsr 0x%x 0x%llx\n", msr, (unsigned long long)value);
    return NB_OK;
}

static bool parse_number(const char *s, uint32_t *out)
{
    int64_t v;
    if (!nb_parse_i64(s, &v) || v < 0 || v > 0xFFFFFFFFll)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* AMD PerfMonV2 (Zen 4 and later): family 19h models 10h-1Fh, 60h-AFh; family 1Ah on (Linux amd.c). */
static bool amd_has_perfmon_v2(uint32_t family, uint32_t model)
{
    if (family >= 0x1A)
        return true;
    return family == 0x19 && ((model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0xAF));
}

static int bad_spec(const char *spec, const char *why)
{
    fprintf(stderr, "nanobench: -plan_cpu '%s': %s\n", spec, why);
    return 2;
}

/*
 * VENDOR:FAMILY:MODEL[:p|:e][:stepping=N][:native=ID][:GPCOUNTERS] (stepping: CPUID.1
 * EAX[3:0], native: the native model ID of CPUID.1AH:EAX[23:0], as cpu_map.txt's
 * qualifiers read them). A model of pmu/pmu_models.c takes
 * its facts from there (GPCOUNTERS overrides its count, e.g. 8 for Skylake
 * with Hyper-Threading off); another model needs GPCOUNTERS and gets a
 * generic description (Intel: perfmon v4, 48-bit counters, 3 fixed; AMD
 * family 17h+: PerfCtrExtCore, PerfMonV2 on Zen 4 model ranges).
 */
static int parse_plan_cpu(const char *spec, struct plan_cpu *pc, unsigned *n_gp_override)
{
    char copy[160], msg[200];
    snprintf(copy, sizeof(copy), "%s", spec ? spec : "");
    char *fields[6] = { 0 };
    int n = 0;
    uint32_t stepping = 0, native = 0;
    for (char *tok = strtok(copy, ":"); tok && n < 6; tok = strtok(NULL, ":")) {
        if (strncmp(tok, "stepping=", 9) == 0) {
            if (!parse_number(tok + 9, &stepping) || stepping > 0xF)
                return bad_spec(spec, "stepping= must be 0..15 (CPUID.1:EAX[3:0])");
            continue;
        }
        if (strncmp(tok, "native=", 7) == 0) {
            if (!parse_number(tok + 7, &native) || native == 0 || native > 0xFFFFFF)
                return bad_spec(spec, "native= must be a native model ID 1..0xFFFFFF (CPUID.1AH:EAX[23:0])");
            continue;
        }
        fields[n++] = tok;
    }
    memset(pc, 0, sizeof(*pc));
    pc->cpu.stepping = stepping;
    pc->cpu.native_model = native;
    *n_gp_override = 0;
    struct pmu_model *row = &pc->cpu.row;
    snprintf(msg, sizeof(msg),
             "expected " PLAN_CPU_SYNTAX ", e.g. intel:6:0x55, intel:6:0x55:8, intel:6:0x97:p or "
             "amd:0x19:0x61 (GPCOUNTERS 1..%d)", PMU_MAX_GP);
    if (n < 3 || n > 5 || !parse_number(fields[1], &row->family) || !parse_number(fields[2], &row->model))
        return bad_spec(spec ? spec : "", msg);
    int next = 3;
    if (next < n && (strcmp(fields[next], "p") == 0 || strcmp(fields[next], "e") == 0)) {
        pc->cpu.core_type = fields[next][0] == 'p' ? HYBRID_CORE_CORE : HYBRID_CORE_ATOM;
        next++;
    }
    if (next < n) {
        if (!parse_number(fields[next], n_gp_override) || *n_gp_override == 0 ||
            *n_gp_override > PMU_MAX_GP || next + 1 != n)
            return bad_spec(spec, msg);
    }
    if (strcmp(fields[0], "intel") == 0)
        row->vendor = VENDOR_INTEL;
    else if (strcmp(fields[0], "amd") == 0)
        row->vendor = VENDOR_AMD;
    else
        return bad_spec(spec, "vendor must be intel or amd (the image measures RDTSC only on others)");

    const struct pmu_model *known = pmu_model_find(row->vendor, row->family, row->model);
    if (known) {
        uint32_t model = row->model;
        *row = *known;
        row->model = model;     /* the table row may cover a range */
        row->model_last = 0;
    } else if (row->vendor == VENDOR_INTEL) {
        /* Families after 0FH (e.g. 13H) have architectural perfmon like family 6. */
        *row = (struct pmu_model){ .name = "unknown model (generic perfmon v4)", .vendor = VENDOR_INTEL,
                                   .family = row->family, .model = row->model, .version = 4,
                                   .gp_width = 48, .n_fixed = 3, .fixed_width = 48 };
    } else {
        uint32_t family = row->family, model = row->model;
        *row = (struct pmu_model){ .name = "unknown model (generic)", .vendor = VENDOR_AMD,
                                   .family = family, .model = model, .n_gp = 6, .gp_width = 48,
                                   .amd_ext_core = family >= 0x17,
                                   .amd_perfmon_v2 = amd_has_perfmon_v2(family, model) };
    }
    if (row->hybrid && !pc->cpu.core_type)
        return bad_spec(spec, "a hybrid model: add the core type, :p (P-core) or :e (E-core)");
    if (!row->hybrid && pc->cpu.core_type)
        return bad_spec(spec, "not a hybrid model: :p / :e apply to hybrid models only");
    if (!known && !*n_gp_override && (row->vendor == VENDOR_INTEL || row->family >= 0x17)) {
        snprintf(msg, sizeof(msg),
                 "model 0x%x is not in the model table (pmu/pmu_models.c): give the counter count, "
                 "%s:%u:0x%x:GPCOUNTERS", row->model, fields[0], row->family, row->model);
        return bad_spec(spec, msg);
    }
    if (*n_gp_override && row->vendor == VENDOR_INTEL)
        row->n_gp = (uint8_t)*n_gp_override;
    return 0;
}

static void config_error(void *arg, unsigned line, const char *message)
{
    fprintf(stderr, "nanobench: %s:%u: %s (event skipped)\n", (const char *)arg, line, message);
}

/* What the image's detection found, in full (the fingerprint line is the short form). */
static void print_cpu(const struct pmu_model *row, const struct pmu_desc *d)
{
    char gp[64], fixed[64];
    pmu_counter_set_format(pmu_gp_mask(d), gp, sizeof(gp));
    pmu_counter_set_format(pmu_fixed_mask(d), fixed, sizeof(fixed));
    printf("# cpu: %s (%s family 0x%x model 0x%x%s)\n", row->name, pmu_ops_for(d->vendor)->name,
           d->family, d->model,
           !d->core_type ? "" : d->core_type == HYBRID_CORE_CORE ? ", P-core" : ", E-core");
    if (d->vendor == VENDOR_INTEL) {
        printf("# pmu: perfmon v%u, %u general-purpose counters {%s} (%u bits), %u fixed {%s} "
               "(%u bits)%s%s, full-width writes %s, PERF_METRICS %s, AnyThread %s\n",
               d->version, d->n_gp, gp, d->gp_width, d->n_fixed, fixed, d->fixed_width,
               d->counters_from_leaf_23h ? " from CPUID.23H" : "",
               d->hybrid_p_core_counters ? " (P-core: CPUID.0AH reports the common subset)" : "",
               d->full_width_writes ? "yes" : "no",
               !d->perf_metrics ? "no" : d->perf_metrics_l2 ? "yes (levels 1 and 2)" : "yes (level 1)",
               d->anythread_deprecated ? "deprecated" : "available");
    } else {
        printf("# pmu: %u counters {%s} (%u bits), PerfCtrExtCore %s, PerfMonV2 %s\n", d->n_gp, gp,
               d->gp_width, d->amd_ext_core ? "yes" : "no", d->amd_perfmon_v2 ? "yes" : "no");
    }
    char missing[2][160];
    for (size_t i = 0, n = pmu_desc_missing(d, missing); i < n; i++)
        printf("# pmu: %s\n", missing[i]);
}

/* "NAME@PMCn", and the allowed set when the event may not use every counter. */
static void print_group(size_t number, const struct pmu_group *group, const struct pmu_event *events,
                        uint32_t gp_mask)
{
    printf("group %zu:", number);
    for (unsigned k = 0; group && k < group->n; k++) {
        const struct pmu_event *ev = &events[group->event_index[k]];
        printf(" %s@PMC%u", ev->name, group->counter[k]);
        uint32_t allowed = pmu_event_counters(ev, gp_mask);
        if (ev->merge)
            printf("+MERGE@PMC%u", group->counter[k] + 1); /* AMD Large Increment pair */
        if (allowed != (gp_mask & pmu_low_bits(PMU_MAX_GP))) {
            char set[64];
            pmu_counter_set_format(allowed, set, sizeof(set));
            printf("{%s}", set);
        }
    }
    /* Top-down pseudo events: fixed counter 3 and IA32_PERF_METRICS (pmu_event.h). */
    for (unsigned k = 0; group && k < group->n_topdown; k++) {
        const struct pmu_event *ev = &events[group->topdown_index[k]];
        printf(" %s@%s", ev->name, ev->topdown == TOPDOWN_SLOTS ? "FIXED3" : "PERF_METRICS");
    }
    printf("\n");
}

/* The config the image would pick without -config: configs/cpu_map.txt, else the architectural events. */
struct default_config {
    char *text, *name; /* malloc'd (name NULL: the built-in events) */
    char rel[160];     /* cpu_map's path, e.g. configs/cfg_Skylake_common.txt ("" for none) */
    size_t len;
    char arch[512];
};

static void pick_default_config(const struct pmu_desc *d, struct default_config *dc)
{
    const char *root = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
    char *map_path = host_path_join(root, "configs/cpu_map.txt");
    size_t map_len;
    char *map = host_read_file(map_path, &map_len);
    struct config_choice choice;
    struct config_cpu cpu = { d->vendor, d->family, d->model, (int)d->stepping, d->core_type,
                              d->native_model };
    enum config_match match = map ? pmu_config_map_choose_cpu(map, map_len, &cpu, &choice)
                                  : CONFIG_MATCH_NONE;
    if (match == CONFIG_MATCH_EXACT) {
        snprintf(dc->rel, sizeof(dc->rel), "%s", choice.path);
        dc->name = host_path_join(root, choice.path);
        dc->text = host_read_file(dc->name, &dc->len);
    }
    /* The same choice, and the same warning, as the image (kernel/engine/bench_counters.c). */
    if (match == CONFIG_MATCH_UNKNOWN_MODEL)
        fprintf(stderr, "nanobench: warning: family 0x%x model 0x%x is not in cpu_map.txt: "
                "measuring the architectural events only (CPUID.0AH); pass this processor's "
                "events with -config FILE\n", d->family, d->model);
    free(map);
    free(map_path);
    if (!dc->text) {
        free(dc->name);
        dc->name = NULL;
        dc->len = pmu_arch_events_for(d, dc->arch, sizeof(dc->arch));
    }
}

static void ctr_rules_error(void *arg, unsigned line, const char *message)
{
    fprintf(stderr, "nanobench: %s line %u: %s (rule skipped)\n", (const char *)arg, line, message);
}

/*
 * The counter restrictions the image would apply on this model (pmu_ctr_rules.h):
 * configs/ctr_<NAME>.txt of its cpu_map.txt line, for every config of the plan.
 */
static void load_ctr_rules(struct pmu_desc *d, struct pmu_ctr_rules *rules)
{
    const char *root = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
    char *map_path = host_path_join(root, "configs/cpu_map.txt");
    size_t map_len, len;
    char *map = host_read_file(map_path, &map_len);
    struct config_choice choice;
    if (map && pmu_config_map_choose(map, map_len, d->vendor, d->family, d->model, d->core_type,
                                     &choice) == CONFIG_MATCH_EXACT) {
        char rel[128];
        snprintf(rel, sizeof(rel), "configs/ctr_%s.txt", choice.prefix);
        char *path = host_path_join(root, rel);
        char *text = host_read_file(path, &len);
        if (text) {
            pmu_ctr_rules_parse(text, len, d->vendor, rel, rules, ctr_rules_error, rel);
            d->ctr_rules = rules;
        }
        free(text);
        free(path);
    }
    free(map);
    free(map_path);
}

static void metric_error(void *arg, const char *message)
{
    (void)arg;
    fprintf(stderr, "nanobench: %s\n", message);
}

/*
 * -metrics: the events the groups need, found among the benchmark's or
 * appended from the metric file's configs, as the image does
 * (kernel/engine/bench_counters.c). Returns the new event count; *needs_fixed
 * when a metric reads a fixed counter (programmed with group 1).
 */
static size_t plan_metrics(const struct pmu_desc *d, const struct default_config *dc, const char *groups_list,
                           struct pmu_event *events, size_t n, bool *needs_fixed)
{
    const char *root = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
    char rel[192];
    metrics_file_for(dc->rel[0] ? dc->rel : "", d->vendor, rel, sizeof(rel));
    char *path = host_path_join(root, rel);
    size_t len;
    char *text = host_read_file(path, &len);
    if (!text) {
        free(path);
        metrics_arch_file(d->vendor, rel, sizeof(rel));
        path = host_path_join(root, rel);
        text = host_read_file(path, &len);
    }
    static struct metric_file f;
    static struct metric_plan plan;
    char err[240];
    if (!text || !metric_file_parse(text, len, rel, &f, metric_error, NULL) ||
        !metrics_select(&plan, &f, d->vendor, groups_list, err, sizeof(err))) {
        if (text)
            fprintf(stderr, "nanobench: -metrics %s: %s\n", groups_list, text ? err : "no metric file");
        free(text);
        free(path);
        return n;
    }
    const struct pmu_event *config_events[METRIC_CONFIG_MAX] = { 0 };
    size_t n_config[METRIC_CONFIG_MAX] = { 0 };
    const char *config_why[METRIC_CONFIG_MAX] = { 0 };
    char why[METRIC_CONFIG_MAX][METRICS_WHY_MAX];
    char arch[512];
    for (unsigned c = 0; c < f.n_configs; c++) {
        struct pmu_event *parsed = calloc(PMU_MAX_EVENTS, sizeof(*parsed));
        char *cfg_text = NULL, *cfg_path = NULL;
        size_t cfg_len = 0;
        if (strcmp(f.configs[c], "builtin") == 0) {
            cfg_len = pmu_arch_events_for(d, arch, sizeof(arch));
        } else {
            char cfg_rel[256];
            snprintf(cfg_rel, sizeof(cfg_rel), "configs/%s", f.configs[c]);
            cfg_path = host_path_join(root, cfg_rel);
            cfg_text = host_read_file(cfg_path, &cfg_len);
            if (!cfg_text) {
                snprintf(why[c], sizeof(why[c]), "configs/%.100s is not in the repository", f.configs[c]);
                config_why[c] = why[c];
                free(cfg_path);
                free(parsed);
                continue;
            }
        }
        n_config[c] = pmu_config_parse(cfg_text ? cfg_text : arch, cfg_len, d, parsed, PMU_MAX_EVENTS,
                                       config_error, (void *)f.configs[c]);
        config_events[c] = parsed;
        free(cfg_text);
        free(cfg_path);
    }
    size_t before = n;
    n = metrics_add_events(&plan, events, n, PMU_MAX_EVENTS, config_events, n_config, config_why);
    *needs_fixed = plan.needs_fixed;
    printf("# metrics %s from %s: %zu event%s added%s\n", groups_list, rel, n - before, n - before == 1 ? "" : "s",
           plan.needs_fixed ? ", fixed counters read" : "");
    for (unsigned c = 0; c < f.n_configs; c++)
        free((void *)config_events[c]);
    free(text);
    free(path);
    return n;
}

/* The counter groups of one benchmark and the writes that program them (measure_pmu_events). */
static void plan_groups(struct pmu_session *session, const struct pmu_desc *d,
                        const struct bench_options *o, const char *config, size_t config_len,
                        const char *config_name, const struct default_config *dc)
{
    struct pmu_event *events = calloc(PMU_MAX_EVENTS, sizeof(*events));
    struct pmu_group *groups = calloc(PMU_MAX_EVENTS, sizeof(*groups));
    size_t n = pmu_config_parse(config, config_len, d, events, PMU_MAX_EVENTS, config_error,
                                (void *)config_name);
    bool metrics_fixed = false;
    if (o->metrics)
        n = plan_metrics(d, dc, o->metrics, events, n, &metrics_fixed);
    bool want_fixed = o->fixed_counters || metrics_fixed;
    uint32_t gp_mask = pmu_gp_mask(d);
    if (o->no_mem) {
        /* -no_mem: RDTSC, the fixed counters and the events share R8..R13. */
        struct counter_read fixed[PMU_MAX_FIXED];
        size_t taken = 1 + (o->fixed_counters ? session->ops->fixed_reads(d, fixed) : 0);
        unsigned room = taken < NOMEM_MAX_READS ? (unsigned)(NOMEM_MAX_READS - taken) : 0;
        gp_mask = pmu_lowest_counters(gp_mask, room);
    }
    size_t n_groups = pmu_schedule(events, n, gp_mask, groups);
    /* As the image (kernel/engine/bench_counters.c): no top-down events with -no_mem. */
    for (size_t g = 0; o->no_mem && g < n_groups; g++) {
        for (unsigned k = 0; k < groups[g].n_topdown; k++)
            fprintf(stderr, "nanobench: %s:%u: %s: top-down events are not measured with -no_mem "
                            "(event skipped)\n", config_name, events[groups[g].topdown_index[k]].line,
                    events[groups[g].topdown_index[k]].name);
        groups[g].n_topdown = 0;
    }
    for (size_t g = 0; g < n_groups || (g == 0 && want_fixed); g++) {
        const struct pmu_group *group = g < n_groups ? &groups[g] : NULL;
        print_group(g + 1, group, events, pmu_gp_mask(d));
        pmu_program_group(session, events, group, want_fixed && g == 0);
    }
    free(events);
    free(groups);
}

static void msr_config_error(void *arg, unsigned line, const char *message)
{
    fprintf(stderr, "nanobench: %s:%u: %s (event skipped)\n", (const char *)arg, line, message);
}

/*
 * The -msr_config pass after the groups (kernel/engine/bench_counters.c
 * measure_msr_events): per event the MSR it reads, its writes in line order,
 * and after the run each written MSR back to the value read before it, last
 * first. Those values are the machine's, unknown here.
 */
static void plan_msr_config(const char *text, size_t len, const char *name)
{
    struct msr_event *events = calloc(MSR_EVENT_MAX, sizeof(*events));
    size_t n = msr_config_parse(text, len, events, MSR_EVENT_MAX, msr_config_error, (void *)name);
    printf("# msr_config %s\n", name);
    for (size_t i = 0; i < n; i++) {
        const struct msr_event *ev = &events[i];
        printf("msr %zu: %s (line %u) rdmsr 0x%x\n", i + 1, ev->name, ev->line, ev->read_msr);
        for (unsigned w = 0; w < ev->n_writes; w++)
            printf("wrmsr 0x%x 0x%llx\n", ev->write_msr[w], (unsigned long long)ev->write_value[w]);
        for (unsigned w = ev->n_writes; w-- > 0;)
            printf("wrmsr 0x%x (the value read before)\n", ev->write_msr[w]);
    }
    free(events);
}

/*
 * -cycle_by_cycle: the writes of one cycle (cycle_by_cycle.h), for the
 * config's first PMU_FREEZE_GP events (with -end_to_end; otherwise the first
 * two and the internal IDQ.MS_UOPS and INST_RETIRED, which share the first
 * group): the freeze set up, the events selected, and the preset that
 * freezes the counters at the end of the first cycle; then the template's
 * own writes around the benchmark. Returns 0, or 2 when the CPU cannot.
 */
static int plan_cycles(const struct nb_platform *p, const struct pmu_desc *d, const struct bench_options *o,
                       const char *config, size_t config_len, const char *config_name)
{
    char why[240];
    const char *no = pmu_freeze_unsupported(d, NULL, why, sizeof(why));
    if (no) {
        fprintf(stderr, "nanobench: -cycle_by_cycle: %s\n", no);
        return 2;
    }
    struct pmu_event *events = calloc(PMU_MAX_EVENTS, sizeof(*events));
    size_t n = pmu_config_parse(config, config_len, d, events, PMU_MAX_EVENTS, config_error, (void *)config_name);
    uint64_t sel[PMU_FREEZE_GP] = { 0 };
    unsigned k = 0;
    for (size_t i = 0; i < n && k < PMU_FREEZE_GP; i++)
        sel[k++] = pmu_intel_ops.encode(&events[i]);
    if (!o->end_to_end) {
        /* The internal events of the mode (cycle_by_cycle.c) come after the config's. */
        if (k > PMU_FREEZE_GP - 2)
            k = PMU_FREEZE_GP - 2;
        sel[k++] = PMU_FREEZE_IDQ_MS_UOPS;
        sel[k++] = PMU_FREEZE_INST_RETIRED;
    }
    printf("# cycle by cycle: %u events per run, counters frozen by the overflow of fixed counter 1 "
           "(CPU_CLK_UNHALTED.THREAD); the writes of cycle 1:\n", k);
    struct pmu_freeze_state s;
    pmu_freeze_begin(p, d, &s);
    pmu_freeze_select(p, &s, sel, k);
    pmu_freeze_arm(p, d, &s, PMU_FREEZE_PMI_FIXED(PMU_FREEZE_FIXED_CYCLES), 0);
    printf("# the template: wrmsr 0x%x 0x%llx; lfence; <benchmark>; lfence; wrmsr 0x%x 0x0; "
           "then rdmsr of the frozen counters\n", MSR_IA32_PERF_GLOBAL_CTRL,
           (unsigned long long)pmu_freeze_global_enable(d), MSR_IA32_PERF_GLOBAL_CTRL);
    printf("# cycle N presets fixed counter 1 to 2^%u - N; after the last cycle:\n", d->fixed_width);
    pmu_freeze_end(p, &s);
    free(events);
    return 0;
}

int nb_plan(const struct bench_options *cli, const char *suite, const struct plan_bench *benches,
            size_t n)
{
    struct plan_cpu pc;
    unsigned n_gp_override;
    if (!cli->plan_cpu) {
        fprintf(stderr, "nanobench: -plan needs -plan_cpu " PLAN_CPU_SYNTAX "\n");
        return 2;
    }
    /* A name (skylake, alderlake:p) stands for its VENDOR:FAMILY:MODEL (plan_cpu_names.h). */
    char spec[160], why_name[200];
    const char *root_dir = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
    int named = plan_cpu_resolve(root_dir, cli->plan_cpu, spec, sizeof(spec), why_name, sizeof(why_name));
    if (named < 0 && strchr(cli->plan_cpu, ':') == NULL)
        return bad_spec(cli->plan_cpu, why_name);
    if (parse_plan_cpu(named > 0 ? spec : cli->plan_cpu, &pc, &n_gp_override) != 0)
        return 2;

    /* The image's own detection, on the CPUID and MSRs of that model. */
    struct nb_platform platform = { .ctx = &pc, .cpuid = plan_cpuid, .read_msr = plan_read_msr,
                                    .write_msr = plan_write_msr };
    struct machine_info mi;
    struct pmu_desc d;
    char why[200] = "";
    machine_identify(&platform, &mi);
    if (!pmu_detect(&platform, &mi, &d, why, sizeof(why))) {
        fprintf(stderr, "nanobench: -plan_cpu '%s': the image would find no usable PMU (%s) and "
                        "measure RDTSC only\n", cli->plan_cpu, why);
        return 2;
    }
    if (n_gp_override) {
        /* The override is the count the image would see (e.g. Hyper-Threading off). */
        d.n_gp = n_gp_override;
        d.gp_mask = pmu_low_bits(n_gp_override);
    }
    pc.printing = true;
    static struct pmu_ctr_rules ctr_rules;
    load_ctr_rules(&d, &ctr_rules);

    struct default_config dc = { 0 };
    bool needs_default = false;
    for (size_t i = 0; i < n; i++)
        needs_default |= !benches[i].config || benches[i].o->metrics; /* -metrics: the CPU's metric file */
    if (needs_default)
        pick_default_config(&d, &dc);
    const char *default_name = dc.name ? dc.name : "built-in architectural events";
    if (suite)
        printf("# plan for %s: %s, suite %s\n", cli->plan_cpu, pmu_ops_for(d.vendor)->name, suite);
    else
        printf("# plan for %s: %s, config %s\n", cli->plan_cpu, pmu_ops_for(d.vendor)->name,
               benches[0].config ? benches[0].config_name : default_name);
    print_cpu(&pc.cpu.row, &d);

    /* One session for the whole run, as on the image (counters_init). */
    struct pmu_session session;
    pmu_session_begin(&session, &platform, &d);
    for (size_t i = 0; i < n; i++) {
        const struct plan_bench *b = &benches[i];
        const char *config = b->config ? b->config : dc.text ? dc.text : dc.arch;
        size_t config_len = b->config ? b->config_len : dc.len;
        const char *config_name = b->config ? b->config_name : default_name;
        if (suite)
            printf("[%s]\n# config %s\n", b->name, config_name);
        if (b->o->freq_base) {
            /* -freq base (pmu/freq_pin.h): the writes depend on MSR values -plan does not have. */
            char text[600];
            freq_pin_describe(d.vendor, text, sizeof(text));
            printf("# -freq base:\n");
            for (const char *line = text; *line;) {
                const char *nl = strchr(line, '\n');
                int len = nl ? (int)(nl - line) : (int)strlen(line);
                printf("#   %.*s\n", len, line);
                line += len + (nl ? 1 : 0);
            }
        }
        if (b->o->cycle_by_cycle) {
            if (plan_cycles(&platform, &d, b->o, config, config_len, config_name) != 0)
                return 2;
            continue;
        }
        plan_groups(&session, &d, b->o, config, config_len, config_name, &dc);
        if (b->msr_config)
            plan_msr_config(b->msr_config, b->msr_config_len, b->msr_config_name);
    }
    free(dc.text);
    free(dc.name);
    return 0;
}
