/*
 * bench_counters.c — counter groups around bench_measure (see bench_counters.h).
 */
#include "bench_counters.h"
#include "bench_codegen.h"
#include "core_kind.h"
#include "bench_stats.h"
#include "cpu_platform.h"
#include "freq_pin.h"
#include "nb_paths.h"
#include "nb_text.h"
#include "pmu_config_parse.h"
#include "pmu_msrs.h"
#include "pmu_arch_events.h"
#include "pmu_config_map.h"
#include "probe_code.h"
#include "cpuid_bits.h"
#include "x86_emit.h"

#define PROBE_ITERATIONS 1000u
#define PROBE_CODE_SIZE 4096u
#define PROBE_ATTEMPTS 3

struct probe_run {
    const struct nb_platform *p;
    void *code;
};

static void call_code(void *code)
{
    ((void (*)(void))code)();
}

/* The probe's known loop (mov ecx, N; l: dec ecx; jnz l; ret), on the PMU's processor. */
static void run_probe_loop(void *arg)
{
    struct probe_run *run = arg;
    nb_run_on_cpu(run->p, nb_current_cpu(run->p), call_code, run->code);
}

struct probe_call {
    probe_fn fn;
    uint64_t count;
};

static void call_probe(void *arg)
{
    struct probe_call *c = arg;
    c->count = c->fn();
}

/* Runs the probe procedure with `iterations` on the PMU's processor; false if it cannot run there. */
static bool run_probe_procedure(struct probe_run *run, const struct pmu_probe_sequence *s,
                                uint32_t iterations, uint64_t *count)
{
    struct probe_call c = { probe_code_emit(run->code, PROBE_CODE_SIZE, s, iterations), 0 };
    if (!c.fn || nb_run_on_cpu(run->p, nb_current_cpu(run->p), call_probe, &c) != NB_OK)
        return false;
    *count = c.count;
    return true;
}

/*
 * Ring 0: the count of the loop alone, as the difference between the same
 * procedure with PROBE_ITERATIONS and with 0 extra rounds, the smallest of
 * PROBE_ATTEMPTS each (an SMI only ever adds). The fixed cost of the
 * MSR writes around the loop cancels, so the bound can be tight on every
 * processor.
 */
static bool count_in_one_procedure(void *arg, const struct pmu_probe_sequence *s, uint64_t *count)
{
    struct probe_run *run = arg;
    uint64_t with_loop = ~0ull, without = ~0ull;
    for (int attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
        uint64_t a, b;
        if (!run_probe_procedure(run, s, PROBE_ITERATIONS, &a) || !run_probe_procedure(run, s, 0, &b))
            return false;
        with_loop = a < with_loop ? a : with_loop;
        without = b < without ? b : without;
    }
    *count = with_loop >= without ? with_loop - without : 0;
    return true;
}

static bool probe(struct counter_env *env)
{
    const struct nb_platform *p = env->p;
    uint8_t *code = p->alloc_exec(p->ctx, PROBE_CODE_SIZE);
    if (!code) {
        nb_snprintf(env->why, sizeof(env->why), "no memory for the probe loop");
        return false;
    }
    struct probe_run run = { p, code };
    struct pmu_probe_loop probe_loop;
    if (p->ring0) {
        /* dec + jnz per round, exactly: allow 1/16 for a counter that also counts something else. */
        probe_loop = (struct pmu_probe_loop){ count_in_one_procedure, NULL, &run,
                                              2 * PROBE_ITERATIONS - PROBE_ITERATIONS / 8,
                                              2 * PROBE_ITERATIONS + PROBE_ITERATIONS / 8 };
    } else {
        /* User mode (host tests): the platform programs the counter around a plain loop. */
        struct x86_emitter e;
        x86_emitter_init(&e, code, PROBE_CODE_SIZE);
        x86_mov_reg32_imm32(&e, RCX, PROBE_ITERATIONS);
        uintptr_t loop = x86_here(&e);
        x86_bytes(&e, "\xFF\xC9", 2); /* dec ecx */
        x86_jnz_rel32(&e, loop);
        x86_ret(&e);
        /* The bounds allow for the call, the MSR writes around it and SMM noise. */
        probe_loop = (struct pmu_probe_loop){ NULL, run_probe_loop, &run, 2 * PROBE_ITERATIONS,
                                              100 * PROBE_ITERATIONS };
    }
    bool ok = pmu_probe(p, &env->desc, &probe_loop, env->why, sizeof(env->why));
    p->free_mem(p->ctx, code, PROBE_CODE_SIZE);
    return ok;
}

struct program_call {
    struct counter_env *env;
    const struct pmu_group *group;
    bool fixed;
    bool ok;
};

static void program_here(const struct nb_platform *local, void *arg)
{
    struct program_call *c = arg;
    struct pmu_session *s = &c->env->session;
    const struct nb_platform *forwarding = s->p;
    s->p = local;
    c->ok = pmu_program_group(s, c->env->events, c->group, c->fixed);
    s->p = forwarding;
}

/*
 * Programs a counter group in one call on the PMU's processor: on another
 * processor (-cpu N) every MSR access of the group is local there, instead
 * of one firmware AP call per access (PI spec vol. 2 13.4.5 StartupThisAP).
 */
static bool program_group(struct counter_env *env, const struct pmu_group *group, bool fixed)
{
    struct program_call c = { env, group, fixed, false };
    if (nb_run_locally(env->p, program_here, &c) != NB_OK) {
        nb_memset(&env->session.last, 0, sizeof(env->session.last));
        env->session.last.group_failed = true;
        return false;
    }
    return c.ok;
}

/*
 * The default config for this CPU from the image's cpu_map.txt, if any, and the line
 * saying why (which map line chose it; a warning when it is another model's).
 */
