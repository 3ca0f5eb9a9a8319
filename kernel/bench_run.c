/*
 * bench_run.c — one benchmark from code bytes to results (see bench_run.h).
 */
#include "bench_run.h"
#include "bench_batch.h"
#include "bench_codegen.h"
#include "bench_fault.h"
#include "bench_stats.h"
#include "cpu_platform.h"
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
    for (int a = 0; a < AREA_COUNT; a++)
        c->areas[a] = NULL;
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
    c->benchmark_start = bench_tsc(c);
    c->benchmark_started = true;
}

const char *bench_area_option(enum bench_area a)
{
    static const char *const names[AREA_COUNT] = { "-r14_size", "-rdi_size", "-rsi_size", "-rbp_size",
                                                   "-rsp_size" };
    return (unsigned)a < AREA_COUNT ? names[a] : "?";
}

/* Replaces area `a` by one of `size` bytes; false (and no area) when the firmware has none. */
static bool resize_area(struct bench_context *c, int a, uint64_t size)
{
    if (c->areas[a])
        c->p->free_mem(c->p->ctx, c->areas[a], c->area_size[a]);
    c->areas[a] = c->p->alloc_data(c->p->ctx, (size_t)size);
    c->area_size[a] = c->areas[a] ? size : 0;
    return c->areas[a] != NULL;
}

