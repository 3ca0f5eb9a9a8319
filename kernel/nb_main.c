/*
 * nb_main.c — the image's run: banner, fingerprint, every benchmark of the
 * compiled suite, end banner (see nb_main.h).
 *
 * A benchmark that cannot run (bad option, missing code file, generation
 * failure) gets an `error:` line and the suite goes on; the results files are
 * flushed after every benchmark so nothing measured is lost.
 */
#include "nb_main.h"
#include "cet_guard.h"
#include "core_kind.h"
#include "cpu_topology.h"
#include "numa_srat.h"
#include "bench_calibrate.h"
#include "bench_counters.h"
#include "bench_options.h"
#include "bench_run.h"
#include "cpu_measure.h"
#include "cpu_platform.h"
#include "cpu_session.h"
#include "machine.h"
#include "lfence_serialise.h"
#include "nb_arena.h"
#include "nb_report.h"
#include "nb_resume.h"
#include "nb_selftest.h"
#include "nb_serve.h"
#include "nb_text.h"
#include "nb_version.h"
#include "platform_report.h"
#include "suite.h"
#include "bench_cycles.h"
#include "bench_debug.h"
#include "bench_mica.h"
#include "nmi_watchdog.h"
#include "watchdog.h"
#include "xsave_state.h"

#define TSC_CALIBRATION_MS 50
/*
 * Under a hypervisor (CPUID.1:ECX[31]) the TSC is the hypervisor's and the
 * frequency only scales the watchdog's timeout: 10 ms is plenty, and saves
 * 40 ms of every QEMU round trip.
 */
#define TSC_CALIBRATION_MS_HYPERVISOR 10
#define PATH_MAX_LEN 256

struct run_state {
    const struct nb_platform *p;
    struct report report;
    struct bench_context bench;
    struct counter_env counters;
    struct watchdog watchdog;
    struct nmi_watchdog nmi; /* preferred to `watchdog` where another processor can watch */
    struct xsave_session xsave; /* the boot processor's CR4/XCR0 while the suite runs */
    struct lfence_session lfence; /* the boot processor's DE_CFG[1] (AMD) while the suite runs */
    uint64_t tsc_hz;
    enum nb_finish_action finish;
    /* Machine-reset resume (nb_resume.h). */
    struct resume_state state;
    bool resumable;      /* the state file can be written */
    bool resumed;        /* this boot continues an interrupted run */
    size_t resume_from;  /* suite entry that was running at the reset */
    bool safe;           /* state before every benchmark, results flushed after (nb_resume.h) */
    bool rerun;          /* resumed from a batched state: entry resume_from runs again */
    uint64_t last_commit; /* TSC of the last commit of results and state */
    /* Known-answer checks (nb_selftest.h) and the facts they need. */
    struct nb_selftest selftest;
    bool tsc_invariant;
    bool bench_pmu_usable;   /* the PMU of the processor the benchmark ran on */
    char bench_pmu_why[200];
    char bench_pmu_config[96];
    struct cpu_cache_info caches; /* the cache report's, for -calibrate's footprints */
    struct latency_book latencies; /* -calibrate's, one per core kind calibrated in this boot */
    struct core_kind boot_kind;   /* the boot processor's (pmu/core_kind.h) */
    int64_t announced_cpu;        /* -cpu N whose "processor:" line this benchmark printed, else -1 */
    bool cet;                     /* CR4.CET set by the firmware: no benchmark runs (cet_guard.h) */
    struct topo topo;             /* SMT siblings of every logical processor (cpu_topology.h) */
    struct numa_map numa;         /* the ACPI SRAT (numa_srat.h), when numa_ok */
    bool numa_ok;
    /* The last code file read (load_code): every benchmark's code is a slice of one file. */
    char code_file[PATH_MAX_LEN];
    void *code_data;
    size_t code_size;
    bool code_cached;
    /* Serve mode (nb_serve.h): asked for by -serve; the fingerprint lines a request gets. */
    bool serve;
    char fingerprint[512];
    size_t fingerprint_len;
    struct bench_debug debug; /* -debug's capture (bench_debug.h), allocated at its first use */
};

static void emit_line(void *arg, const char *line)
{
    report_line(arg, "%s", line);
}

/* The proximity domain of firmware processor `cpu` (-1: the boot processor), or -1 when not known. */
static int64_t numa_domain_for(const struct run_state *s, int64_t cpu)
{
    unsigned c = cpu >= 0 ? (unsigned)cpu : s->topo.boot;
    uint32_t d;
    if (!s->numa_ok || c >= s->topo.n || !s->topo.cpu[c].known ||
        !numa_domain_of(&s->numa, s->topo.cpu[c].x2apic_id, &d))
        return -1;
    return d;
}

/*
 * The SRAT's proximity domains, with their processors (firmware numbers, by the
 * x2APIC IDs of cpu_topology.h) and memory; nothing without an SRAT.
 */