static void pick_default_config(struct counter_env *env, const struct machine_info *m)
{
    const struct nb_platform *p = env->p;
    const char *vendor = m->vendor_id == VENDOR_AMD ? "amd" : "intel";
    struct config_choice c;
    void *data;
    size_t size;
    env->default_config[0] = env->ctr_rules_path[0] = '\0';
    nb_snprintf(env->config_why, sizeof(env->config_why),
                "warning: pmu: no %s on the image", CONFIG_MAP_PATH);
    if (p->read_file(p->ctx, CONFIG_MAP_PATH, &data, &size) != NB_OK)
        return;
    struct config_cpu cpu = { m->vendor_id, m->family, m->model, (int)m->stepping,
                              env->desc.core_type, env->desc.native_model };
    switch (pmu_config_map_choose_cpu(data, size, &cpu, &c)) {
    case CONFIG_MATCH_EXACT:
        nb_snprintf(env->default_config, sizeof(env->default_config), "%s", c.path);
        nb_snprintf(env->ctr_rules_path, sizeof(env->ctr_rules_path), "configs/ctr_%s.txt",
                    c.prefix);
        nb_snprintf(env->config_why, sizeof(env->config_why),
                    "pmu: chosen by cpu_map.txt: %s family 0x%x model 0x%x%s", vendor, m->family,
                    m->model, c.ecore ? ", E-core" : "");
        break;
    case CONFIG_MATCH_UNKNOWN_MODEL:
        /* Never a neighbour's table (pmu_config_map.h): the architectural events only. */
        nb_snprintf(env->config_why, sizeof(env->config_why),
                    "warning: pmu: %s family 0x%x model 0x%x is not in cpu_map.txt: measuring the "
                    "architectural events only (CPUID.0AH); pass this processor's events with "
                    "-config FILE", vendor, m->family, m->model);
        break;
    case CONFIG_MATCH_NONE:
        nb_snprintf(env->config_why, sizeof(env->config_why),
                    "warning: pmu: no config for %s family 0x%x model 0x%x in cpu_map.txt "
                    "(no model of that family is listed): measuring the architectural events "
                    "only (CPUID.0AH); pass this processor's events with -config FILE", vendor,
                    m->family, m->model);
        break;
    }
    p->free_file(p->ctx, data, size);
}

static void ctr_rules_error(void *arg, unsigned line, const char *message)
{
    struct counter_env *env = arg;
    report_line(env->report, "warning: pmu: %s line %u: %s (rule skipped)", env->ctr_rules_path,
                line, message);
}

/*
 * The vendor's counter restrictions of this core (pmu_ctr_rules.h), from the
 * ctr_<NAME>.txt of the map line that chose the default config: every config
 * the image parses from then on (-config files, metric configs) is held to
 * them. Says which file, or that none is known.
 */
static void load_ctr_rules(struct counter_env *env)
{
    const struct nb_platform *p = env->p;
    char path[128];
    void *data;
    size_t size;
    if (!env->ctr_rules_path[0]) {
        report_line(env->report, "pmu: counter restrictions: none known for this model");
        return;
    }
    nb_snprintf(path, sizeof(path), NB_DIR "/%s", env->ctr_rules_path);
    if (p->read_file(p->ctx, path, &data, &size) != NB_OK) {
        report_line(env->report, "warning: pmu: no %s on the image: events are not held to the "
                                 "counters the vendor lists", env->ctr_rules_path);
        return;
    }
    env->ctr_rules = p->alloc_data(p->ctx, sizeof(struct pmu_ctr_rules));
    if (env->ctr_rules) {
        size_t n = pmu_ctr_rules_parse(data ? data : "", size, env->vendor, env->ctr_rules_path,
                                       env->ctr_rules, ctr_rules_error, env);
        env->desc.ctr_rules = env->ctr_rules;
        report_line(env->report, "pmu: counter restrictions: %s (%zu rule%s), for every config",
                    env->ctr_rules_path, n, n == 1 ? "" : "s");
    }
    if (data)
        p->free_file(p->ctx, data, size);
}

void counters_init(struct counter_env *env, const struct nb_platform *p,
                   const struct machine_info *m, struct report *r)
{
    nb_memset(env, 0, sizeof(*env));
    env->p = p;
    env->report = r;
    env->tsc_hz = m->tsc_hz;
    env->vendor = m->vendor_id;
    env->machine = *m;
    env->msr_events = p->alloc_data(p->ctx, sizeof(struct msr_event) * MSR_EVENT_MAX);
    power_identify(p, m, &env->power);
    report_line(r, "power: turbo %s, HWP %s, APERF/MPERF %s", tristate_name(env->power.turbo),
                tristate_name(env->power.hwp), env->power.aperf_mperf ? "yes" : "no");
    /* RDMSR in the generated code needs ring 0 (host tests run in user mode). */
    env->power.smi_count = env->power.smi_count && p->ring0;
    /* AMD: no SMI counter MSR; PMCx02B once the PMU is known to count (below). */
    bool amd_smi_later = p->ring0 && m->vendor_id == VENDOR_AMD && m->family >= AMD_SMI_RX_MIN_FAMILY;
    if (env->power.smi_count)
        report_line(r, "smi: %llu SMIs since reset (MSR_SMI_COUNT); a measurement with an SMI is repeated",
                    (unsigned long long)env->power.smis);
    else if (!amd_smi_later)
        report_line(r, "smi: not checked (%s)",
                    p->ring0 ? "no SMI counter on this processor" : "the code does not run in ring 0");
    if (!pmu_detect(p, m, &env->desc, env->why, sizeof(env->why)) || !probe(env)) {
        if (amd_smi_later)
            report_line(r, "smi: not detected (AMD has no SMI count MSR, and PMCx02B needs the PMU)");
        report_line(r, "pmu: none usable: %s; measuring RDTSC only", env->why);
        pick_default_config(env, m); /* -metrics still names the CPU's metric file */
        return;
    }
    env->events = p->alloc_data(p->ctx, sizeof(struct pmu_event) * PMU_MAX_EVENTS);
    env->groups = p->alloc_data(p->ctx, sizeof(struct pmu_group) * PMU_MAX_EVENTS);
    if (!env->events || !env->groups) {
        report_line(r, "pmu: no memory for event tables; measuring RDTSC only");
        return;
    }
    env->usable = true;
    env->amd_smi = amd_smi_later;
    if (amd_smi_later)
        report_line(r, "smi: counted with PMCx02B (SMIs received) on a counter each group leaves free; "
                       "a measurement with an SMI is repeated");
    pick_default_config(env, m);
    const struct pmu_desc *d = &env->desc;
    char summary[200], missing[2][160];
    pmu_desc_summary(d, summary, sizeof(summary));
    report_line(r, "pmu: %s; probe ok", summary);
    for (size_t i = 0, n = pmu_desc_missing(d, missing); i < n; i++)
        report_line(r, "pmu: %s", missing[i]);
    if (d->core_type)
        report_line(r, "pmu: hybrid core type 0x%x (%s)", d->core_type,
                    d->core_type == HYBRID_CORE_ATOM ? "E-core" : "P-core");
    report_line(r, "pmu: default config %s",
                env->default_config[0] ? env->default_config : "built-in architectural events");
    report_line(r, "%s", env->config_why);
    load_ctr_rules(env);
    enum pmu_tfa tfa = pmu_intel_tsx_force_abort(p, m);
    env->desc.tsx_force_abort = tfa == PMU_TFA_NEEDED;
    pmu_session_begin(&env->session, p, d);
    if (tfa == PMU_TFA_RTM_ALWAYS_ABORT)
        report_line(r, "pmu: TSX force-abort not needed: RTM always aborts (CPUID.(7,0):EDX[11]), "
                       "PMC3 is free");
    /* Linux's default (allow_tsx_force_abort): PMC3 is ours, RTM aborts while it counts. */
    if (env->session.tfa)
        report_line(r, "pmu: TSX force-abort: RTM transactions abort while a group uses PMC3 "
                       "(MSR_TSX_FORCE_ABORT set for those runs, restored after)");
    if (env->session.tfa_failed) {
        env->desc.gp_withheld |= 1u << TFA_COUNTER;
        report_line(r, "pmu: TSX force-abort: MSR_TSX_FORCE_ABORT (0x%x) cannot be set; PMC%u stays "
                       "with the microcode and is not used", MSR_TSX_FORCE_ABORT, TFA_COUNTER);
    }
}

