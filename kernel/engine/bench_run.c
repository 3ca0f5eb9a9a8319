/*
 * bench_run.c — one benchmark from code bytes to results (see bench_run.h).
 */
#include "bench_run.h"
#include "power.h"
#include "bench_batch.h"
#include "bench_codegen.h"
#include "bench_cpu_state.h"
#include "bench_fault.h"
#include "bench_stats.h"
#include "cpu_platform.h"
#include "lapic_quiet.h"
#include "msr_names.h"
#include "pmu_msrs.h"
#include "nb_text.h"
#include "nb_report.h"

int bench_context_init(struct bench_context *c, const struct nb_platform *p)
{
    /* Every switch starts off (no interrupt masking, no IDT, no XSAVE...): callers set what they use. */
    nb_memset(c, 0, sizeof(*c));
    c->p = p; /* first: bench_context_free needs it when an allocation fails */
    c->cpu = nb_current_cpu(p);
    c->numa_domain = -1;
    for (int a = 0; a < AREA_COUNT; a++) {
        c->areas[a] = NULL;
        c->area_domain[a] = c->area_asked[a] = -1;
    }
    for (int a = 0; a < AREA_COUNT; a++) {
        c->areas[a] = p->alloc_data(p->ctx, BENCH_AREA_SIZE);
        if (!c->areas[a]) {
            bench_context_free(c);
            return NB_ENOMEM;
        }
        c->area_size[a] = BENCH_AREA_SIZE;
    }
    return NB_OK;
}

/* Frees the buffers bench_measure keeps between measurements. */
static void release_buffers(struct bench_context *c)
{
    if (c->exec)
        c->p->free_mem(c->p->ctx, c->exec, c->exec_size);
    for (int r = 0; r < 2; r++) {
        if (c->stage[r])
            c->p->free_mem(c->p->ctx, c->stage[r], c->stage_size[r]);
        c->stage[r] = NULL;
        c->stage_size[r] = 0;
        c->emitted[r].valid = false;
    }
    if (c->store)
        c->p->free_mem(c->p->ctx, c->store, c->store_size);
    c->exec = NULL;
    c->store = NULL;
    c->exec_size = c->store_size = 0;
}

void bench_context_free(struct bench_context *c)
{
    release_buffers(c);
    for (int a = 0; a < AREA_COUNT; a++) {
        if (c->areas[a])
            c->p->free_mem(c->p->ctx, c->areas[a], c->area_size[a]);
        c->areas[a] = NULL;
        c->area_size[a] = 0;
    }
}

/* The TSC of the processor the benchmark runs on. */
static uint64_t bench_tsc(const struct bench_context *c)
{
    const struct nb_platform *p = c->cpu_p ? c->cpu_p : c->p;
    return p->read_tsc(p->ctx);
}

void bench_benchmark_begin(struct bench_context *c)
{
    c->benchmark_used = 0;
    c->benchmark_started = true;
}

const char *bench_area_option(enum bench_area a)
{
    static const char *const names[AREA_COUNT] = { "-r14_size", "-rdi_size", "-rsi_size", "-rbp_size",
                                                   "-rsp_size" };
    return (unsigned)a < AREA_COUNT ? names[a] : "?";
}

/*
 * `size` bytes in the memory of c->numa_domain when the SRAT gives its ranges
 * and the platform can place pages there; otherwise wherever the firmware
 * allocates. *domain gets where they are (-1: not known).
 */
static void *alloc_area(struct bench_context *c, uint64_t size, int64_t *domain)
{
    const struct nb_platform *p = c->p;
    *domain = -1;
    /* The SRAT's last ranges first: the first ones of a domain are often the legacy low memory. */
    for (unsigned i = c->numa ? c->numa->n_ranges : 0; c->numa_domain >= 0 && p->alloc_data_range && i-- > 0;) {
        if ((int64_t)c->numa->range[i].domain != c->numa_domain || c->numa->range[i].hotplug ||
            c->numa->range[i].nonvolatile)
            continue;
        uint64_t base = c->numa->range[i].base;
        void *m = p->alloc_data_range(p->ctx, (size_t)size, base, base + c->numa->range[i].length);
        if (m) {
            *domain = c->numa_domain;
            return m;
        }
    }
    return p->alloc_data(p->ctx, (size_t)size);
}

/* Replaces area `a` by one of `size` bytes; false (and no area) when the firmware has none. */
static bool resize_area(struct bench_context *c, int a, uint64_t size)
{
    if (c->areas[a])
        c->p->free_mem(c->p->ctx, c->areas[a], c->area_size[a]);
    c->areas[a] = alloc_area(c, size, &c->area_domain[a]);
    c->area_asked[a] = c->numa_domain;
    c->area_size[a] = c->areas[a] ? size : 0;
    return c->areas[a] != NULL;
}

int bench_context_size_areas(struct bench_context *c, const int64_t sizes[AREA_COUNT], char *why,
                             size_t why_cap)
{
    for (int a = 0; a < AREA_COUNT; a++) {
        uint64_t want = sizes[a] > 0 ? (uint64_t)sizes[a] : BENCH_AREA_SIZE;
        want = (want + BENCH_PAGE_SIZE - 1) / BENCH_PAGE_SIZE * BENCH_PAGE_SIZE;
        if (want == c->area_size[a] && c->areas[a] && c->area_asked[a] == c->numa_domain)
            continue;
        if (resize_area(c, a, want))
            continue;
        nb_snprintf(why, why_cap, "option %s: the firmware has no free block of %llu contiguous bytes",
                    bench_area_option((enum bench_area)a), (unsigned long long)want);
        /* Back to the defaults, so the next benchmarks still run. */
        for (int b = 0; b < AREA_COUNT; b++)
            if ((c->area_size[b] != BENCH_AREA_SIZE || !c->areas[b]) && !resize_area(c, b, BENCH_AREA_SIZE))
                break;
        return NB_ENOMEM;
    }
    return NB_OK;
}

static uint64_t middle(const struct bench_context *c, enum bench_area a)
{
    return (uint64_t)(uintptr_t)(c->areas[a] + c->area_size[a] / 2);
}

static void init_params(struct bench_context *c, const struct bench_options *o,
                        const struct bench_code *code, struct codegen_params *params)
{
    nb_memset(params, 0, sizeof(*params));
    for (int part = 0; part < PART_COUNT; part++) {
        params->part[part] = code->part[part];
        params->part_len[part] = code->len[part];
    }
    params->loop_count = o->loop_count;
    params->alignment_offset = o->alignment_offset;
    params->drain_frontend = o->drain_frontend;
    params->no_mem = o->no_mem;
    params->mask_interrupts = c->mask_interrupts;
    params->catch_faults = c->catch_faults;
    params->xsave_mask = c->xsave_mask;
    params->xsave_size = c->xsave_size;
    params->reads = c->reads;
    params->n_reads = c->n_reads;
    params->topdown_global_ctrl = o->no_mem ? 0 : c->topdown_global_ctrl;
    params->areas.r14 = middle(c, AREA_R14);
    params->areas.rdi = middle(c, AREA_RDI);
    params->areas.rsi = middle(c, AREA_RSI);
    params->areas.rbp = middle(c, AREA_RBP);
    params->areas.rsp = middle(c, AREA_RSP);
}