static void describe_numa(struct run_state *s)
{
    size_t len = 0;
    char why[80];
    const void *srat = s->p->acpi_table ? s->p->acpi_table(s->p->ctx, "SRAT", &len) : NULL;
    s->numa_ok = srat && numa_parse_srat(srat, len, &s->numa, why, sizeof(why)) && s->numa.n_domains;
    if (!srat)
        return;
    if (!s->numa_ok) {
        report_line(&s->report, "numa: ACPI SRAT not used (%s); memory areas come from anywhere", why);
        return;
    }
    static uint32_t domains[NUMA_MAX_RANGES];
    unsigned n = 0;
    for (unsigned i = 0; i < s->numa.n_cpus + s->numa.n_ranges && n < NUMA_MAX_RANGES; i++) {
        uint32_t d = i < s->numa.n_cpus ? s->numa.cpu[i].domain : s->numa.range[i - s->numa.n_cpus].domain;
        bool seen = false;
        for (unsigned k = 0; k < n && !seen; k++)
            seen = domains[k] == d;
        if (!seen)
            domains[n++] = d;
    }
    char line[480];
    size_t at = nb_snprintf(line, sizeof(line), "numa: %u proximity domain%s (ACPI SRAT):", n, n == 1 ? "" : "s");
    for (unsigned k = 0; k < n && at < sizeof(line); k++) {
        at += nb_snprintf(line + at, sizeof(line) - at, "%s domain %u: processors", k ? ";" : "", domains[k]);
        unsigned listed = 0;
        for (unsigned c = 0; c < s->topo.n && at < sizeof(line); c++) {
            if (numa_domain_for(s, c) == (int64_t)domains[k]) {
                at += nb_snprintf(line + at, sizeof(line) - at, " %u", c);
                listed++;
            }
        }
        if (!listed && at < sizeof(line))
            at += nb_snprintf(line + at, sizeof(line) - at, " none");
        if (at < sizeof(line))
            at += nb_snprintf(line + at, sizeof(line) - at, ", %llu MiB",
                              (unsigned long long)(numa_domain_memory(&s->numa, domains[k]) >> 20));
    }
    report_line(&s->report, "%s", line);
    report_line(&s->report, "numa: memory areas are allocated in the domain of the benchmark's processor "
                            "(the boot processor: domain %lld)", (long long)numa_domain_for(s, -1));
}

/* A fingerprint line: reported, and kept for serve mode's fingerprint request. */
static void fingerprint_line(struct run_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fingerprint_line(struct run_state *s, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    size_t n = nb_vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n >= sizeof(line))
        n = sizeof(line) - 1;
    report_line(&s->report, "%s", line);
    if (s->fingerprint_len + n + 1 < sizeof(s->fingerprint)) {
        nb_memcpy(s->fingerprint + s->fingerprint_len, line, n);
        s->fingerprint_len += n;
        s->fingerprint[s->fingerprint_len++] = '\n';
        s->fingerprint[s->fingerprint_len] = '\0';
    }
}

static void print_fingerprint(struct run_state *s)
{
    struct machine_info m;
    machine_identify(s->p, &m);
    machine_tsc_frequency(s->p, &m, m.hypervisor ? TSC_CALIBRATION_MS_HYPERVISOR : TSC_CALIBRATION_MS);
    char microcode[24] = "unknown";
    if (m.microcode_known)
        nb_snprintf(microcode, sizeof(microcode), "0x%x", m.microcode);
    fingerprint_line(s, "cpu: %s \"%s\" family 0x%x model 0x%x stepping %u microcode %s",
                m.vendor, m.brand[0] ? m.brand : "(no brand string)", m.family, m.model,
                m.stepping, microcode);
    fingerprint_line(s, "tsc: invariant %s, rdtscp %s, %llu.%03llu MHz (%s)",
                m.tsc_invariant ? "yes" : "no", m.rdtscp ? "yes" : "no",
                (unsigned long long)(m.tsc_hz / 1000000u),
                (unsigned long long)(m.tsc_hz / 1000u % 1000u), tsc_freq_source_name(m.tsc_source));
    /* What a hypervisor reports for MSRs and counters is its own, not the silicon's. */
    if (m.hypervisor)
        fingerprint_line(s, "hypervisor: \"%s\" (CPUID.1:ECX[31]); MSR and counter values are "
                                "the hypervisor's (QEMU without KVM: unknown MSRs read 0)",
                    m.hypervisor_id);
    /* The first boot of a run reported the platform already (the rows are in the CSV). */
    if (!s->resumed)
        platform_report(&s->report, s->p, &m);
    char line[300];
    s->cet = cet_enabled(s->p, line, sizeof(line));
    if (s->cet)
        report_line(&s->report, "%s", line);
    xsave_session_begin(&s->xsave, s->p);
    xsave_describe(&s->xsave, s->p->ring0, line, sizeof(line));
    report_line(&s->report, "%s", line);
    lfence_session_begin(&s->lfence, s->p, &m);
    lfence_describe(&s->lfence, line, sizeof(line));
    report_line(&s->report, "%s", line);
    topo_survey(s->p, &s->topo);
    topo_describe(&s->topo, emit_line, &s->report);
    describe_numa(s);
    counters_init(&s->counters, s->p, &m, &s->report);
    core_kind_read(s->p, &s->boot_kind);
    cpu_caches_read(s->p, &m, &s->caches);
    s->tsc_hz = m.tsc_hz;
    s->tsc_invariant = m.tsc_invariant;
    /* The watchdog needs our IDT in the generated code, so ring 0 only. */
    bool timer = s->p->ring0 && m.tsc_hz && watchdog_init(&s->watchdog, s->p);
    if (timer && nmi_watchdog_init(&s->nmi, s->p, s->watchdog.apic_hz, m.tsc_hz))
        report_line(&s->report, "watchdog: NMI from another processor (it sleeps until the deadline on "
                                "its APIC timer, %llu kHz after /128); benchmarks run with interrupts "
                                "disabled and every LVT entry masked, and are stopped after -timeout "
                                "seconds (default %d); under "
                                "QEMU -icount the local APIC timer instead",
                    (unsigned long long)(s->watchdog.apic_hz / 1000u), OPT_TIMEOUT_DEFAULT);
    else if (timer)
        report_line(&s->report, "watchdog: local APIC timer (%llu kHz after /128; the other LVT entries "
                                "masked, task priority 0xE0, spurious vector 0x%x); a benchmark is "
                                "stopped after -timeout seconds (default %d)",
                    (unsigned long long)(s->watchdog.apic_hz / 1000u), s->watchdog.spurious_vector,
                    OPT_TIMEOUT_DEFAULT);
    else
        report_line(&s->report, "watchdog: none (%s); a benchmark that never ends needs a reset",
                    !s->p->ring0 ? "not in ring 0" : !m.tsc_hz ? "unknown TSC frequency"
                                                            : "no usable local APIC timer");
}