size_t counters_init_blocks(size_t sizes[COUNTERS_INIT_BLOCKS], bool exec[COUNTERS_INIT_BLOCKS])
{
    /* In counters_init's order: msr_events, the probe's loop, events, groups, ctr_rules. */
    const size_t all[COUNTERS_INIT_BLOCKS] = { sizeof(struct msr_event) * MSR_EVENT_MAX, PROBE_CODE_SIZE,
                                               sizeof(struct pmu_event) * PMU_MAX_EVENTS,
                                               sizeof(struct pmu_group) * PMU_MAX_EVENTS,
                                               sizeof(struct pmu_ctr_rules) };
    for (size_t i = 0; i < COUNTERS_INIT_BLOCKS; i++) {
        sizes[i] = all[i];
        exec[i] = i == 1;
    }
    return COUNTERS_INIT_BLOCKS;
}

void counters_finish(struct counter_env *env)
{
    const struct nb_platform *p = env->p;
    if (env->usable) {
        unsigned failed = pmu_session_end(&env->session);
        if (failed && env->report)
            report_line(env->report, "warning: pmu: %u counter MSR%s could not be restored to the value "
                                     "found at start", failed, failed == 1 ? "" : "s");
    }
    if (env->events)
        p->free_mem(p->ctx, env->events, sizeof(struct pmu_event) * PMU_MAX_EVENTS);
    if (env->ctr_rules)
        p->free_mem(p->ctx, env->ctr_rules, sizeof(struct pmu_ctr_rules));
    env->ctr_rules = NULL;
    env->desc.ctr_rules = NULL;
    if (env->groups)
        p->free_mem(p->ctx, env->groups, sizeof(struct pmu_group) * PMU_MAX_EVENTS);
    if (env->msr_events)
        p->free_mem(p->ctx, env->msr_events, sizeof(struct msr_event) * MSR_EVENT_MAX);
    if (env->metrics)
        p->free_mem(p->ctx, env->metrics, sizeof(struct metric_file));
    if (env->plan)
        p->free_mem(p->ctx, env->plan, sizeof(struct metric_plan));
    for (unsigned c = 0; c < METRIC_CONFIG_MAX; c++) {
        if (env->metric_config_events[c])
            p->free_mem(p->ctx, env->metric_config_events[c], sizeof(struct pmu_event) * PMU_MAX_EVENTS);
        env->metric_config_events[c] = NULL;
    }
    env->metrics = NULL;
    env->plan = NULL;
    env->metrics_tried = false;
    env->events = NULL;
    env->groups = NULL;
    env->msr_events = NULL;
    env->usable = false;
}

struct config_errors {
    struct report *r;
    const char *path;
};

static void config_error(void *arg, unsigned line, const char *message)
{
    struct config_errors *e = arg;
    report_line(e->r, "warning: %s line %u: %s (event skipped)", e->path, line, message);
}

/*
 * Reads nanobench/REL; reports a missing file as the benchmark's error and
 * returns false. An empty file is fine (*data NULL, *size 0).
 */
static bool read_config(struct counter_env *env, const char *option, const char *rel, void **data,
                        size_t *size, struct report *r)
{
    char path[160];
    nb_snprintf(path, sizeof(path), NB_DIR "/%s", rel);
    int st = env->p->read_file(env->p->ctx, path, data, size);
    if (st != NB_OK) {
        report_error(r, "option %s: cannot read %s (%s)", option, path,
                     st == NB_ENOENT ? "no such file on the image" : "read error");
        return false;
    }
    return true;
}

/*
 * Loads and parses the benchmark's events; returns the count or -1 after
 * reporting. *file names the config for messages.
 */
static long load_events(struct counter_env *env, const struct bench_options *o, struct report *r,
                        const char **file)
{
    const struct nb_platform *p = env->p;
    const char *rel = o->config_path ? o->config_path : env->default_config;
    void *data = NULL;
    size_t size = 0;
    char arch[512];
    const char *text = arch;
    size_t len = pmu_arch_events_for(&env->desc, arch, sizeof(arch));
    bool from_file = false;
    if (o->config_path) {
        if (!read_config(env, "-config", rel, &data, &size, r))
            return -1;
        from_file = true; /* an empty file has no events */
    } else if (rel[0]) {
        /* A default config that is missing falls back to the built-in events. */
        char path[160];
        nb_snprintf(path, sizeof(path), NB_DIR "/%s", rel);
        from_file = p->read_file(p->ctx, path, &data, &size) == NB_OK;
    }
    if (from_file) {
        text = data ? data : "";
        len = size;
    }
    struct config_errors errors = { r, from_file ? rel : "built-in events" };
    *file = errors.path;
    size_t n = pmu_config_parse(text, len, &env->desc, env->events,
                                PMU_MAX_EVENTS, config_error, &errors);
    if (data)
        p->free_file(p->ctx, data, size);
    return (long)n;
}