/*
 * -verbose, in the layout of nanoBench's kernel module and user tool (its
 * README: "Outputs the results of all performance counter readings"): per
 * block of counters, a header naming the run's unroll_count and loop_count,
 * then a table with one column per counter ("Ctr0", "Ctr1"... in the order
 * read) and one row per measurement ("run 3:"), each value m2 - m1 of that
 * measurement; the base run, then the main run. Blocks: RDTSC and the fixed
 * counters, the programmable counters, the MSRs. A line "verbose: CtrN =
 * NAME" before a block names its columns, unless RDTSC is all it holds.
 */
enum verbose_block { BLOCK_FIXED, BLOCK_PROGRAMMABLE, BLOCK_MSR, BLOCK_COUNT };

static enum verbose_block block_of(const struct bench_context *c, size_t k)
{
    const struct counter_read *r = &c->reads[k];
    if (k < c->n_fixed || r->kind == READ_TSC || (r->kind == READ_PMC && (r->ecx & RDPMC_FIXED)))
        return BLOCK_FIXED;
    return r->kind == READ_PMC ? BLOCK_PROGRAMMABLE : BLOCK_MSR;
}

/* nanoBench's names for the blocks. */
static const char *block_title(const struct bench_context *c, enum verbose_block b)
{
    if (b == BLOCK_PROGRAMMABLE)
        return "Programmable counter results";
    if (b == BLOCK_MSR)
        return "MSR results";
    bool msr = false, pmc = false;
    for (size_t k = c->verbose_skip; k < c->n_reads; k++) {
        if (block_of(c, k) == BLOCK_FIXED) {
            msr |= c->reads[k].kind == READ_MSR;
            pmc |= c->reads[k].kind == READ_PMC;
        }
    }
    return msr ? "RDTSC, MPERF, and APERF results" : pmc ? "RDTSC and fixed-function counter results"
                                                         : "RDTSC results";
}

/* One run's table of block `b`: a header line, then a row per measurement. */
static void dump_table(struct bench_context *c, enum verbose_block b, int64_t *const *values, int64_t n)
{
    int pad = 1; /* digits of the highest measurement number */
    for (int64_t i = n - 1; i >= 10; i /= 10)
        pad++;
    char line[512], name[16];
    size_t len = nb_snprintf(line, sizeof(line), "\t%*s      ", pad, "");
    for (size_t k = c->verbose_skip, col = 0; k < c->n_reads; k++) {
        if (block_of(c, k) != b)
            continue;
        nb_snprintf(name, sizeof(name), "Ctr%zu", col++);
        if (len < sizeof(line))
            len += nb_snprintf(line + len, sizeof(line) - len, "%12s", name);
    }
    report_line(c->report, "%s", line);
    for (int64_t i = 0; i < n; i++) {
        len = nb_snprintf(line, sizeof(line), "\trun %*lld: ", pad, (long long)i);
        for (size_t k = c->verbose_skip; k < c->n_reads; k++) {
            if (block_of(c, k) == b && len < sizeof(line))
                len += nb_snprintf(line + len, sizeof(line) - len, "%12lld", (long long)values[k][i]);
        }
        report_line(c->report, "%s", line);
    }
    report_line(c->report, "%s", "");
}

static void dump_measurements(struct bench_context *c, const int64_t copies[2], const int64_t loops[2],
                              int64_t *const *const values[2], int64_t n)
{
    if (!c->report)
        return;
    for (int b = 0; b < BLOCK_COUNT; b++) {
        size_t cols = 0;
        bool tsc_only = true;
        for (size_t k = c->verbose_skip; k < c->n_reads; k++) {
            if (block_of(c, k) == (enum verbose_block)b) {
                cols++;
                tsc_only &= c->reads[k].kind == READ_TSC;
            }
        }
        if (!cols)
            continue;
        for (size_t k = c->verbose_skip, col = 0; !tsc_only && k < c->n_reads; k++) {
            if (block_of(c, k) == (enum verbose_block)b)
                report_line(c->report, "verbose: Ctr%zu = %s", col++, c->reads[k].name);
        }
        for (int run = 0; run < 2; run++) {
            if (run == 0)
                report_line(c->report, "%s", "");
            report_line(c->report, "%s (unroll_count=%lld, loop_count=%lld):",
                        block_title(c, (enum verbose_block)b), (long long)copies[run], (long long)loops[run]);
            report_line(c->report, "%s", "");
            dump_table(c, (enum verbose_block)b, values[run], n);
        }
    }
}

/*
 * One procedure on the benchmark's processor: XSAVE state and DE_CFG checked
 * (bench_cpu_state.h), the local APIC quietened (lapic_quiet.h) and, with
 * the timer scheme, the watchdog armed; then fn (a measurement's stages, or
 * a -mica trace run); then everything restored. All in the same call,
 * because a firmware may reset that processor between two calls (EDK II
 * wakes an AP from HLT with INIT-SIPI-SIPI, SDM vol. 3A 11.4.7.3).
 */
struct bench_cpu_call {
    struct bench_context *c;
    const struct codegen_params *params;
    void (*fn)(const struct nb_platform *local, void *arg);
    void *arg;
    const struct codegen_data *data; /* the code's data page, as fn last ran it (fn updates it) */
};

static void bench_cpu_procedure(const struct nb_platform *local, void *arg)
{
    struct bench_cpu_call *call = arg;
    struct bench_context *c = call->c;
    struct bench_cpu_state state;
    bench_cpu_state_enter(&state, local, c->xsave_mask, c->lfence_de_cfg);
    if (call->params->watchdog) {
        watchdog_arm(c->watchdog, local);
        call->fn(local, call->arg);
        watchdog_disarm(c->watchdog, local,
                        call->data->fault_happened && call->data->fault_vector == WATCHDOG_VECTOR);
    } else {
        /* The NMI watchdog or none: every entry masked, the firmware's task priority kept. */
        struct lapic_quiet q = { 0 };
        if (c->mask_interrupts && local->lapic_read)
            lapic_quiet_enter(&q, local, LAPIC_QUIET_KEEP_TPR);
        call->fn(local, call->arg);
        lapic_quiet_leave(&q, local);
    }
    bench_cpu_state_leave(&state, local);
}

/* Without a processor platform: c->p's calls act on whichever processor runs them. */
static void bench_cpu_entry(void *arg)
{
    struct bench_cpu_call *call = arg;
    bench_cpu_procedure(call->c->p, call);
}