/* Parses the options of one entry; on error reports which line caused it. */
static bool parse_entry_options(struct run_state *s, const struct suite_entry *e,
                                struct bench_options *o)
{
    struct option_error err;
    bench_options_init(o);
    int n_defaults = e->argc - e->own_argc;
    if (bench_options_parse(o, n_defaults, e->argv, SCOPE_TARGET, &err) != NB_OK) {
        report_error(&s->report, "suite line %u (defaults): %s", e->defaults_line, err.message);
        return false;
    }
    if (bench_options_parse(o, e->own_argc, e->argv + n_defaults, SCOPE_TARGET, &err) != NB_OK ||
        bench_options_validate(o, &err) != NB_OK) {
        report_error(&s->report, "suite line %u: %s", e->line, err.message);
        return false;
    }
    return true;
}

static void forget_code_file(struct run_state *s)
{
    if (s->code_cached && s->code_data)
        s->p->free_file(s->p->ctx, s->code_data, s->code_size);
    s->code_cached = false;
    s->code_data = NULL;
    s->code_size = 0;
}

/* A decimal number of up to 19 digits from *p on; false when there is none. */
static bool parse_u64(const char **p, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    int digits = 0;
    for (; *q >= '0' && *q <= '9' && digits < 19; q++, digits++)
        v = v * 10u + (uint64_t)(*q - '0');
    if (!digits || (*q >= '0' && *q <= '9'))
        return false;
    *p = q;
    *out = v;
    return true;
}

/*
 * A -code* value: a file, or FILE:OFFSET:LENGTH, a slice of it (what
 * tools/nanobench writes: every benchmark's code in one file; ':' never
 * appears in a FAT file name). The file goes into `file`; a whole file has
 * *length == UINT64_MAX.
 */
static bool split_code_path(const char *value, char *file, size_t cap, uint64_t *offset, uint64_t *length)
{
    const char *colon = value;
    while (*colon && *colon != ':')
        colon++;
    size_t n = (size_t)(colon - value);
    if (n + 1 > cap)
        n = cap - 1;
    nb_memcpy(file, value, n);
    file[n] = '\0';
    *offset = 0;
    *length = UINT64_MAX;
    if (!*colon)
        return true;
    const char *p = colon + 1;
    return parse_u64(&p, offset) && *p++ == ':' && parse_u64(&p, length) && !*p;
}

/* The bytes of `path`, read once and kept while the next benchmarks use the same file. */
static int code_file(struct run_state *s, const char *path)
{
    if (s->code_cached && nb_strcmp(s->code_file, path) == 0)
        return NB_OK;
    forget_code_file(s);
    int st = s->p->read_file(s->p->ctx, path, &s->code_data, &s->code_size);
    if (st != NB_OK) {
        s->code_data = NULL;
        s->code_size = 0;
        return st;
    }
    nb_snprintf(s->code_file, sizeof(s->code_file), "%s", path);
    s->code_cached = true;
    return NB_OK;
}

static bool load_code(struct run_state *s, const struct suite_entry *e,
                      const struct bench_options *o, struct bench_code *code)
{
    nb_memset(code, 0, sizeof(*code));
    for (int part = 0; part < PART_COUNT; part++) {
        if (!o->code_path[part])
            continue;
        const char *option = code_part_code_option((enum code_part)part);
        char file[PATH_MAX_LEN], path[PATH_MAX_LEN];
        uint64_t offset, length;
        if (!split_code_path(o->code_path[part], file, sizeof(file), &offset, &length)) {
            report_error(&s->report, "suite line %u: option %s: %s is neither a file nor FILE:OFFSET:LENGTH",
                         e->line, option, o->code_path[part]);
            return false;
        }
        nb_snprintf(path, sizeof(path), NB_DIR "/%s", file);
        int st = code_file(s, path);
        if (st != NB_OK) {
            report_error(&s->report, "suite line %u: option %s: cannot read %s (%s)", e->line, option, path,
                         st == NB_ENOENT ? "no such file on the image" : "read error");
            return false;
        }
        if (length == UINT64_MAX) {
            offset = 0;
            length = s->code_size;
        }
        if (offset > s->code_size || length > s->code_size - offset) {
            report_error(&s->report, "suite line %u: option %s: %s is past the end of %s (%llu bytes)", e->line,
                         option, o->code_path[part], path, (unsigned long long)s->code_size);
            return false;
        }
        code->part[part] = length ? (const uint8_t *)s->code_data + offset : NULL;
        code->len[part] = (size_t)length;
    }
    return true;
}