long counters_load_events(struct counter_env *env, const struct bench_options *o, struct report *r)
{
    const char *file;
    return load_events(env, o, r, &file);
}

struct metric_errors {
    struct report *r;
    unsigned n;
};

static void metric_file_error(void *arg, const char *message)
{
    struct metric_errors *e = arg;
    if (e->n++ < 3)
        report_line(e->r, "warning: %s", message);
}

/* Reads and parses nanobench/REL into env->metrics; false when it cannot be read. */
static bool read_metric_file(struct counter_env *env, const char *rel, struct report *r)
{
    const struct nb_platform *p = env->p;
    char path[160];
    void *data;
    size_t size;
    nb_snprintf(path, sizeof(path), NB_DIR "/%s", rel);
    if (p->read_file(p->ctx, path, &data, &size) != NB_OK)
        return false;
    struct metric_errors errors = { r, 0 };
    env->metrics_ok = metric_file_parse(data ? data : "", size, rel, env->metrics, metric_file_error, &errors);
    if (data)
        p->free_file(p->ctx, data, size);
    nb_snprintf(env->metrics_path, sizeof(env->metrics_path), "%s", rel);
    if (!env->metrics_ok)
        nb_snprintf(env->metrics_error, sizeof(env->metrics_error), "-metrics: %s has %u error%s",
                    rel, errors.n, errors.n == 1 ? "" : "s");
    return true;
}

/*
 * Once per suite: the CPU's metric file (configs/metrics/PREFIX.txt for
 * the default config cfg_PREFIX_common.txt, else arch_<vendor>.txt) and,
 * with a PMU, the configs it names. False (with env->metrics_error) when
 * there is none usable.
 */
static bool load_metrics(struct counter_env *env, struct report *r)
{
    const struct nb_platform *p = env->p;
    if (env->metrics_tried)
        return env->metrics_ok;
    env->metrics_tried = true;
    env->metrics_ok = false;
    env->metrics = p->alloc_data(p->ctx, sizeof(struct metric_file));
    env->plan = p->alloc_data(p->ctx, sizeof(struct metric_plan));
    if (!env->metrics || !env->plan) {
        nb_snprintf(env->metrics_error, sizeof(env->metrics_error), "-metrics: no memory for the metric file");
        return false;
    }
    char rel[96], arch[96];
    metrics_file_for(env->default_config, env->vendor, rel, sizeof(rel));
    metrics_arch_file(env->vendor, arch, sizeof(arch));
    if (!read_metric_file(env, rel, r) && !read_metric_file(env, arch, r)) {
        nb_snprintf(env->metrics_error, sizeof(env->metrics_error),
                    "-metrics: neither %s nor %s is on the image", rel, arch);
        return false;
    }
    if (!env->metrics_ok)
        return false;
    const struct metric_file *f = env->metrics;
    for (unsigned c = 0; c < f->n_configs && env->usable; c++) {
        char arch_text[512];
        const char *text = arch_text;
        size_t len;
        void *data = NULL;
        size_t size = 0;
        if (nb_strcmp(f->configs[c], "builtin") == 0) {
            len = pmu_arch_events_for(&env->desc, arch_text, sizeof(arch_text));
        } else {
            char path[160];
            nb_snprintf(path, sizeof(path), NB_DIR "/configs/%s", f->configs[c]);
            if (p->read_file(p->ctx, path, &data, &size) != NB_OK) {
                nb_snprintf(env->metric_config_why[c], METRICS_WHY_MAX, "%s is not on the image", path);
                continue;
            }
            text = data ? data : "";
            len = size;
        }
        env->metric_config_events[c] = p->alloc_data(p->ctx, sizeof(struct pmu_event) * PMU_MAX_EVENTS);
        if (env->metric_config_events[c]) {
            struct config_errors errors = { r, f->configs[c] };
            env->metric_config_n[c] = pmu_config_parse(text, len, &env->desc, env->metric_config_events[c],
                                                       PMU_MAX_EVENTS, config_error, &errors);
        } else {
            nb_snprintf(env->metric_config_why[c], METRICS_WHY_MAX, "no memory for %s", f->configs[c]);
        }
        if (data)
            p->free_file(p->ctx, data, size);
    }
    return true;
}

/* The benchmark's metric groups chosen; false after reporting why not. */
static bool select_metrics(struct counter_env *env, const struct bench_options *o, struct report *r)
{
    char err[240];
    if (!load_metrics(env, r)) {
        report_error(r, "%s", env->metrics_error);
        return false;
    }
    if (!metrics_select(env->plan, env->metrics, env->vendor, o->metrics, err, sizeof(err))) {
        report_error(r, "%s", err);
        return false;
    }
    return true;
}

bool counters_metrics_load(struct counter_env *env, struct report *r)
{
    return load_metrics(env, r);
}

bool counters_metrics_need_latencies(struct counter_env *env, const struct bench_options *o, struct report *r)
{
    char err[240];
    if (!o->metrics || !env->usable || !load_metrics(env, r))
        return false;
    return metrics_select(env->plan, env->metrics, env->vendor, o->metrics, err, sizeof(err)) &&
           metrics_need_latencies(env->plan);
}

/*
 * -verbose: which calibration the metrics' N1..N4 came from. On a hybrid
 * part each core kind has its own (pmu/core_kind.h), and the benchmark's
 * processor's is the one it got.
 */
static void report_latency_source(const struct counter_env *env, const struct bench_options *o,
                                  struct report *r)
{
    if (!o->verbose || !metrics_need_latencies(env->plan))
        return;
    const struct machine_latencies *l = env->latencies;
    if (!l || !l->measured) {
        report_line(r, "verbose: metrics: N1..N4: this processor's core kind was not calibrated");
        return;
    }
    char kind[96];
    core_kind_describe(&l->kind, kind, sizeof(kind));
    report_line(r, "verbose: metrics: N1..N4 from the calibration on processor %u%s%s", l->cpu,
                kind[0] ? ", " : " (not a hybrid part: one calibration serves every processor)", kind);
}