/* Runs fn(local, arg) in the procedure on the benchmark's processor (call: c, params, fn, arg, data). */
static int run_on_bench_cpu(struct bench_cpu_call *call)
{
    struct bench_context *c = call->c;
    return c->cpu_p ? nb_run_locally(c->cpu_p, bench_cpu_procedure, call)
                    : nb_run_on_cpu(c->p, c->cpu, bench_cpu_entry, call);
}

/* The benchmark's time budget, in TSC ticks, and what its code has used of it. */
struct budget {
    bool on;
    uint64_t ticks;
    uint64_t *used; /* c->benchmark_used, or `own` for a measurement outside a benchmark */
    uint64_t own;
    int64_t seconds;
};

static void *emit(struct bench_context *c, int r, uint8_t *buf, size_t cap, struct codegen_params *params,
                  struct codegen_layout *layout, bool once);

/* One stage of a measurement: the one-time init, the initial warm-up, the base or the main run. */
struct stage {
    const char *run;
    uint8_t *buf;
    size_t cap;
    int region;
    bool once;
    int64_t copies, loop_count, warm_up, n;
    int64_t *const *values; /* NULL: runs whose readings are not kept */
    int freq_slot; /* the base (0) or main (1) run's APERF/MPERF sums (bench_run.h freq_check); -1: none */
    bool debug_stop; /* -debug: this is the chosen run, its chosen execution stops at the breakpoint */
};

/* Every stage of a measurement, generated and run in one procedure on the benchmark's processor. */
struct measure_call {
    struct bench_context *c;
    struct codegen_params *params;
    struct budget *budget;
    struct stage stages[4];
    int n_stages;
    struct bench_cpu_call *cpu_call;
    /* Out: how it ended, in which stage, with that stage's data page and code layout. */
    enum { STAGES_DONE, STAGES_NO_FIT, STAGES_OUT_OF_TIME, STAGES_FAULT } end;
    int stage;
    struct codegen_data *data;
    struct codegen_layout layout;
    unsigned smi_repeated, smi_kept;
};

/*
 * -debug (bench_debug.h): every batch reports its stops to the debug session
 * (a debugger's breakpoints may be anywhere); the chosen run's batch arms the
 * breakpoint slot, and says where the code is for a debugger's symbols
 * (tools/nanobench -debug_gdb writes them).
 */
static void debug_batch_begin(struct bench_context *c, const struct codegen_params *params,
                              const struct codegen_layout *layout, struct codegen_data *data,
                              struct run_batch *b, bool stop_here)
{
    data->debug_paused = 0;
    struct bench_debug *d = c->debug;
    if (d && d->on && params->debug) {
        b->debug_stops = &d->session.stops;
        d->session.nmi_deadline = params->nmi_state && c->nmi ? &c->nmi->shared.deadline : NULL;
        d->session.read_tsc = c->p->read_tsc;
        d->session.tsc_ctx = c->p->ctx;
        debug_current = &d->session;
        debug_save_live = d->save;
    }
    if (!stop_here || !d || !layout->debug_slot)
        return;
    b->debug_slot = (volatile uint8_t *)layout->debug_slot;
    b->debug_index = d->index;
    d->session.armed = true;
    d->session.slot = layout->debug_slot;
    d->code_start = layout->code_start;
    d->code_end = layout->code_end;
    d->slot = layout->debug_slot;
    d->n_reads = params->n_reads <= NB_MAX_COUNTERS ? params->n_reads : NB_MAX_COUNTERS;
    nb_memcpy(d->reads, params->reads, d->n_reads * sizeof(*d->reads));
    d->no_mem = params->no_mem;
    d->cpu = c->cpu;
    d->layout = *layout;
    d->exec_start = (uint64_t)(uintptr_t)c->exec;
    d->exec_end = (uint64_t)(uintptr_t)c->exec + c->exec_size;
    if (c->report) {
        uint64_t cs = layout->code_start;
        report_serial_line(c->report,
                           "debug: layout code_start=0x%llx code_end=0x%llx init=0x%llx late_init=0x%llx "
                           "copy_1=0x%llx copy_len=0x%llx copies=%lld slot=0x%llx",
                           (unsigned long long)cs, (unsigned long long)(layout->code_end - cs),
                           (unsigned long long)(layout->start[PART_INIT] - cs),
                           (unsigned long long)(layout->start[PART_LATE_INIT] - cs),
                           (unsigned long long)(layout->start[PART_MAIN] - cs),
                           (unsigned long long)layout->len[PART_MAIN], (long long)layout->copies,
                           (unsigned long long)(layout->debug_slot - cs));
    }
}

/* After the batch: disarms the session; returns the TSC ticks spent stopped at the breakpoint. */
static uint64_t debug_batch_end(struct bench_context *c, const struct codegen_params *params,
                                struct codegen_data *data)
{
    struct bench_debug *d = c->debug;
    if (d && d->on && params->debug) {
        d->session.armed = false;
        debug_current = NULL;
    }
    uint64_t paused = data->debug_paused;
    if (d)
        d->paused += paused;
    data->debug_paused = 0;
    return paused;
}

static void run_stages(const struct nb_platform *local, void *arg)
{
    struct measure_call *mc = arg;
    struct bench_context *c = mc->c;
    struct codegen_params *params = mc->params;
    struct budget *budget = mc->budget;
    mc->end = STAGES_DONE;
    for (mc->stage = 0; mc->stage < mc->n_stages; mc->stage++) {
        const struct stage *st = &mc->stages[mc->stage];
        params->copies = st->copies;
        params->loop_count = st->loop_count;
        mc->data = (struct codegen_data *)st->buf;
        mc->cpu_call->data = mc->data;
        generated_fn fn = (generated_fn)emit(c, st->region, st->buf, st->cap, params, &mc->layout, st->once);
        if (!fn) {
            mc->end = STAGES_NO_FIT;
            return;
        }
        if (budget->on) {
            if (*budget->used >= budget->ticks) {
                mc->end = STAGES_OUT_OF_TIME;
                return;
            }
            if (c->watchdog)
                mc->data->watchdog_count =
                    watchdog_ticks(c->watchdog, budget->ticks - *budget->used, c->tsc_hz);
        }
        struct run_batch b = { fn, mc->data, c->n_reads, c->smi_check ? 1 : 0, st->warm_up, st->n,
                               st->values, c->smi_check, 0, 0, params->reads, params->copies,
                               c->fake_run, c->fake_run_arg, NULL, 0, NULL };
        mc->data->fault_happened = 0;
        debug_batch_begin(c, params, &mc->layout, mc->data, &b, st->debug_stop);
        /* The run's effective frequency, read on this processor around its batch (power.h). */
        uint64_t a0 = 0, m0 = 0, a1, m1;
        bool freq = st->freq_slot >= 0 && c->freq_check && power_read_aperf_mperf(local, &a0, &m0);
        uint64_t start = local->read_tsc(local->ctx);
        run_batch_execute(&b);
        /* Time stopped at -debug's breakpoint is not the benchmark's: -timeout does not count it. */
        *budget->used += local->read_tsc(local->ctx) - start - debug_batch_end(c, params, mc->data);
        if (freq && power_read_aperf_mperf(local, &a1, &m1)) {
            c->freq_aperf[st->freq_slot] += a1 - a0;
            c->freq_mperf[st->freq_slot] += m1 - m0;
        }
        mc->smi_repeated += b.smi_repeated;
        mc->smi_kept += b.smi_kept;
        if (run_batch_faulted(mc->data)) {
            mc->end = STAGES_FAULT;
            return;
        }
    }
}