/*
 * Processor N's session for -cpu N (cpu_session.h): begun in one call to N
 * at the first benchmark there, kept for the next benchmarks on N; ended
 * in one call when a benchmark names another processor and at the end of
 * the suite.
 */
static struct cpu_session cpu_session;

static void cpu_session_stop(struct run_state *s)
{
    if (!cpu_session.active)
        return;
    /* The watcher may be running there: N must be free for our calls. */
    nmi_watchdog_release(&s->nmi, cpu_session.cpu);
    cpu_session_end(&cpu_session, s->p, &s->report);
}

/* Identifies processor N and sets its state (the lines it prints differ from the boot processor's only). */
static void cpu_session_start(struct run_state *s, unsigned cpu)
{
    cpu_session_stop(s);
    struct cpu_session_boot boot = { s->xsave.xcr0, s->lfence.state, s->counters.ctr_rules_path, s->tsc_hz };
    cpu_session_begin(&cpu_session, s->p, cpu, &boot, &s->report);
}

/*
 * The core kind of processor `cpu` (pmu/core_kind.h): the boot processor's and
 * the -cpu session's are kept; another processor is asked (CPUID on it).
 */
static void kind_of(const struct run_state *s, unsigned cpu, struct core_kind *out)
{
    if (cpu == nb_current_cpu(s->p)) {
        *out = s->boot_kind;
    } else if (cpu_session.active && cpu_session.cpu == cpu) {
        *out = cpu_session.kind;
    } else {
        struct cpu_platform cp;
        cpu_platform_init(&cp, s->p, cpu);
        core_kind_read(&cp.p, out);
    }
}

/* The calibration of processor `cpu`'s core kind, or NULL. */
static const struct machine_latencies *latencies_for(const struct run_state *s, unsigned cpu)
{
    if (!s->latencies.n)
        return NULL;
    struct core_kind kind;
    kind_of(s, cpu, &kind);
    return latency_book_find(&s->latencies, &kind);
}

/* What enter_cpu changed in the bench_context, for leave_cpu to give back. */
struct on_cpu {
    const struct nb_platform *cpu_p; /* processor N's platform */
    struct counter_env *counters;    /* processor N's PMU */
    struct machine_info *m;          /* processor N's CPUID facts, NULL: the boot processor's */
    uint64_t saved_xsave_mask;
    uint32_t saved_xsave_size;
    bool saved_lfence_de_cfg;
    unsigned saved_cpu;
    const struct nb_platform *saved_cpu_p;
};

/*
 * -cpu N: the benchmark runs on processor N, and so does everything that is
 * per processor (CPUID, the PMU's detection, probe and programming). Sets
 * the bench_context up for N; false (after an error line) when N does not
 * exist. The "processor:" lines are printed once per benchmark.
 */
static bool enter_cpu(struct run_state *s, const struct suite_entry *e, const struct bench_options *o,
                      struct on_cpu *c)
{
    unsigned n_cpus = nb_cpu_count(s->p);
    if (o->cpu >= (int64_t)n_cpus) {
        report_error(&s->report, "suite line %u: option -cpu: processor %lld does not exist "
                                 "(this machine has %u enabled processor%s, 0..%u)",
                     e->line, (long long)o->cpu, n_cpus, n_cpus == 1 ? "" : "s", n_cpus - 1);
        return false;
    }
    /* The watcher may be running there: N must be free for our calls. */
    nmi_watchdog_release(&s->nmi, (unsigned)o->cpu);
    bool here = (unsigned)o->cpu == nb_current_cpu(s->p);
    bool announce = s->announced_cpu != o->cpu;
    s->announced_cpu = o->cpu;
    static struct cpu_platform here_cp;
    if (here) {
        cpu_platform_init(&here_cp, s->p, (unsigned)o->cpu);
        uint32_t regs[4];
        s->p->cpuid(s->p->ctx, 1, 0, regs);
        if (announce)
            report_line(&s->report, "processor: %lld (APIC ID %u) of %u", (long long)o->cpu, regs[1] >> 24,
                        n_cpus);
        c->cpu_p = &here_cp.p;
        c->counters = &s->counters;
        c->m = NULL;
    } else {
        if (!cpu_session.active || cpu_session.cpu != (unsigned)o->cpu)
            cpu_session_start(s, (unsigned)o->cpu);
        else if (announce)
            report_line(&s->report, "processor: %lld (APIC ID %u) of %u", (long long)o->cpu,
                        cpu_session.apic_id, n_cpus);
        c->cpu_p = &cpu_session.cp.p;
        c->counters = &cpu_session.env;
        c->m = &cpu_session.m;
    }
    if (announce && topo_boot_sibling(&s->topo, (unsigned)o->cpu))
        report_line(&s->report, "processor: %lld is the boot processor's SMT sibling (core %u.%u): the "
                                "boot processor, waiting for it, shares that core's execution units "
                                "and caches", (long long)o->cpu,
                    s->topo.cpu[o->cpu].package, s->topo.cpu[o->cpu].core);
    c->saved_xsave_mask = s->bench.xsave_mask;
    c->saved_xsave_size = s->bench.xsave_size;
    c->saved_lfence_de_cfg = s->bench.lfence_de_cfg;
    if (!here) {
        s->bench.xsave_mask = cpu_session.xsave.xcr0;
        s->bench.xsave_size = cpu_session.xsave.area_size;
        s->bench.lfence_de_cfg = cpu_session.lfence.state == LFENCE_SET_FOR_SESSION;
    }
    c->saved_cpu = s->bench.cpu;
    c->saved_cpu_p = s->bench.cpu_p;
    s->bench.cpu = (unsigned)o->cpu;
    s->bench.cpu_p = c->cpu_p; /* the watchdog arms processor N's local APIC */
    return true;
}