bool counters_find_event(struct counter_env *env, const char *const *names, struct pmu_event *out,
                         const char **why, struct report *r)
{
    *why = "no usable PMU";
    if (!env || !env->usable)
        return false;
    if (!load_metrics(env, r)) {
        *why = "no metric file for this CPU on the image";
        return false;
    }
    for (const char *const *name = names; *name; name++) {
        for (unsigned c = 0; c < env->metrics->n_configs; c++) {
            for (size_t i = 0; env->metric_config_events[c] && i < env->metric_config_n[c]; i++) {
                if (nb_strcmp(env->metric_config_events[c][i].name, *name) == 0) {
                    *out = env->metric_config_events[c][i];
                    return true;
                }
            }
        }
    }
    *why = "none of its events in this CPU's configs";
    return false;
}

/*
 * "NAME: 2.00", with -range "NAME: 2.00 [1.50;2.40]" (nanoBench's format) in
 * the text and min and max in their own CSV columns.
 */
static void print_value(struct report *r, const char *name, int64_t value, int64_t lo, int64_t hi,
                        const struct bench_options *o)
{
    char text[96], v[32], min[32], max[32];
    stats_format(v, sizeof(v), value, o->no_normalization);
    if (!o->range) {
        report_value(r, name, v);
        return;
    }
    /* The text as nanoBench prints it; the CSV with the bounds in their own columns. */
    stats_format(min, sizeof(min), lo, o->no_normalization);
    stats_format(max, sizeof(max), hi, o->no_normalization);
    nb_snprintf(text, sizeof(text), "%s [%s;%s]", v, min, max);
    report_value_range(r, name, text, v, min, max);
}

/* Value k of a measurement, with its range. */
static void print_result(struct report *r, const char *name, const struct bench_result *res, size_t k,
                         const struct bench_options *o)
{
    print_value(r, name, res->values[k], res->range_lo[k], res->range_hi[k], o);
}

static const struct counter_read TSC_ONLY[] = { { READ_TSC, 0, "RDTSC", 64, 0, 0 } };

/* Writes an MSR event's setup; on a fault undoes what was written and returns false. */
static bool apply_msr_writes(struct counter_env *env, const struct msr_event *ev, uint64_t *saved,
                             struct report *r, const char *file)
{
    const struct nb_platform *p = env->p;
    for (unsigned i = 0; i < ev->n_writes; i++) {
        if (p->read_msr(p->ctx, ev->write_msr[i], &saved[i]) != NB_OK ||
            p->write_msr(p->ctx, ev->write_msr[i], ev->write_value[i]) != NB_OK) {
            report_line(r, "warning: %s line %u: MSR 0x%x cannot be written on this CPU (event skipped)",
                        file, ev->line, ev->write_msr[i]);
            while (i-- > 0)
                p->write_msr(p->ctx, ev->write_msr[i], saved[i]);
            return false;
        }
    }
    return true;
}

/* -msr_config: one run per MSR event (each has its own MSR writes). */
static void measure_msr_events(struct counter_env *env, struct bench_context *bench,
                               const struct bench_options *o, const struct bench_code *code,
                               struct report *r)
{
    const struct nb_platform *p = env->p;
    size_t size = 0;
    void *data = NULL;
    if (!read_config(env, "-msr_config", o->msr_config_path, &data, &size, r) || !data ||
        !env->msr_events) {
        if (data)
            p->free_file(p->ctx, data, size);
        return;
    }
    struct config_errors errors = { r, o->msr_config_path };
    size_t n = msr_config_parse(data, size, env->msr_events, MSR_EVENT_MAX, config_error, &errors);
    p->free_file(p->ctx, data, size);
    for (size_t i = 0; i < n; i++) {
        const struct msr_event *ev = &env->msr_events[i];
        uint64_t value, saved[MSR_EVENT_MAX_WRITES];
        /* Probe before trust: RDMSR of a missing MSR would #GP inside the benchmark code. */
        if (p->read_msr(p->ctx, ev->read_msr, &value) != NB_OK) {
            report_line(r, "warning: %s line %u: MSR 0x%x cannot be read on this CPU (event skipped)",
                        o->msr_config_path, ev->line, ev->read_msr);
            continue;
        }
        if (!apply_msr_writes(env, ev, saved, r, o->msr_config_path))
            continue;
        struct counter_read reads[2] = { { READ_TSC, 0, "RDTSC", 64, 0, 0 }, { READ_MSR, ev->read_msr, ev->name, ev->width, 0, 0 } };
        struct bench_result result;
        char error[200];
        bench->reads = reads;
        bench->n_reads = 2;
        bench->n_fixed = 0;
        bench->verbose_skip = 1; /* this pass reports the MSR only */
        int st = bench_measure(bench, o, code, &result, error, sizeof(error));
        for (unsigned w = ev->n_writes; w-- > 0;)
            p->write_msr(p->ctx, ev->write_msr[w], saved[w]);
        if (st != NB_OK) {
            report_error(r, "%s (MSR event %s)", error, ev->name);
            return;
        }
        if (!(o->remove_empty_events && result.values[1] == 0))
            print_result(r, ev->name, &result, 1, o);
    }
}

static void measure_pmu_events(struct counter_env *env, struct bench_context *bench,
                               const struct bench_options *o, const struct bench_code *code,
                               struct report *r);

/* The effective clock over the benchmark: TSC frequency x dAPERF / dMPERF. */
static void report_frequency(struct counter_env *env, struct report *r, uint64_t aperf0,
                             uint64_t mperf0)
{
    uint64_t aperf1, mperf1;
    if (!power_read_aperf_mperf(env->p, &aperf1, &mperf1))
        return;
    uint64_t da = aperf1 - aperf0, dm = mperf1 - mperf0;
    if (dm == 0 || env->tsc_hz == 0)
        return;
    uint64_t mhz = (uint64_t)((unsigned __int128)env->tsc_hz * da / dm / 1000000u);
    report_line(r, "frequency: %llu MHz effective during the benchmark (APERF/MPERF)",
                (unsigned long long)mhz);
}