/* Runs every stage on the benchmark's processor; NB_OK, or the error of the stage that failed. */
static int measure_stages(struct measure_call *mc, char *error, size_t error_cap)
{
    struct bench_context *c = mc->c;
    struct bench_cpu_call call = { c, mc->params, run_stages, mc, NULL };
    mc->cpu_call = &call;
    mc->data = (struct codegen_data *)mc->stages[0].buf;
    call.data = mc->data;
    int st = run_on_bench_cpu(&call);
    c->smi_repeated += mc->smi_repeated;
    c->smi_kept += mc->smi_kept;
    if (st != NB_OK) {
        nb_snprintf(error, error_cap, "processor %u cannot run the code", c->cpu);
        return NB_EINVAL;
    }
    const struct stage *stage = &mc->stages[mc->stage < mc->n_stages ? mc->stage : mc->n_stages - 1];
    switch (mc->end) {
    case STAGES_DONE:
        return NB_OK;
    case STAGES_NO_FIT:
        nb_snprintf(error, error_cap, stage->once ? "one-time init code does not fit (%llu)"
                                                  : "generated code does not fit (%llu)",
                    (unsigned long long)stage->cap);
        return NB_ENOMEM;
    case STAGES_OUT_OF_TIME:
        nb_snprintf(error, error_cap, "timeout after %lld s (before the %s)", (long long)mc->budget->seconds,
                    stage->run);
        return NB_EFAULT;
    case STAGES_FAULT:
        if (mc->budget->on && mc->data->fault_vector == WATCHDOG_VECTOR)
            nb_snprintf(error, error_cap, "timeout after %lld s (in the %s)", (long long)mc->budget->seconds,
                        stage->run);
        else
            fault_describe(error, error_cap, mc->data, &mc->layout, stage->run);
        return NB_EFAULT;
    }
    return NB_EFAULT;
}

/* Which watchdog stops this benchmark's code if it never ends (watchdog.h, nmi_watchdog.h). */
struct watch {
    bool timer;
    bool nmi;
};

static void watch_begin(struct bench_context *c, const struct bench_options *o, const struct budget *budget,
                        struct codegen_params *params, struct watch *w)
{
    w->timer = c->watchdog && c->watchdog->available && c->catch_faults && c->tsc_hz;
    w->nmi = false;
    /*
     * Another processor watching: the code runs with interrupts disabled, as
     * nanoBench's. Not under QEMU -icount: its round-robin scheduler (7.2)
     * gives a processor time only up to the next timer deadline and then
     * starts again with the first one, so a benchmark that spins on the boot
     * processor never lets the watcher run; the timer scheme stops it there.
     */
    volatile uint32_t *nmi_state = NULL;
    if (c->nmi && c->catch_faults && budget->on && c->cpu_p->apic_id && o->qemu_icount < 0)
        nmi_state = nmi_watchdog_begin(c->nmi, c->cpu, c->cpu_p->apic_id(c->cpu_p->ctx),
                                       bench_tsc(c) + (budget->ticks - *budget->used));
    if (nmi_state) {
        params->nmi_state = (uint64_t)(uintptr_t)nmi_state;
        w->nmi = true;
        w->timer = false;
    }
    /* Armed by the procedure on the benchmark's processor (bench_cpu_procedure). */
    if (w->timer) {
        params->watchdog = true;
        params->lapic_mmio_base = c->watchdog->mmio_base;
        params->spurious_vector = c->watchdog->spurious_vector;
    }
}

static void watch_end(struct bench_context *c, const struct watch *w)
{
    if (w->nmi)
        nmi_watchdog_end(c->nmi);
}

static int fail(char *error, size_t cap, int status, const char *fmt, unsigned long long a)
{
    nb_snprintf(error, cap, fmt, a);
    return status;
}

static size_t round_page(size_t n)
{
    return (n + BENCH_PAGE_SIZE - 1) / BENCH_PAGE_SIZE * BENCH_PAGE_SIZE;
}

/* Code larger than this is written straight into place (no staging copy). */
#define STAGE_MAX (4u * 1024u * 1024u)

/* Grows a kept buffer to `want` bytes; false when the firmware has no such block. */
static bool grow(struct bench_context *c, void **buf, size_t *have, size_t want, bool exec)
{
    if (*buf && *have >= want)
        return true;
    if (*buf)
        c->p->free_mem(c->p->ctx, *buf, *have);
    *buf = exec ? c->p->alloc_exec(c->p->ctx, want) : c->p->alloc_data(c->p->ctx, want);
    *have = *buf ? want : 0;
    return *buf != NULL;
}

/*
 * The kept buffers for a measurement: executable memory for the first runs
 * (`first` bytes) and the main run (`main`), `store` bytes of measurements
 * and, when it is small enough, the staging copy. When the firmware cannot
 * give both runs their own region, they share one of `main` bytes (as every
 * run did before the buffers were kept). After a failure nothing is kept.
 */
static int get_buffers(struct bench_context *c, size_t first, size_t main, size_t store, size_t parts,
                       char *error, size_t error_cap)
{
    /* Where nothing may be allocated (bench_reserve ran): what is there must do, a shared region too. */
    if (c->reserved) {
        if (!c->exec || c->exec_size < main)
            return fail(error, error_cap, NB_ENOMEM,
                        "cannot allocate %llu bytes of executable memory for the generated code "
                        "(lower -unroll_count)", main);
        if (!c->store || c->store_size < store)
            return fail(error, error_cap, NB_ENOMEM, "cannot allocate %llu bytes for measurements", store);
        return NB_OK;
    }
    bool had = c->exec || c->store || c->stage[0] || c->stage[1];
    for (int attempt = 0;; attempt++) {
        uint8_t *old = c->exec;
        bool exec_ok = (c->exec && c->exec_size >= first + main) ||
                       grow(c, (void **)&c->exec, &c->exec_size, first + main, true) ||
                       grow(c, (void **)&c->exec, &c->exec_size, main, true);
        /* Fresh pages: what the regions held (their data pages too) is gone. */
        if (c->exec != old)
            c->emitted[0].valid = c->emitted[1].valid = false;
        bool store_ok = exec_ok && grow(c, (void **)&c->store, &c->store_size, store, false);
        if (exec_ok && store_ok)
            break;
        release_buffers(c);
        if (had && attempt == 0)
            continue; /* what was kept may have been in the way */
        if (!exec_ok)
            return fail(error, error_cap, NB_ENOMEM,
                        "cannot allocate %llu bytes of executable memory for the generated code "
                        "(lower -unroll_count)", main);
        return fail(error, error_cap, NB_ENOMEM, "cannot allocate %llu bytes for measurements", store);
    }
    /* Optional: without a staging copy the code is written in place, every time. */
    for (int r = 0; r < 2; r++) {
        size_t want = round_page(main + parts);
        if (main > STAGE_MAX || (c->stage[r] && c->stage_size[r] >= want))
            continue;
        c->emitted[r].valid = false;
        if (!grow(c, (void **)&c->stage[r], &c->stage_size[r], want, false)) {
            c->stage[r] = NULL;
            c->stage_size[r] = 0;
        }
    }
    return NB_OK;
}