static void leave_cpu(struct run_state *s, const struct on_cpu *c)
{
    s->bench.cpu = c->saved_cpu;
    s->bench.cpu_p = c->saved_cpu_p;
    s->bench.xsave_mask = c->saved_xsave_mask;
    s->bench.xsave_size = c->saved_xsave_size;
    s->bench.lfence_de_cfg = c->saved_lfence_de_cfg;
}

static void measure_on_cpu(struct run_state *s, const struct suite_entry *e,
                           const struct bench_options *o, const struct bench_code *code)
{
    struct on_cpu c;
    if (!enter_cpu(s, e, o, &c))
        return;
    struct counter_env *counters = c.counters;
    counters->latencies = latencies_for(s, (unsigned)o->cpu);
    if (o->cycle_by_cycle)
        bench_cycles_run(counters, &s->bench, o, code, e->name, &s->report, &cpu_session.measure, s->p);
    else
        cpu_measure_counters(&cpu_session.measure, counters, &s->bench, o, code, &s->report, s->p,
                             (unsigned)o->cpu);
    if (o->mica)
        bench_mica_run(&s->report, &s->bench, o, code, e->name);
    if (o->debug_trace)
        bench_debug_trace_run(&s->report, &s->bench, o, code, e->name);
    s->bench_pmu_usable = counters->usable;
    nb_snprintf(s->bench_pmu_why, sizeof(s->bench_pmu_why), "%s", counters->why);
    nb_snprintf(s->bench_pmu_config, sizeof(s->bench_pmu_config), "%s", counters->default_config);
    leave_cpu(s, &c);
}

/*
 * -calibrate (suite line, defaults or command line), or -metrics groups
 * that read N1..N4 with a PMU to count them: once per core kind and boot
 * (pmu/core_kind.h: one kind unless the part is hybrid), before the first
 * benchmark that needs it (METRICS-FACTS.md 3c), on the processor that
 * benchmark runs on (-cpu N), with that processor's PMU and cache report.
 */
static void calibrate_if_needed(struct run_state *s, const struct suite_entry *e, const struct bench_options *o)
{
    if (!o->calibrate && !o->metrics)
        return;
    if (o->cpu >= (int64_t)nb_cpu_count(s->p))
        return; /* no such processor: the benchmark's error line says so */
    bool pinned = o->cpu >= 0; /* -cpu N: calibrated there */
    struct core_kind kind;
    kind_of(s, pinned ? (unsigned)o->cpu : nb_current_cpu(s->p), &kind);
    if (latency_book_find(&s->latencies, &kind))
        return;
    struct on_cpu c = { .counters = &s->counters };
    if (pinned && !enter_cpu(s, e, o, &c))
        return;
    if (o->calibrate || counters_metrics_need_latencies(c.counters, o, &s->report)) {
        struct machine_latencies *l = latency_book_entry(&s->latencies, &kind);
        static struct cpu_cache_info caches; /* processor N's own: a P-core's caches are not an E-core's */
        const struct cpu_cache_info *ci = &s->caches;
        if (c.m) {
            cpu_caches_read(c.cpu_p, c.m, &caches);
            ci = &caches;
        }
        if (l)
            bench_calibrate(&s->bench, c.counters, ci, CALIBRATE_DRAM_MIN, l, &s->report);
        else
            report_line(&s->report, "warning: calibration: not run: %u core kinds are calibrated already, the most "
                                    "kept", (unsigned)LATENCY_KINDS);
    }
    if (pinned)
        leave_cpu(s, &c);
}

/* -verbose: where the sized memory areas are (physical addresses: the UEFI identity map). */
static void report_areas(struct run_state *s, const struct bench_options *o)
{
    static const char *const regs[AREA_COUNT] = { "R14", "RDI", "RSI", "RBP", "RSP" };
    for (int a = 0; a < AREA_COUNT; a++)
        if (o->area_size[a])
        {
            char node[80] = "";
            if (s->bench.numa && s->bench.area_domain[a] >= 0)
                nb_snprintf(node, sizeof(node), ", proximity domain %lld", (long long)s->bench.area_domain[a]);
            else if (s->bench.numa)
                nb_snprintf(node, sizeof(node), ", NOT in proximity domain %lld (no free block there)",
                            (long long)s->bench.numa_domain);
            report_line(&s->report, "verbose: %s area 0x%llx, %llu bytes (%s at 0x%llx%s)", regs[a],
                    (unsigned long long)(uintptr_t)s->bench.areas[a],
                    (unsigned long long)s->bench.area_size[a], regs[a],
                    (unsigned long long)(uintptr_t)(s->bench.areas[a] + s->bench.area_size[a] / 2), node);
        }
}