/*
 * The base and the main run at different clocks: the result (main - base)
 * then subtracts cycles of different lengths, and core-cycle counts do not
 * cancel. Warns beyond FREQ_TOLERANCE_PERMILLE of the faster run.
 */
static void report_run_frequencies(struct counter_env *env, const struct bench_context *bench,
                                   struct report *r)
{
    if (!bench->freq_mperf[0] || !bench->freq_mperf[1] || !env->tsc_hz)
        return;
    uint64_t mhz[2];
    for (int run = 0; run < 2; run++)
        mhz[run] = (uint64_t)((unsigned __int128)env->tsc_hz * bench->freq_aperf[run] /
                              bench->freq_mperf[run] / 1000000u);
    uint64_t hi = mhz[0] > mhz[1] ? mhz[0] : mhz[1], lo = mhz[0] > mhz[1] ? mhz[1] : mhz[0];
    if (!hi || (hi - lo) * 1000u <= hi * FREQ_TOLERANCE_PERMILLE)
        return;
    uint64_t apart = (hi - lo) * 1000u / hi; /* permille */
    report_line(r, "warning: frequency: the base run ran at %llu MHz, the main run at %llu MHz "
                   "(APERF/MPERF), %llu.%llu%% apart (tolerance %u%%): the result subtracts cycles "
                   "of different lengths", (unsigned long long)mhz[0], (unsigned long long)mhz[1],
                (unsigned long long)(apart / 10), (unsigned long long)(apart % 10),
                FREQ_TOLERANCE_PERMILLE / 10);
}

bool counters_smi_warning(unsigned repeated, unsigned kept, char *out, size_t cap)
{
    if (!repeated && !kept)
        return false;
    size_t n = nb_snprintf(out, cap, "warning: ");
    if (repeated)
        n += nb_snprintf(out + n, cap - n, "%u measurement%s saw an SMI and %s repeated", repeated,
                         repeated == 1 ? "" : "s", repeated == 1 ? "was" : "were");
    if (kept && n < cap)
        nb_snprintf(out + n, cap - n, "%s%u kept measurement%s saw an SMI too (SMIs too frequent to "
                                      "repeat them all)", repeated ? "; " : "", kept, kept == 1 ? "" : "s");
    return true;
}

void counters_measure(struct counter_env *env, struct bench_context *bench,
                      const struct bench_options *o, const struct bench_code *code,
                      struct report *r)
{
    unsigned errors_before = r->n_errors;
    /* -freq base: fixed before the first measurement, given back after the last (freq_pin.h). */
    struct freq_pin pin = { 0 };
    if (o->freq_base) {
        char what[240];
        if (freq_pin_base(&pin, env->p, &env->machine, what, sizeof(what)))
            report_line(r, "%s; restored after the benchmark", what);
        else
            report_line(r, "warning: -freq base: not applied: %s", what);
    }
    uint64_t aperf0 = 0, mperf0 = 0;
    bool freq = env->power.aperf_mperf && power_read_aperf_mperf(env->p, &aperf0, &mperf0);
    bench->smi_check = env->power.smi_count;
    bench->freq_check = freq;
    nb_memset(bench->freq_aperf, 0, sizeof(bench->freq_aperf));
    nb_memset(bench->freq_mperf, 0, sizeof(bench->freq_mperf));
    bench->smi_repeated = 0;
    bench->smi_kept = 0;
    bench_benchmark_begin(bench); /* -timeout covers every group and the MSR pass */
    if (env->usable) {
        measure_pmu_events(env, bench, o, code, r);
    } else {
        struct bench_result result;
        char error[200];
        bench->reads = TSC_ONLY;
        bench->n_reads = 1;
        bench->n_fixed = 0;
        bench->verbose_skip = 0;
        bool metrics = o->metrics && select_metrics(env, o, r);
        if (bench_measure(bench, o, code, &result, error, sizeof(error)) != NB_OK) {
            report_error(r, "%s", error);
        } else {
            print_result(r, "RDTSC", &result, 0, o);
            if (metrics) {
                char why[sizeof(env->why) + 32];
                nb_snprintf(why, sizeof(why), "no usable PMU: %s", env->why);
                struct metric_measured m = { .tsc = result.values[0], .tsc_known = true,
                                             .no_normalization = o->no_normalization,
                                             .tsc_hz = env->tsc_hz, .no_pmu_why = why,
                                             .latencies = env->latencies };
                metrics_report(env->plan, &m, r);
                report_latency_source(env, o, r);
            }
        }
    }
    if (o->msr_config_path && r->n_errors == errors_before)
        measure_msr_events(env, bench, o, code, r);
    char smi[160];
    if (counters_smi_warning(bench->smi_repeated, bench->smi_kept, smi, sizeof(smi)))
        report_line(r, "%s", smi);
    if (env->power.smi_count && o->no_mem)
        report_line(r, "smi: not checked with -no_mem (R8..R13 hold the counters: no register is left "
                       "for MSR_SMI_COUNT)");
    if (freq)
        report_frequency(env, r, aperf0, mperf0);
    if (freq && r->n_errors == errors_before)
        report_run_frequencies(env, bench, r);
    bench->freq_check = false;
    freq_pin_restore(&pin, env->p);
    bench->benchmark_started = false;
}

/* "IA32_PERFEVTSEL1 (MSR 0x187) rejected 0x63003C (#GP" for a message. */
static const char *fault_text(const struct counter_env *env, const struct pmu_write_fault *f, char *buf,
                              size_t cap)
{
    char name[40];
    nb_snprintf(buf, cap, "%s (MSR 0x%x) rejected 0x%llX (#GP",
                pmu_msr_name(&env->desc, f->msr, name, sizeof(name)), f->msr,
                (unsigned long long)f->value);
    return buf;
}

/* One line per event whose programming faulted: named by config line, then skipped. */
static void report_skipped(struct counter_env *env, const struct pmu_group *group, const char *file,
                           struct report *r, bool *reported)
{
    const struct pmu_program_result *res = &env->session.last;
    char text[120];
    for (unsigned k = 0; group && k < group->n; k++) {
        const struct pmu_event *ev = &env->events[group->event_index[k]];
        if (!res->skipped[k])
            continue;
        report_line(r, "warning: %s line %u: %s: %s; event skipped)", file, ev->line, ev->name,
                    fault_text(env, &res->skip_fault[k], text, sizeof(text)));
        reported[group->event_index[k]] = true;
    }
}