/* The parameters with their pointers cleared, padding as init_params zeroed it. */
static void emit_key(const struct codegen_params *params, struct codegen_params *key)
{
    nb_memcpy(key, params, sizeof(*key));
    for (int part = 0; part < PART_COUNT; part++)
        key->part[part] = NULL;
    key->reads = NULL;
    key->stage = NULL;
    key->stage_cap = 0;
}

/*
 * Generates a run's code into region `r` (buf, cap bytes), or, when the
 * region already holds code generated from the same parameters, reads and
 * code bytes, only puts back the bytes that differ from the staged copy (code
 * that wrote into itself): the same function, and no code page written, so
 * QEMU's translations of it stay valid. Returns the entry point or NULL.
 */
static void *emit(struct bench_context *c, int r, uint8_t *buf, size_t cap, struct codegen_params *params,
                  struct codegen_layout *layout, bool once)
{
    struct bench_emitted *m = &c->emitted[r];
    size_t parts = 0;
    for (int part = 0; part < PART_COUNT; part++)
        parts += params->part_len[part];
    bool staged = c->stage[r] && c->stage_size[r] >= cap + parts;
    params->stage = staged ? c->stage[r] : NULL;
    params->stage_cap = staged ? cap : 0;
    uint8_t *saved_parts = staged ? c->stage[r] + cap : NULL;
    if (staged && m->valid && m->buf == buf && m->cap == cap && m->once == once &&
        params->n_reads <= NB_MAX_COUNTERS) {
        struct codegen_params key;
        emit_key(params, &key);
        bool same = nb_memcmp(&key, &m->key, sizeof(key)) == 0 &&
                    nb_memcmp(params->reads, m->reads, params->n_reads * sizeof(*params->reads)) == 0;
        for (int part = 0, at = 0; same && part < PART_COUNT; at += (int)params->part_len[part], part++)
            same = !params->part_len[part] ||
                   nb_memcmp(params->part[part], saved_parts + at, params->part_len[part]) == 0;
        if (same) {
            codegen_sync((uint8_t *)m->layout.code_start, c->stage[r],
                         (size_t)(m->layout.code_end - m->layout.code_start));
            *layout = m->layout;
            return m->fn;
        }
    }
    m->valid = false;
    void *fn = once ? codegen_emit_one_time(buf, cap, params, layout) : codegen_emit_run(buf, cap, params, layout);
    if (fn && staged && params->n_reads <= NB_MAX_COUNTERS) {
        emit_key(params, &m->key);
        nb_memcpy(m->reads, params->reads, params->n_reads * sizeof(*params->reads));
        size_t at = 0;
        for (int part = 0; part < PART_COUNT; part++) {
            if (params->part_len[part])
                nb_memcpy(saved_parts + at, params->part[part], params->part_len[part]);
            at += params->part_len[part];
        }
        m->buf = buf;
        m->cap = cap;
        m->once = once;
        m->layout = *layout;
        m->fn = fn;
        m->valid = true;
    }
    return fn;
}

/*
 * One executable buffer: the one-time init, the warm-up and the base run at
 * its start, the main run (the largest) at its end, each with its own data
 * pages. The same benchmark again finds its code where it left it.
 */
struct buffer_sizes {
    size_t first, main, store, parts;
};

/* The buffers a measurement with `params` (its reads set) needs, `n_stored` reads kept per measurement. */
static int buffer_sizes(const struct bench_options *o, const struct bench_code *code,
                        struct codegen_params *params, size_t n_stored, struct buffer_sizes *out,
                        char *error, size_t error_cap)
{
    int64_t main_copies = o->basic_mode ? o->unroll_count : 2 * o->unroll_count;
    params->copies = main_copies;
    size_t buf_size = codegen_run_size(params);
    size_t once_size = codegen_one_time_size(params);
    if (once_size > buf_size)
        buf_size = once_size;
    /* Guard the multiplication inside codegen_run_size against absurd requests. */
    if (code->len[PART_MAIN] && (uint64_t)main_copies > (1ull << 40) / code->len[PART_MAIN])
        return fail(error, error_cap, NB_ENOMEM, "generated code would exceed 1 TiB (%llu copies)",
                    (unsigned long long)main_copies);
    if (buf_size > CODEGEN_MAX_SIZE) {
        nb_snprintf(error, error_cap,
                    "-unroll_count %lld: the generated code would need %llu bytes, but its jumps "
                    "and data references reach only 2 GiB (rel32); lower -unroll_count",
                    (long long)o->unroll_count, (unsigned long long)buf_size);
        return NB_EINVAL;
    }
    params->copies = o->unroll_count;
    size_t first_size = codegen_run_size(params);
    if (once_size > first_size)
        first_size = once_size;
    out->first = round_page(first_size);
    out->main = round_page(buf_size);
    out->store = sizeof(int64_t) * (size_t)o->n_measurements * n_stored * 2;
    out->parts = 0;
    for (int part = 0; part < PART_COUNT; part++)
        out->parts += code->len[part];
    return NB_OK;
}

int bench_reserve(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                  char *error, size_t error_cap)
{
    /* The largest measurement: NB_MAX_COUNTERS reads (the SMI read included), the top-down reset. */
    static const struct counter_read most[NB_MAX_COUNTERS];
    struct codegen_params params;
    init_params(c, o, code, &params);
    params.reads = most;
    params.n_reads = NB_MAX_COUNTERS;
    params.topdown_global_ctrl = o->no_mem ? 0 : 1;
    struct buffer_sizes sizes;
    int st = buffer_sizes(o, code, &params, NB_MAX_COUNTERS, &sizes, error, error_cap);
    if (st == NB_OK)
        st = get_buffers(c, sizes.first, sizes.main, sizes.store, sizes.parts, error, error_cap);
    /* Staging copies for either region wherever it lies in the buffer (optional, as in get_buffers). */
    for (int r = 0; st == NB_OK && r < 2 && c->exec_size <= STAGE_MAX; r++) {
        size_t want = round_page(c->exec_size + sizes.parts);
        if (c->stage[r] && c->stage_size[r] >= want)
            continue;
        c->emitted[r].valid = false;
        if (!grow(c, (void **)&c->stage[r], &c->stage_size[r], want, false)) {
            c->stage[r] = NULL;
            c->stage_size[r] = 0;
        }
    }
    return st;
}