static void run_benchmark(struct run_state *s, const struct suite_entry *e)
{
    nb_selftest_begin(&s->selftest);
    s->announced_cpu = -1;
    report_begin(&s->report, e->name);
    struct bench_options o;
    if (e->error) {
        report_error(&s->report, "suite line %u: %s", e->line, e->error);
    } else if (s->cet) {
        report_error(&s->report, "%s", CET_REFUSED);
    } else if (parse_entry_options(s, e, &o)) {
        if (o.lava_results)
            report_lava_begin(&s->report, o.no_normalization ? "" : "/rep");
        /* The boot processor's PMU, unless -cpu ran the benchmark elsewhere. */
        s->bench_pmu_usable = s->counters.usable;
        nb_snprintf(s->bench_pmu_why, sizeof(s->bench_pmu_why), "%s", s->counters.why);
        nb_snprintf(s->bench_pmu_config, sizeof(s->bench_pmu_config), "%s",
                    s->counters.default_config);
        if (o.finish_set)
            s->finish = o.finish;
        s->bench.numa_domain = numa_domain_for(s, o.cpu); /* before -calibrate's areas too */
        if (o.serve)
            s->serve = true;
        struct bench_code code;
        char why[160];
        calibrate_if_needed(s, e, &o);
        if (bench_context_size_areas(&s->bench, o.area_size, why, sizeof(why)) != NB_OK) {
            report_error(&s->report, "suite line %u: %s", e->line, why);
        } else if (load_code(s, e, &o, &code) &&
                   (!o.debug || bench_debug_begin(&s->debug, &s->bench, &o, &s->report, e->line))) {
            unsigned errors_before = s->report.n_errors;
            if (o.verbose)
                report_areas(s, &o);
            s->counters.latencies = latencies_for(s, nb_current_cpu(s->p));
            if (o.cpu >= 0)
                measure_on_cpu(s, e, &o, &code);
            else if (o.cycle_by_cycle)
                bench_cycles_run(&s->counters, &s->bench, &o, &code, e->name, &s->report, NULL, NULL);
            else
                counters_measure(&s->counters, &s->bench, &o, &code, &s->report);
            if (o.debug)
                bench_debug_end(&s->debug, &s->bench, &s->report, e->name, errors_before);
            if (o.mica && o.cpu < 0)
                bench_mica_run(&s->report, &s->bench, &o, &code, e->name);
            if (o.debug_trace && o.cpu < 0)
                bench_debug_trace_run(&s->report, &s->bench, &o, &code, e->name);
        }
        struct nb_selftest_machine m = { s->bench_pmu_usable, s->bench_pmu_why, s->tsc_invariant,
                                         nb_cpu_count(s->p), s->bench_pmu_config };
        nb_selftest_check(&s->selftest, &s->report, e->name, &o, &m);
    }
    report_end(&s->report);
}

/*
 * A defaults line is not run, but its -finish (and its errors) still count.
 * `quiet`: already reported before a machine reset.
 */
static void apply_defaults(struct run_state *s, const struct suite_entry *e, bool quiet)
{
    struct bench_options o;
    struct option_error err;
    bench_options_init(&o);
    if (e->error || bench_options_parse(&o, e->argc, e->argv, SCOPE_TARGET, &err) != NB_OK) {
        if (quiet)
            return;
        report_begin(&s->report, "defaults");
        report_error(&s->report, "suite line %u: %s", e->line, e->error ? e->error : err.message);
        report_end(&s->report);
        return;
    }
    if (o.finish_set)
        s->finish = o.finish;
    if (o.serve)
        s->serve = true;
}

/*
 * Records which entry runs next, so that a reset can be resumed after it,
 * with the sizes of the results that are durable at this point.
 */
static void save_progress(struct run_state *s, size_t next, bool done)
{
    if (!s->resumable)
        return;
    s->state.next = next;
    s->state.n_benchmarks = s->report.n_benchmarks;
    s->state.n_errors = s->report.n_errors;
    s->state.done = done;
    s->state.batched = !s->safe && !done;
    s->state.txt_size = s->report.txt_durable;
    s->state.csv_size = s->report.csv_durable;
    if (resume_write(s->p, &s->state) != NB_OK) {
        report_line(&s->report, "results: cannot write " NB_STATE_PATH
                                "; a machine reset would not be resumed");
        s->resumable = false;
    }
}

/* Parse limit: a suite whose parse needs more than this is reported, not run. */
#define SUITE_ARENA_MAX (256u * 1024u * 1024u)

/*
 * The durability window: results are written and flushed, and the state
 * saved, at most every COMMIT_WINDOW_MS (and once before the first
 * benchmark). On a USB stick a flush and the state file cost milliseconds
 * per benchmark; a reset loses at most this window, which is run again.
 */
#define COMMIT_WINDOW_MS 250u
#define COMMIT_BUFFER_BYTES (256u * 1024u)