/* A group that cannot count at all: one error line naming what is lost. */
static void report_group_failed(struct counter_env *env, const struct pmu_group *group, bool fixed,
                                size_t g, size_t n_runs, struct report *r, bool *reported)
{
    char text[120], lost[300];
    size_t len = 0;
    lost[0] = '\0';
    if (fixed)
        len += nb_snprintf(lost + len, sizeof(lost) - len, "the fixed counters");
    for (unsigned k = 0; group && k < group->n && len < sizeof(lost); k++) {
        len += nb_snprintf(lost + len, sizeof(lost) - len, "%s%s", len ? ", " : "",
                           env->events[group->event_index[k]].name);
        reported[group->event_index[k]] = true;
    }
    for (unsigned k = 0; group && k < group->n_topdown && len < sizeof(lost); k++) {
        len += nb_snprintf(lost + len, sizeof(lost) - len, "%s%s", len ? ", " : "",
                           env->events[group->topdown_index[k]].name);
        reported[group->topdown_index[k]] = true;
    }
    report_error(r, "counter group %zu of %zu: %s); %s not measured", g + 1, n_runs,
                 fault_text(env, &env->session.last.group_fault, text, sizeof(text)),
                 len ? lost : "RDTSC");
}

/*
 * AMD: the counter of `group` that counts SMIs received (PMCx02B): the highest
 * one of `gp_mask` the group's events (merge pairs whole) leave free. False,
 * and no SMI counter, when the group uses them all.
 */
static bool amd_smi_counter(const struct counter_env *env, struct pmu_group *group, uint32_t gp_mask)
{
    uint32_t used = 0;
    group->smi = false;
    for (unsigned k = 0; k < group->n; k++)
        used |= (env->events[group->event_index[k]].merge ? 3u : 1u) << group->counter[k];
    uint32_t free = gp_mask & ~used & pmu_low_bits(PMU_MAX_GP);
    if (!free)
        return false;
    group->smi = true;
    group->smi_counter = 31u - (unsigned)__builtin_clz(free);
    return true;
}

static void measure_pmu_events(struct counter_env *env, struct bench_context *bench,
                               const struct bench_options *o, const struct bench_code *code,
                               struct report *r)
{
    struct bench_result result;
    char error[200], text[120];
    const char *file;

    unsigned errors_before = r->n_errors;
    long n_events = load_events(env, o, r, &file);
    if (n_events < 0)
        return;
    /* -metrics: the events the groups need join the benchmark's (not printed as counters). */
    bool metrics = o->metrics && select_metrics(env, o, r);
    long n_printed = n_events;
    if (metrics)
        n_events = (long)metrics_add_events(env->plan, env->events, (size_t)n_events, PMU_MAX_EVENTS,
                                            (const struct pmu_event *const *)env->metric_config_events,
                                            env->metric_config_n,
                                            (const char *const *)env->metric_config_why);
    bool want_fixed = o->fixed_counters || (metrics && env->plan->needs_fixed);
    /* -no_mem: RDTSC, the fixed counters and the events must fit in R8..R13. */
    uint32_t gp_mask = pmu_sched_mask(&env->desc);
    if (o->no_mem) {
        struct counter_read fixed[PMU_MAX_FIXED];
        size_t taken = 1 + (o->fixed_counters ? env->session.ops->fixed_reads(&env->desc, fixed) : 0);
        unsigned room = taken < NOMEM_MAX_READS ? (unsigned)(NOMEM_MAX_READS - taken) : 0;
        gp_mask = pmu_lowest_counters(gp_mask, room);
    }
    size_t n_groups = pmu_schedule(env->events, (size_t)n_events, gp_mask, env->groups);
    /*
     * -no_mem sums each counter's differences in R8..R13; an IA32_PERF_METRICS
     * field is a fraction, not a count, so the top-down events need the
     * memory reads (counter_read.h).
     */
    static bool reported_early[PMU_MAX_EVENTS];
    nb_memset(reported_early, 0, sizeof(reported_early));
    for (size_t g = 0; o->no_mem && g < n_groups; g++) {
        for (unsigned k = 0; k < env->groups[g].n_topdown; k++) {
            const struct pmu_event *ev = &env->events[env->groups[g].topdown_index[k]];
            report_line(r, "warning: %s line %u: %s: top-down events are not measured with -no_mem "
                           "(IA32_PERF_METRICS holds fractions, not counts; event skipped)",
                        file, ev->line, ev->name);
            reported_early[env->groups[g].topdown_index[k]] = true;
        }
        env->groups[g].n_topdown = 0;
    }
    /* With no group, one run still measures RDTSC (and the fixed counters). */
    size_t n_runs = n_groups ? n_groups : 1;