int bench_measure(struct bench_context *c, const struct bench_options *o,
                  const struct bench_code *code, struct bench_result *out, char *error,
                  size_t error_cap)
{
    int status = NB_OK;
    uint8_t *buf = NULL;
    int64_t *store = NULL;

    if (c->n_reads == 0 || c->n_reads > NB_MAX_COUNTERS)
        return fail(error, error_cap, NB_EINVAL, "no counters to read (%llu)", c->n_reads);
    if (o->no_mem && c->n_reads > NOMEM_MAX_READS)
        return fail(error, error_cap, NB_EINVAL, "-no_mem keeps at most 6 counters in R8..R13 (%llu asked)",
                    c->n_reads);
    /* nanoBench's pause/resume sequences only make sense when counters live in registers. */
    if (!o->no_mem && codegen_has_magic(code->part[PART_MAIN], code->len[PART_MAIN]))
        return fail(error, error_cap, NB_EINVAL,
                    "the code contains nanoBench's pause/resume magic bytes (0x%llX / 0xE0B513B1C2813F04), "
                    "which need -no_mem; the code was not run", MAGIC_PAUSE);

    for (int a = 0; a < AREA_COUNT; a++) {
        if (!c->areas[a]) {
            nb_snprintf(error, error_cap, "option %s: no memory area", bench_area_option((enum bench_area)a));
            return NB_ENOMEM;
        }
        nb_memset(c->areas[a], 0, c->area_size[a]);
    }
    if (c->prepare_areas)
        c->prepare_areas(c->prepare_arg, c);

    /* -no_mem has no register to spare for the SMI count: no check there. */
    bool smi_check = c->smi_check && !o->no_mem && c->n_reads < NB_MAX_COUNTERS;
    struct counter_read reads[NB_MAX_COUNTERS];
    size_t n_all = 0;
    if (smi_check && c->smi_pmc)
        reads[n_all++] = (struct counter_read){ READ_PMC, c->smi_pmc_index, "SMI_RECEIVED",
                                                c->smi_pmc_width, 0, 0 };
    else if (smi_check)
        reads[n_all++] = (struct counter_read){ READ_MSR, MSR_SMI_COUNT, "SMI_COUNT", 64, 0, 0 };
    for (size_t k = 0; k < c->n_reads; k++)
        reads[n_all++] = c->reads[k];
    bool saved_smi_check = c->smi_check;
    c->smi_check = smi_check;

    struct codegen_params params;
    init_params(c, o, code, &params);
    params.reads = reads;
    params.n_reads = n_all;
    /* -debug: every run gets the breakpoint slot (it cancels out); the chosen group's chosen run stops. */
    bool debug_group = false;
    if (c->debug && c->debug->on && c->catch_faults) {
        struct bench_debug *d = c->debug;
        params.debug = true;
        params.debug_stop = (uint64_t)(uintptr_t)debug_stop;
        params.debug_save = (uint64_t)(uintptr_t)d->save;
        debug_group = ++d->measures == (uint64_t)d->group && !d->cap->taken;
        for (int a = 0; a < AREA_COUNT; a++) {
            d->session.area[a] = c->areas[a];
            d->session.area_size[a] = c->area_size[a];
            d->session.area_reg[a] = middle(c, (enum bench_area)a);
        }
        d->session.cap = d->cap;
        d->session.xsave_size = c->xsave_mask ? c->xsave_size : 512;
    }

    /*
     * The budget is checked before every stage wherever the TSC frequency is
     * known; the watchdog (ring 0) also ends a stage that overruns it.
     */
    struct budget budget = { false, 0, NULL, 0, o->timeout };
    budget.used = c->benchmark_started ? &c->benchmark_used : &budget.own;
    if (c->tsc_hz && o->timeout > 0) {
        budget.on = true;
        budget.ticks = (uint64_t)o->timeout * c->tsc_hz;
    }
    struct watch watch;
    watch_begin(c, o, &budget, &params, &watch);
    int64_t base_copies = o->basic_mode ? 0 : o->unroll_count;
    int64_t main_copies = o->basic_mode ? o->unroll_count : 2 * o->unroll_count;
    struct buffer_sizes sizes;
    if ((status = buffer_sizes(o, code, &params, c->n_reads, &sizes, error, error_cap)) != NB_OK ||
        (status = get_buffers(c, sizes.first, sizes.main, sizes.store, sizes.parts, error, error_cap)) != NB_OK)
        goto out;
    size_t first_size = sizes.first, buf_size = sizes.main;
    int64_t n = o->n_measurements;
    /* Both runs in one region when the buffer could only hold the main run's. */
    uint8_t *first_buf = c->exec;
    size_t first_cap = buf_size;
    buf = c->exec;
    if (c->exec_size >= first_size + buf_size) {
        buf = c->exec + c->exec_size - buf_size;
        first_cap = (size_t)(buf - first_buf);
    }
    store = c->store;
    int64_t *base_values[NB_MAX_COUNTERS], *main_values[NB_MAX_COUNTERS];
    for (size_t k = 0; k < c->n_reads; k++) {
        base_values[k] = store + (size_t)n * k;
        main_values[k] = store + (size_t)n * (c->n_reads + k);
    }

    /*
     * The stages in order, all generated and run in ONE procedure on the
     * benchmark's processor (measure_stages): generating code is memory
     * work, so it needs no firmware either.
     */
    int64_t copies[2] = { base_copies, main_copies };
    int64_t *const *values[2] = { base_values, main_values };
    int64_t loops[2] = { 0, 0 };
    struct measure_call mc = { .c = c, .params = &params, .budget = &budget };
    if (code->len[PART_ONE_TIME_INIT])
        mc.stages[mc.n_stages++] = (struct stage){ "one-time init", first_buf, first_cap, 0, true,
                                                   o->unroll_count, o->loop_count, 0, 1, NULL, -1, false };
    if (o->initial_warm_up_count > 0)
        mc.stages[mc.n_stages++] = (struct stage){ "initial warm-up", first_buf, first_cap, 0, false,
                                                   o->unroll_count, o->loop_count, 0,
                                                   o->initial_warm_up_count, NULL, -1, false };
    for (int run = 0; run < 2; run++) {
        /*
         * nanoBench's basic mode: the baseline has no instructions at all
         * between the two counter reads, so no loop either (its README,
         * "Generated Code"); the main run keeps -loop_count.
         */
        loops[run] = (o->basic_mode && run == 0) ? 0 : o->loop_count;
        uint8_t *run_buf = run == 0 ? first_buf : buf;
        /* One region for both runs: one record of what it holds. */
        mc.stages[mc.n_stages++] = (struct stage){ run == 0 ? "base run" : "main run", run_buf,
                                                   run == 0 ? first_cap : buf_size,
                                                   run_buf == first_buf ? 0 : 1, false, copies[run],
                                                   loops[run], o->warm_up_count, n, values[run], run,
                                                   debug_group && c->debug->run == run };
    }
    if ((status = measure_stages(&mc, error, error_cap)) != NB_OK)
        goto out;
    if (o->verbose)
        dump_measurements(c, copies, loops, values, n);

    int64_t reps = stats_repetitions(o->unroll_count, o->loop_count);
    out->n = c->n_reads;
    for (size_t k = 0; k < c->n_reads; k++) {
        struct agg_value b = stats_aggregate(base_values[k], (size_t)n, o->aggregate);
        struct agg_value m = stats_aggregate(main_values[k], (size_t)n, o->aggregate);
        out->names[k] = c->reads[k].name;
        out->values[k] = stats_result(m, b, reps, o->no_normalization);
        if (o->range) {
            struct agg_value main_min = stats_aggregate(main_values[k], (size_t)n, AGG_MIN);
            struct agg_value main_max = stats_aggregate(main_values[k], (size_t)n, AGG_MAX);
            struct agg_value base_min = stats_aggregate(base_values[k], (size_t)n, AGG_MIN);
            struct agg_value base_max = stats_aggregate(base_values[k], (size_t)n, AGG_MAX);
            out->range_lo[k] = stats_result(main_min, base_max, reps, o->no_normalization);
            out->range_hi[k] = stats_result(main_max, base_min, reps, o->no_normalization);
        }
    }

out:
    watch_end(c, &watch);
    c->smi_check = saved_smi_check;
    return status;
}