static void commit_window(struct run_state *s, size_t next, bool force)
{
    uint64_t now = s->p->read_tsc(s->p->ctx);
    uint64_t window = s->tsc_hz / 1000u * COMMIT_WINDOW_MS;
    if (!force && window && now - s->last_commit < window)
        return;
    report_commit(&s->report);
    save_progress(s, next, false);
    s->last_commit = now;
}

/* Entries before `first` ran before a reset; entry `first - 1`... see nb_resume.h. */
static void run_entries(struct run_state *s, const struct suite *suite)
{
    /* Without a TSC frequency there is no window to measure: every benchmark commits. */
    if (!s->safe && !report_defer(&s->report, COMMIT_BUFFER_BYTES))
        s->safe = true;
    if (!s->safe)
        commit_window(s, s->resume_from, true);
    for (size_t i = 0; i < suite->count; i++) {
        const struct suite_entry *e = &suite->entries[i];
        if (i < s->resume_from) {
            if (e->is_defaults)
                apply_defaults(s, e, true);
            continue;
        }
        if (s->resumed && i == s->resume_from && !s->rerun) {
            /* The entry that was running when the machine reset. */
            if (e->is_defaults) {
                apply_defaults(s, e, true);
            } else {
                report_begin(&s->report, e->name);
                report_error(&s->report, "machine reset while running");
                report_end(&s->report);
            }
            continue;
        }
        if (s->safe)
            save_progress(s, i, false);
        if (e->is_defaults)
            apply_defaults(s, e, false);
        else
            run_benchmark(s, e);
        if (!s->safe)
            commit_window(s, i + 1, false);
    }
    report_commit(&s->report);
    save_progress(s, suite->count, true);
}

/*
 * Parses suite text into an arena from the firmware's data pages, doubling
 * the arena until the suite fits (up to SUITE_ARENA_MAX); returns the arena
 * (free it with free_mem and *arena_size), or NULL when memory ran out.
 */
static void *parse_suite_text(struct run_state *s, const char *text, size_t len, struct suite *suite,
                              size_t *arena_size)
{
    struct nb_arena arena;
    for (*arena_size = suite_arena_estimate(text, len); *arena_size <= SUITE_ARENA_MAX; *arena_size *= 2) {
        void *memory = s->p->alloc_data(s->p->ctx, *arena_size);
        if (!memory)
            return NULL;
        nb_arena_init(&arena, memory, *arena_size);
        if (suite_parse(text, len, &arena, suite) == NB_OK)
            return memory;
        s->p->free_mem(s->p->ctx, memory, *arena_size);
    }
    return NULL;
}

/* Serve mode: the benchmarks of one request, run as suite entries (nb_serve.h). */
static void serve_run_text(void *arg, const char *text, size_t len)
{
    struct run_state *s = arg;
    /* A request's files may replace earlier ones of the same name: read them again. */
    forget_code_file(s);
    struct suite suite;
    size_t arena_size;
    void *memory = parse_suite_text(s, text, len, &suite, &arena_size);
    int st = memory ? NB_OK : NB_ENOMEM;
    if (st != NB_OK) {
        report_begin(&s->report, "request");
        report_error(&s->report, "out of memory parsing the request (%llu bytes)", (unsigned long long)len);
        report_end(&s->report);
        return;
    }
    for (size_t i = 0; i < suite.count; i++) {
        if (suite.entries[i].is_defaults)
            apply_defaults(s, &suite.entries[i], false);
        else
            run_benchmark(s, &suite.entries[i]);
    }
    forget_code_file(s);
    s->p->free_mem(s->p->ctx, memory, arena_size);
    /* The results files record served benchmarks too, committed at most every window. */
    uint64_t now = s->p->read_tsc(s->p->ctx);
    uint64_t window = s->tsc_hz / 1000u * COMMIT_WINDOW_MS;
    if (!window || now - s->last_commit >= window) {
        report_commit(&s->report);
        s->last_commit = now;
    }
}

/*
 * The fingerprint lines, then where the memory areas are now and their
 * sizes ("area: R14 0x... 1048576": the address the register holds, its
 * middle), for kernelNanoBench's getAddress and getR14Size.
 */
static size_t serve_fingerprint(void *arg, char *out, size_t cap)
{
    struct run_state *s = arg;
    static const char *const regs[AREA_COUNT] = { "R14", "RDI", "RSI", "RBP", "RSP" };
    size_t n = nb_snprintf(out, cap, "%s", s->fingerprint);
    for (int a = 0; a < AREA_COUNT && n < cap; a++)
        n += nb_snprintf(out + n, cap - n, "area: %s 0x%llx %llu\n", regs[a],
                         (unsigned long long)(uintptr_t)(s->bench.areas[a] + s->bench.area_size[a] / 2),
                         (unsigned long long)s->bench.area_size[a]);
    return n < cap ? n : cap - 1;
}

/* -serve: answer requests until one says to end (its finish action wins). */
static void serve(struct run_state *s)
{
    const struct nb_serve_ops ops = { s, serve_run_text, serve_fingerprint };
    enum nb_finish_action finish = s->finish;
    bool finish_set = false;
    nb_serve(s->p, &s->report, &ops, &finish, &finish_set);
    if (finish_set)
        s->finish = finish;
    report_commit(&s->report);
}