int bench_context_size_areas(struct bench_context *c, const int64_t sizes[AREA_COUNT], char *why,
                             size_t why_cap)
{
    for (int a = 0; a < AREA_COUNT; a++) {
        uint64_t want = sizes[a] > 0 ? (uint64_t)sizes[a] : BENCH_AREA_SIZE;
        want = (want + BENCH_PAGE_SIZE - 1) / BENCH_PAGE_SIZE * BENCH_PAGE_SIZE;
        if (want == c->area_size[a] && c->areas[a])
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
 * Runs a batch on the benchmark's processor. Returns NB_OK, or NB_EFAULT with
 * the fault described in `error` (the run is named by `run`).
 */
/* The benchmark's time budget, in TSC ticks, and when it started. */
struct budget {
    bool on;
    uint64_t start, ticks;
    int64_t seconds;
};

static int run_batch(struct bench_context *c, generated_fn fn, struct codegen_data *data,
                     const struct codegen_params *params, const struct codegen_layout *layout, const char *run, int64_t warm_up,
                     int64_t n, int64_t *const *values, char *error, size_t error_cap,
                     struct budget *budget, bool debug_stop_here)
{
    if (budget->on) {
        uint64_t used = bench_tsc(c) - budget->start;
        if (used >= budget->ticks) {
            nb_snprintf(error, error_cap, "timeout after %lld s (before the %s)",
                        (long long)budget->seconds, run);
            return NB_EFAULT;
        }
        if (c->watchdog)
            data->watchdog_count = watchdog_ticks(c->watchdog, budget->ticks - used, c->tsc_hz);
    }
    struct run_batch b = { fn, data, c->n_reads, c->smi_check ? 1 : 0, warm_up, n, values,
                           c->smi_check, 0, false, params->reads, params->copies, c->fake_run,
                           c->fake_run_arg, NULL, 0, NULL };
    data->fault_happened = 0;
    data->debug_paused = 0;
    struct bench_debug *d = c->debug;
    if (d && d->on && params->debug) {
        /* Every run of the benchmark reports to the session: a debugger's breakpoints may be anywhere. */
        b.debug_stops = &d->session.stops;
        d->session.nmi_deadline = params->nmi_state && c->nmi ? &c->nmi->shared.deadline : NULL;
        d->session.read_tsc = c->p->read_tsc;
        d->session.tsc_ctx = c->p->ctx;
        debug_current = &d->session;
        debug_save_live = d->save;
    }
    if (debug_stop_here && d && layout->debug_slot) {
        b.debug_slot = (volatile uint8_t *)layout->debug_slot;
        b.debug_index = d->index;
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
            /* Where the parts are, for a debugger's symbols (tools/nanobench -debug_gdb writes them). */
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
    int st = nb_run_on_cpu(c->p, c->cpu, run_batch_execute, &b);
    if (d && d->on && params->debug) {
        d->session.armed = false;
        debug_current = NULL;
    }
    /* Time stopped at the breakpoint is not the benchmark's: -timeout's budget moves by as much. */
    if (data->debug_paused) {
        budget->start += data->debug_paused;
        c->benchmark_start += data->debug_paused;
        if (d)
            d->paused += data->debug_paused;
        data->debug_paused = 0;
    }
    c->smi_repeated += b.smi_repeated;
    c->smi_kept += b.smi_kept;
    if (st != NB_OK) {
        nb_snprintf(error, error_cap, "processor %u cannot run the code", c->cpu);
        return NB_EINVAL;
    }
    if (run_batch_faulted(data)) {
        if (budget->on && data->fault_vector == WATCHDOG_VECTOR)
            nb_snprintf(error, error_cap, "timeout after %lld s (in the %s)",
                        (long long)budget->seconds, run);
        else
            fault_describe(error, error_cap, data, layout, run);
        return NB_EFAULT;
    }
    return NB_OK;
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
                                       budget->start + budget->ticks);
    if (nmi_state) {
        params->nmi_state = (uint64_t)(uintptr_t)nmi_state;
        w->nmi = true;
        w->timer = false;
    }
    if (w->timer) {
        params->watchdog = true;
        params->lapic_mmio_base = c->watchdog->mmio_base;
        params->spurious_vector = c->watchdog->spurious_vector;
        watchdog_arm(c->watchdog, c->cpu_p);
    }
}

static void watch_end(struct bench_context *c, const struct watch *w, const struct codegen_data *data)
{
    if (w->nmi)
        nmi_watchdog_end(c->nmi);
    if (w->timer)
        watchdog_disarm(c->watchdog, c->cpu_p,
                        data && data->fault_happened && data->fault_vector == WATCHDOG_VECTOR);
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

int bench_measure(struct bench_context *c, const struct bench_options *o,
                  const struct bench_code *code, struct bench_result *out, char *error,
                  size_t error_cap)
{
    int status = NB_OK;
    uint8_t *buf = NULL;
    int64_t *store = NULL;
    size_t store_bytes = 0;
    struct codegen_data *data = NULL; /* of the last run */

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
    if (smi_check)
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
     * The budget is checked before every batch wherever the TSC frequency is
     * known; the watchdog (ring 0) also ends a batch that overruns it.
     */
    struct budget budget = { false, 0, 0, o->timeout };
    if (c->tsc_hz && o->timeout > 0) {
        budget.on = true;
        budget.ticks = (uint64_t)o->timeout * c->tsc_hz;
        budget.start = c->benchmark_started ? c->benchmark_start : bench_tsc(c);
    }
    struct watch watch;
    watch_begin(c, o, &budget, &params, &watch);
    int64_t base_copies = o->basic_mode ? 0 : o->unroll_count;
    int64_t main_copies = o->basic_mode ? o->unroll_count : 2 * o->unroll_count;

    /*
     * One executable buffer: the one-time init, the warm-up and the base run
     * at its start, the main run (the largest) at its end, each with its own
     * data pages. The same benchmark again finds its code where it left it.
     */
    params.copies = main_copies;
    size_t buf_size = codegen_run_size(&params);
    size_t once_size = codegen_one_time_size(&params);
    if (once_size > buf_size)
        buf_size = once_size;
    /* Guard the multiplication inside codegen_run_size against absurd requests. */
    if (code->len[PART_MAIN] && (uint64_t)main_copies > (1ull << 40) / code->len[PART_MAIN]) {
        status = fail(error, error_cap, NB_ENOMEM, "generated code would exceed 1 TiB (%llu copies)",
                      (unsigned long long)main_copies);
        goto out;
    }
    if (buf_size > CODEGEN_MAX_SIZE) {
        nb_snprintf(error, error_cap,
                    "-unroll_count %lld: the generated code would need %llu bytes, but its jumps "
                    "and data references reach only 2 GiB (rel32); lower -unroll_count",
                    (long long)o->unroll_count, (unsigned long long)buf_size);
        status = NB_EINVAL;
        goto out;
    }
    params.copies = o->unroll_count;
    size_t first_size = codegen_run_size(&params);
    if (once_size > first_size)
        first_size = once_size;
    first_size = round_page(first_size);
    buf_size = round_page(buf_size);
    int64_t n = o->n_measurements;
    store_bytes = sizeof(int64_t) * (size_t)n * c->n_reads * 2;
    size_t parts = 0;
    for (int part = 0; part < PART_COUNT; part++)
        parts += code->len[part];
    if ((status = get_buffers(c, first_size, buf_size, store_bytes, parts, error, error_cap)) != NB_OK)
        goto out;
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
    data = (struct codegen_data *)first_buf;

    struct codegen_layout layout;
    if (code->len[PART_ONE_TIME_INIT]) {
        generated_fn once = (generated_fn)emit(c, 0, first_buf, first_cap, &params, &layout, true);
        if (!once) {
            status = fail(error, error_cap, NB_ENOMEM, "one-time init code does not fit (%llu)",
                          first_cap);
            goto out;
        }
        if ((status = run_batch(c, once, data, &params, &layout, "one-time init", 0, 1, NULL, error,
                                error_cap, &budget, false)) != NB_OK)
            goto out;
    }

    params.copies = o->unroll_count;
    if (o->initial_warm_up_count > 0) {
        generated_fn warm = (generated_fn)emit(c, 0, first_buf, first_cap, &params, &layout, false);
        if (!warm) {
            status = fail(error, error_cap, NB_ENOMEM, "generated code does not fit (%llu)", first_cap);
            goto out;
        }
        if ((status = run_batch(c, warm, data, &params, &layout, "initial warm-up", 0,
                                o->initial_warm_up_count, NULL, error, error_cap, &budget, false)) != NB_OK)
            goto out;
    }

    int64_t copies[2] = { base_copies, main_copies };
    int64_t *const *values[2] = { base_values, main_values };
    int64_t loops[2] = { 0, 0 };
    for (int run = 0; run < 2; run++) {
        params.copies = copies[run];
        /*
         * nanoBench's basic mode: the baseline has no instructions at all
         * between the two counter reads, so no loop either (its README,
         * "Generated Code"); the main run keeps -loop_count.
         */
        params.loop_count = (o->basic_mode && run == 0) ? 0 : o->loop_count;
        uint8_t *run_buf = run == 0 ? first_buf : buf;
        size_t run_cap = run == 0 ? first_cap : buf_size;
        data = (struct codegen_data *)run_buf;
        /* One region for both runs: one record of what it holds. */
        int region = run_buf == first_buf ? 0 : 1;
        generated_fn fn = (generated_fn)emit(c, region, run_buf, run_cap, &params, &layout, false);
        if (!fn) {
            status = fail(error, error_cap, NB_ENOMEM, "generated code does not fit (%llu)", run_cap);
            goto out;
        }
        loops[run] = params.loop_count;
        if ((status = run_batch(c, fn, data, &params, &layout, run == 0 ? "base run" : "main run",
                                o->warm_up_count, n, values[run], error, error_cap, &budget,
                                debug_group && c->debug->run == run)) != NB_OK)
            goto out;
    }
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
    watch_end(c, &watch, data);
    c->smi_check = saved_smi_check;
    return status;
}

#define TRACE_STEP_BUDGET_US 40u

static void run_once(void *fn)
{
    ((generated_fn)fn)();
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
    struct budget budget = { false, 0, 0, o->timeout };
    if (c->tsc_hz && o->timeout > 0) {
        budget.on = true;
        budget.ticks = (uint64_t)o->timeout * c->tsc_hz +
                       (uint64_t)max_instructions * (c->tsc_hz / 1000000u) * TRACE_STEP_BUDGET_US;
        budget.start = bench_tsc(c);
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
    int st = nb_run_on_cpu(p, c->cpu, run_once, (void *)fn);
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
    watch_end(c, &watch, data);
    p->free_mem(p->ctx, buf, buf_size);
    return status;
}