    /* Values per event, in config order; RDTSC and fixed counters from the first measured run. */
    static int64_t event_values[PMU_MAX_EVENTS];
    /* -range bounds per event, in config order. */
    static struct {
        int64_t lo[PMU_MAX_EVENTS], hi[PMU_MAX_EVENTS];
    } event_range;
    static bool measured[PMU_MAX_EVENTS], reported[PMU_MAX_EVENTS];
    nb_memset(measured, 0, sizeof(measured));
    nb_memcpy(reported, reported_early, sizeof(reported));
    struct bench_result first;
    size_t n_lead = 0; /* RDTSC and fixed counters at the start of `first`; 0: none measured */
    struct counter_read reads[NB_MAX_COUNTERS];
    size_t smi_unchecked = 0;
    for (size_t g = 0; g < n_runs; g++) {
        struct pmu_group empty = { 0 };
        struct pmu_group *group = g < n_groups ? &env->groups[g] : env->amd_smi ? &empty : NULL;
        bool fixed = want_fixed && g == 0;
        const struct pmu_program_result *res = &env->session.last;
        if (env->amd_smi && !amd_smi_counter(env, group, gp_mask)) {
            bench->smi_check = false;
            smi_unchecked++;
        }
        if (!program_group(env, group, fixed)) {
            report_group_failed(env, group, fixed, g, n_runs, r, reported);
            continue;
        }
        report_skipped(env, group, file, r, reported);
        if (fixed && res->fixed_failed)
            report_error(r, "fixed counters: %s); fixed counters not measured",
                         fault_text(env, &res->fixed_fault, text, sizeof(text)));
        if (group && res->topdown_failed) {
            for (unsigned k = 0; k < group->n_topdown; k++) {
                const struct pmu_event *ev = &env->events[group->topdown_index[k]];
                report_line(r, "warning: %s line %u: %s: %s; event skipped)", file, ev->line, ev->name,
                            fault_text(env, &res->fixed_fault, text, sizeof(text)));
                reported[group->topdown_index[k]] = true;
            }
        }
        if (env->amd_smi && group->smi) {
            bench->smi_check = !res->smi_failed;
            bench->smi_pmc = true;
            bench->smi_pmc_index = group->smi_counter; /* RDPMC index = counter (APM vol. 2 13.2.2) */
            bench->smi_pmc_width = env->desc.gp_width;
            smi_unchecked += res->smi_failed;
        }
        bench->reads = reads;
        bench->n_reads = pmu_group_reads(&env->session, env->events, group, fixed, reads);
        size_t lead = bench->n_reads; /* RDTSC and the fixed counters */
        for (unsigned k = 0; group && k < group->n; k++)
            lead -= !res->skipped[k];
        if (group && group->n_topdown && !res->topdown_failed) {
            lead--; /* TOPDOWN.SLOTS */
            for (unsigned k = 0; k < group->n_topdown; k++)
                lead -= env->events[group->topdown_index[k]].topdown == TOPDOWN_METRIC;
        }
        bench->n_fixed = lead;
        bench->verbose_skip = n_lead ? lead : 0; /* RDTSC is reported from the first run */
        /* IA32_PERF_METRICS fields read: zero them with FIXED_CTR3 before every m1 (codegen_types.h). */
        bool metric_reads = false;
        for (size_t k = 0; k < bench->n_reads; k++)
            metric_reads |= reads[k].metric != 0;
        bench->topdown_global_ctrl = metric_reads ? res->global_value : 0;
        int st = bench_measure(bench, o, code, &result, error, sizeof(error));
        bench->topdown_global_ctrl = 0;
        if (st != NB_OK) {
            report_error(r, "%s (counter group %zu of %zu)", error, g + 1, n_runs);
            break; /* the same code fails the same way: print what was measured */
        }
        if (n_lead == 0) {
            first = result;
            n_lead = lead;
        }
        unsigned j = (unsigned)lead;
        for (unsigned k = 0; group && k < group->n; k++) {
            if (res->skipped[k])
                continue;
            event_values[group->event_index[k]] = result.values[j];
            event_range.lo[group->event_index[k]] = result.range_lo[j];
            event_range.hi[group->event_index[k]] = result.range_hi[j++];
            measured[group->event_index[k]] = true;
        }
        /* Top-down: TOPDOWN.SLOTS, then the IA32_PERF_METRICS fields (pmu_group_reads). */
        if (group && group->n_topdown && !res->topdown_failed && j < bench->n_reads) {
            unsigned slots = j++;
            for (unsigned k = 0; k < group->n_topdown && j <= bench->n_reads; k++) {
                unsigned e = group->topdown_index[k];
                unsigned at = env->events[e].topdown == TOPDOWN_SLOTS ? slots : j++;
                if (at >= bench->n_reads)
                    break;
                event_values[e] = result.values[at];
                event_range.lo[e] = result.range_lo[at];
                event_range.hi[e] = result.range_hi[at];
                measured[e] = true;
            }
        }
    }
    if (env->amd_smi) {
        /* The MSR pass has no free counter programmed: no SMI read there (AMD has no MSR_SMI_COUNT). */
        bench->smi_pmc = false;
        bench->smi_check = false;
        if (smi_unchecked && !o->no_mem)
            report_line(r, "smi: not detected in %zu of %zu counter group%s (no counter left free "
                           "for PMCx02B)", smi_unchecked, n_runs, n_runs == 1 ? "" : "s");
    }
    /* RDTSC (read 0) is always printed; -remove_empty_events drops other zeros. */
    for (size_t k = 0; k < n_lead; k++) {
        if (k > 0 && ((o->remove_empty_events && first.values[k] == 0) || !o->fixed_counters))
            continue; /* fixed counters read only for -metrics are not printed */
        print_result(r, first.names[k], &first, k, o);
    }
    for (long i = 0; i < n_printed; i++) {
        if (reported[i])
            continue;
        if (!measured[i]) {
            if (r->n_errors != errors_before)
                continue; /* the benchmark's error line says why */
            /* Only a .CTR set outside the counters the scheduler may use can get here. */
            char set[64], left[64];
            pmu_counter_set_format(env->events[i].ctr_mask, set, sizeof(set));
            pmu_counter_set_format(gp_mask, left, sizeof(left));
            report_line(r, "warning: %s: .CTR=%s has none of the counters %s (%s; not measured)",
                        env->events[i].name, set,
                        o->no_mem ? "left with -no_mem" : "usable here (PMC3 stays with TSX, see the pmu: line)",
                        left[0] ? left : "none");
            continue;
        }
        if (o->remove_empty_events && event_values[i] == 0)
            continue;
        print_value(r, env->events[i].name, event_values[i], event_range.lo[i], event_range.hi[i], o);
    }
    if (metrics) {
        int64_t fixed_values[NB_MAX_COUNTERS];
        unsigned n_fixed = 0;
        for (size_t k = 1; k < n_lead && n_fixed < NB_MAX_COUNTERS; k++)
            fixed_values[n_fixed++] = first.values[k];
        struct metric_measured m = { .event_values = event_values, .event_measured = measured,
                                     .fixed_values = fixed_values, .n_fixed = n_fixed,
                                     .tsc = n_lead ? first.values[0] : 0, .tsc_known = n_lead > 0,
                                     .no_normalization = o->no_normalization, .tsc_hz = env->tsc_hz,
                                     .latencies = env->latencies };
        metrics_report(env->plan, &m, r);
        report_latency_source(env, o, r);
    }
}