static void run_suite(struct run_state *s, const char *text, size_t len)
{
    struct suite suite;
    size_t arena_size;
    void *memory = parse_suite_text(s, text, len, &suite, &arena_size);
    int st = memory ? NB_OK : NB_ENOMEM;
    if (st != NB_OK) {
        report_line(&s->report, "error: out of memory parsing " NB_SUITE_PATH " (%llu bytes)",
                    (unsigned long long)len);
        s->report.n_errors++;
    } else {
        run_entries(s, &suite);
        forget_code_file(s);
    }
    if (memory)
        s->p->free_mem(s->p->ctx, memory, arena_size);
}

/*
 * Opens the results files: those of an interrupted run of the same suite
 * (after a machine reset), or new ones.
 */
static void open_results(struct run_state *s, const void *suite_text, size_t len)
{
    struct resume_state old;
    uint64_t hash = resume_hash(suite_text, len);
    if (suite_text && resume_read(s->p, &old) && !old.done && old.suite_hash == hash) {
        /* Batched: what was written after the last commit runs again, so it goes. */
        if (old.batched)
            report_reopen_files_at(&s->report, old.run, old.txt_size, old.csv_size);
        else
            report_reopen_files(&s->report, old.run);
        if (s->report.files_ok) {
            s->resumed = true;
            s->safe = true; /* until the run ends: the reset may come again, and must be pinned down */
            s->rerun = old.batched;
            s->resume_from = old.next;
            s->report.n_benchmarks = old.n_benchmarks;
            s->report.n_errors = old.n_errors;
            s->state = old;
            s->resumable = true;
            return;
        }
        report_close(&s->report);
        report_init(&s->report, s->p);
    }
    report_open_files(&s->report);
    if (s->report.files_ok && suite_text) {
        s->state = (struct resume_state){ .run = s->report.run_number, .suite_hash = hash };
        s->resumable = true;
    }
}

enum nb_finish_action nb_run_image(const struct nb_platform *p)
{
    static struct run_state s;
    /* Every file read also sees the files serve-mode requests carry (nb_serve.h). */
    static struct nb_platform served;
    nb_serve_platform(&served, p);
    p = &served;
    nb_memset(&s, 0, sizeof(s));
    s.p = p;
    s.finish = NB_FINISH_SHUTDOWN;
    report_init(&s.report, p);
    nb_selftest_init(&s.selftest, &s.report);

    void *text = NULL;
    size_t len = 0;
    int suite_status = p->read_file(p->ctx, NB_SUITE_PATH, &text, &len);
    open_results(&s, suite_status == NB_OK ? text : NULL, len);

    report_line(&s.report, "nanoBench-EFI %s", NB_VERSION);
    if (s.resumed)
        report_line(&s.report, "resumed: run %04u continues after a machine reset%s", s.state.run,
                    s.rerun ? "; benchmarks whose results were not saved yet run again" : "");
    print_fingerprint(&s);
    if (s.report.files_ok)
        report_line(&s.report, "results: %s, %s", s.report.txt_path, s.report.csv_path);

    if (suite_status != NB_OK) {
        report_line(&s.report, "error: cannot read %s (%s)", NB_SUITE_PATH,
                    suite_status == NB_ENOENT ? "no such file" : "read error");
        s.report.n_errors++;
    } else if (bench_context_init(&s.bench, p) != NB_OK) {
        report_line(&s.report, "error: cannot allocate the benchmark memory areas");
        s.report.n_errors++;
    } else {
        s.bench.report = &s.report;
        s.bench.mask_interrupts = true;
        s.bench.catch_faults = p->ring0;
        s.bench.cpu_p = p;
        s.bench.tsc_hz = s.tsc_hz;
        s.bench.numa = s.numa_ok ? &s.numa : NULL; /* areas in the benchmark processor's domain */
        s.bench.xsave_mask = s.xsave.xcr0;
        s.bench.xsave_size = s.xsave.area_size;
        s.bench.lfence_de_cfg = s.lfence.state == LFENCE_SET_FOR_SESSION;
        s.bench.watchdog = s.watchdog.available ? &s.watchdog : NULL;
        s.bench.nmi = s.nmi.available ? &s.nmi : NULL;
        run_suite(&s, text, len);
        if (s.serve)
            serve(&s);
        cpu_session_stop(&s);
        nmi_watchdog_stop(&s.nmi);
        bench_context_free(&s.bench);
    }
    if (text)
        p->free_file(p->ctx, text, len);
    /* counters_finish restores the saved MSRs and forgets the list: keep a copy to read back. */
    static struct pmu_session saved;
    bool pmu = s.counters.usable;
    if (pmu)
        saved = s.counters.session;
    counters_finish(&s.counters);
    nb_selftest_finish(&s.selftest, &s.report, pmu ? &saved : NULL, s.counters.why);
    /* Every finish action (shutdown, reboot, exit to the firmware) leaves from here. */
    lfence_session_end(&s.lfence, p);
    xsave_session_end(&s.xsave, p);

    report_line(&s.report, "nanoBench-EFI done: %u benchmark%s, %u error%s, finish: %s",
                s.report.n_benchmarks, s.report.n_benchmarks == 1 ? "" : "s", s.report.n_errors,
                s.report.n_errors == 1 ? "" : "s", finish_action_name(s.finish));
    report_close(&s.report);
    return s.finish;
}