#define TRACE_STEP_BUDGET_US 40u

struct traced_run {
    struct bench_context *c;
    generated_fn fn;
    struct bench_trace_end *end;
};

/* The traced run, then FS/GS bases of the processor it ran on: one procedure there. */
static void run_traced(const struct nb_platform *local, void *arg)
{
    struct traced_run *t = arg;
    if (t->c->fake_trace)
        t->c->fake_trace(t->c->fake_run_arg);
    else
        t->fn();
    if (local->read_msr(local->ctx, MSR_IA32_FS_BASE, &t->end->fs_base) != NB_OK)
        t->end->fs_base = 0;
    if (local->read_msr(local->ctx, MSR_IA32_GS_BASE, &t->end->gs_base) != NB_OK)
        t->end->gs_base = 0;
}

int bench_trace(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                struct mica_capture *cap, const struct bench_trace_memory *mem, struct bench_trace_end *end,
                char *error, size_t error_cap)
{
    const struct nb_platform *p = c->p;
    *end = (struct bench_trace_end){ 0 };
    /* Single-stepping needs our IDT's #DB gate: ring 0 only. */
    if (!c->catch_faults) {
        nb_snprintf(error, error_cap, "%s needs the image (ring 0)", mem->option ? mem->option : "-mica");
        return NB_EUNSUPP;
    }
    /* The same start as the measurement: zeroed areas, then the init code. */
    for (int a = 0; a < AREA_COUNT; a++)
        nb_memset(c->areas[a], 0, c->area_size[a]);
    struct codegen_params params;
    init_params(c, o, code, &params);
    params.reads = NULL;
    params.n_reads = 0;
    params.drain_frontend = false; /* -df's drains are the harness's, not traced */
    params.copies = o->unroll_count;
    params.trace = true;
    params.trace_init = mem->from_init;
    const char *option = mem->option ? mem->option : "-mica";
    int64_t max_instructions = mem->max_instructions > 0 ? mem->max_instructions : o->mica_max_instructions;
    params.trace_step = (uint64_t)(uintptr_t)mica_capture_step;
    size_t run_size = codegen_run_size(&params);
    size_t save_at = (run_size + 63) / 64 * 64, buf_size = save_at + CODEGEN_SAVE_MAX;
    if (run_size > CODEGEN_MAX_SIZE) {
        nb_snprintf(error, error_cap, "%s: the traced code would need %llu bytes", option,
                    (unsigned long long)run_size);
        return NB_EINVAL;
    }
    uint8_t *buf = p->alloc_exec(p->ctx, buf_size);
    if (!buf) {
        nb_snprintf(error, error_cap, "%s: cannot allocate %llu bytes for the traced code", option,
                    (unsigned long long)buf_size);
        return NB_ENOMEM;
    }
    params.trace_save = (uint64_t)(uintptr_t)(buf + save_at);

    /*
     * Its own budget: -timeout plus TRACE_STEP_BUDGET_US per instruction it
     * may trace (single-stepping costs about 16 us per instruction under
     * QEMU's TCG, a few on hardware); a hang still ends once tracing has
     * stopped at -mica_max_instructions.
     */
    struct budget budget = { false, 0, NULL, 0, o->timeout };
    budget.used = &budget.own;
    if (c->tsc_hz && o->timeout > 0) {
        budget.on = true;
        budget.ticks = (uint64_t)o->timeout * c->tsc_hz +
                       (uint64_t)max_instructions * (c->tsc_hz / 1000000u) * TRACE_STEP_BUDGET_US;
    }
    struct watch watch;
    watch_begin(c, o, &budget, &params, &watch);
    struct codegen_data *data = (struct codegen_data *)buf;
    struct codegen_layout layout;
    int status = NB_OK;
    generated_fn fn = (generated_fn)codegen_emit_run(buf, save_at, &params, &layout);
    if (!fn) {
        nb_snprintf(error, error_cap, "%s: the traced code does not fit (%llu)", option, (unsigned long long)save_at);
        status = NB_ENOMEM;
        goto out;
    }
    /* -debug_trace: the NOP after the region is recorded too (its record holds the final state). */
    uint64_t stop = mem->from_init ? layout.trace_stop + 1 : layout.trace_stop;
    end->sentinel = mem->from_init ? layout.trace_stop : 0;
    mica_capture_begin(cap, mem->records, mem->records_cap, mem->seen, mem->seen_cap, layout.trace_start,
                       stop, (uint64_t)max_instructions + (mem->from_init ? 1 : 0));
    if (watch.timer)
        data->watchdog_count = watchdog_ticks(c->watchdog, budget.ticks, c->tsc_hz);
    data->fault_happened = 0;
    mica_capture_current = cap;
    struct traced_run traced = { c, fn, end };
    struct bench_cpu_call call = { c, &params, run_traced, &traced, data };
    int st = run_on_bench_cpu(&call);
    mica_capture_current = NULL;
    if (st != NB_OK) {
        status = fail(error, error_cap, NB_EINVAL, "processor %u cannot run the code", c->cpu);
        goto out;
    }
    if (run_batch_faulted(data)) {
        /* The trace up to the fault is kept; the fault is reported as for a measurement. */
        end->fault = true;
        end->vector = (uint32_t)data->fault_vector;
        mica_capture_end(cap, data->fault_rip);
        if (data->fault_vector == WATCHDOG_VECTOR)
            nb_snprintf(error, error_cap, "timeout after %llu s (while tracing for %s: -timeout plus %u us "
                                          "per instruction it may trace)",
                        (unsigned long long)(budget.ticks / c->tsc_hz), option, TRACE_STEP_BUDGET_US);
        else
            fault_describe(error, error_cap, data, &layout, "trace run");
        status = NB_EFAULT;
    } else {
        mica_capture_end(cap, stop);
    }
    if (!mica_capture_finish(cap) && status == NB_OK) {
        nb_snprintf(error, error_cap, "%s: no room for the trace's end record", option);
        status = NB_ENOMEM;
    }
out:
    watch_end(c, &watch);
    p->free_mem(p->ctx, buf, buf_size);
    return status;
}

int bench_cycles_prepare(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                         uint64_t global_ctrl, struct bench_cycles_code *cc, char *error, size_t error_cap)
{
    const struct nb_platform *p = c->p;
    nb_memset(cc, 0, sizeof(*cc));
    for (int a = 0; a < AREA_COUNT; a++)
        nb_memset(c->areas[a], 0, c->area_size[a]);
    /* One budget for every run of the benchmark, as for a measurement's stages. */
    struct budget budget = { false, 0, NULL, 0, o->timeout };
    budget.used = &budget.own;
    if (c->tsc_hz && o->timeout > 0) {
        budget.on = true;
        budget.ticks = (uint64_t)o->timeout * c->tsc_hz;
    }
    cc->budget_on = budget.on;
    cc->budget_ticks = budget.ticks;
    cc->seconds = o->timeout;
    /* Which watchdog, chosen and started once for all the runs (watch_begin). */
    struct codegen_params guard;
    nb_memset(&guard, 0, sizeof(guard));
    struct watch watch;
    watch_begin(c, o, &budget, &guard, &watch);
    cc->watchdog = watch.timer;
    cc->nmi = watch.nmi;
    for (int k = 0; k < 2; k++) {
        struct codegen_params params;
        init_params(c, o, code, &params);
        params.reads = NULL;
        params.n_reads = 0;
        params.topdown_global_ctrl = 0;
        params.no_mem = false;
        params.cycles_global_ctrl = global_ctrl;
        params.copies = k ? o->unroll_count : 0;
        params.loop_count = k ? o->loop_count : 0;
        params.watchdog = guard.watchdog;
        params.lapic_mmio_base = guard.lapic_mmio_base;
        params.spurious_vector = guard.spurious_vector;
        params.nmi_state = guard.nmi_state;
        cc->tail = codegen_cycles_tail(&params);
        size_t size = codegen_run_size(&params);
        if (size > CODEGEN_MAX_SIZE) {
            bench_cycles_release(c, cc);
            return fail(error, error_cap, NB_EINVAL, "-cycle_by_cycle: the code would need %llu bytes", size);
        }
        cc->buf[k] = p->alloc_exec(p->ctx, size);
        if (!cc->buf[k]) {
            bench_cycles_release(c, cc);
            return fail(error, error_cap, NB_ENOMEM, "-cycle_by_cycle: cannot allocate %llu bytes for the code", size);
        }
        cc->size[k] = size;
        cc->fn[k] = (generated_fn)codegen_emit_run(cc->buf[k], size, &params, &cc->layout[k]);
        if (!cc->fn[k]) {
            bench_cycles_release(c, cc);
            return fail(error, error_cap, NB_ENOMEM, "-cycle_by_cycle: the code does not fit (%llu)", size);
        }
    }
    return NB_OK;
}

/* One template run, inside the guarded procedure on the benchmark's processor (bench_cpu_procedure). */
struct cycles_call {
    struct bench_context *c;
    struct bench_cycles_code *cc;
    int k;
};

static void run_cycles_template(const struct nb_platform *local, void *arg)
{
    struct cycles_call *call = arg;
    struct bench_context *c = call->c;
    struct codegen_data *data = (struct codegen_data *)call->cc->buf[call->k];
    uint64_t start = local->read_tsc(local->ctx);
    if (c->fake_cycles)
        c->fake_cycles(c->fake_run_arg, data, call->k == 0);
    else
        call->cc->fn[call->k]();
    call->cc->used += local->read_tsc(local->ctx) - start;
}

bool bench_cycles_run_once(struct bench_context *c, struct bench_cycles_code *cc, bool empty)
{
    if (cc->faulted)
        return false;
    int k = empty ? 0 : 1;
    const char *run = empty ? "empty template" : "cycle run";
    struct codegen_data *data = (struct codegen_data *)cc->buf[k];
    data->fault_happened = 0;
    if (cc->budget_on) {
        if (cc->used >= cc->budget_ticks) {
            cc->faulted = cc->timed_out = true;
            nb_snprintf(cc->error, sizeof(cc->error), "timeout after %lld s (before the %s)",
                        (long long)cc->seconds, run);
            return false;
        }
        if (cc->watchdog)
            data->watchdog_count = watchdog_ticks(c->watchdog, cc->budget_ticks - cc->used, c->tsc_hz);
    }
    /* The guards of the stages' procedure; params only says which watchdog (watch_begin's choice). */
    struct codegen_params params;
    nb_memset(&params, 0, sizeof(params));
    params.watchdog = cc->watchdog;
    struct cycles_call cycles = { c, cc, k };
    struct bench_cpu_call call = { c, &params, run_cycles_template, &cycles, data };
    if (run_on_bench_cpu(&call) != NB_OK) {
        cc->faulted = true;
        nb_snprintf(cc->error, sizeof(cc->error), "processor %u cannot run the code", c->cpu);
        return false;
    }
    if (run_batch_faulted(data)) {
        cc->faulted = true;
        if (cc->budget_on && data->fault_vector == WATCHDOG_VECTOR) {
            cc->timed_out = true;
            nb_snprintf(cc->error, sizeof(cc->error), "timeout after %lld s (in the %s)", (long long)cc->seconds,
                        run);
        } else {
            fault_describe(cc->error, sizeof(cc->error), data, &cc->layout[k], run);
        }
        return false;
    }
    return true;
}

void bench_cycles_release(struct bench_context *c, struct bench_cycles_code *cc)
{
    if (cc->nmi)
        nmi_watchdog_end(c->nmi);
    cc->nmi = false;
    for (int k = 0; k < 2; k++) {
        if (cc->buf[k])
            c->p->free_mem(c->p->ctx, cc->buf[k], cc->size[k]);
        cc->buf[k] = NULL;
    }
}
