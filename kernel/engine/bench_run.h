/*
 * bench_run.h — measures one benchmark: generates the code, runs the
 * one-time init, the initial warm-up, the baseline and the main run
 * (warm-up runs + n_measurements each), and computes nanoBench's result for
 * every counter.
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_batch.h"
#include "numa_srat.h"
#include "bench_options.h"
#include "counter_read.h"
#include "nb_platform.h"
#include "nb_report.h"
#include "debug_stop.h"
#include "gdb_stub.h"
#include "mica_capture.h"
#include "nmi_watchdog.h"
#include "watchdog.h"

/*
 * nanoBench's memory areas: R14, RDI, RSI, RBP and RSP point to the middle of
 * one each; 1 MiB unless -r14_size etc. ask for another size (up to 1 GiB).
 * The image allocates them with the firmware's page allocator: physically
 * contiguous, and under UEFI's identity map the address is the physical one.
 */
#define BENCH_AREA_SIZE (1024u * 1024u)
#define BENCH_PAGE_SIZE 4096u
enum bench_area { AREA_R14 = 0, AREA_RDI, AREA_RSI, AREA_RBP, AREA_RSP, AREA_COUNT };

/*
 * -debug for one benchmark (debug_stop.h; bench_debug.h prints it): which
 * execution stops, the memory the capture uses, and where it stopped.
 */
struct bench_debug {
    bool on;
    int64_t group;  /* 1..: the bench_measure call of the benchmark that stops */
    int run;        /* 0 base, 1 main */
    int64_t index;  /* the execution: 0.. measurements, negative warm-ups */
    struct debug_capture *cap;
    uint8_t *save;  /* DEBUG_SAVE_MAX bytes, 64-byte aligned (page), header zero */
    /* Filled by bench_measure. */
    unsigned measures;  /* bench_measure calls since bench_benchmark_begin */
    uint64_t code_start, code_end, slot; /* the function that stopped */
    uint64_t paused;    /* TSC ticks spent stopped */
    struct counter_read reads[NB_MAX_COUNTERS]; /* the stopped run's reads (-no_mem: R8.. hold them) */
    size_t n_reads;
    bool no_mem;
    unsigned cpu;
    struct codegen_layout layout; /* of the function that stopped */
    uint64_t exec_start, exec_end; /* the executable buffer it lies in */
    struct debug_session session;
    /* -debug_gdb (gdb_stub.h), or NULL. */
    struct gdb_stub *gdb;
    uint64_t gdb_wait_ticks;
};

/* What stays the same for every benchmark of a suite. */
/*
 * What a region of the executable buffer holds (bench_run.c): the parameters
 * its code was generated from (pointers cleared; the reads and the parts'
 * bytes are compared separately), its layout and entry point.
 */
struct bench_emitted {
    bool valid;
    bool once;
    uint8_t *buf;
    size_t cap;
    struct codegen_params key;
    struct counter_read reads[NB_MAX_COUNTERS];
    struct codegen_layout layout;
    void *fn;
};

struct bench_context {
    const struct nb_platform *p;
    struct report *report;  /* for -verbose dumps; may be NULL */
    uint8_t *areas[AREA_COUNT];
    uint64_t area_size[AREA_COUNT]; /* bytes, a multiple of BENCH_PAGE_SIZE */
    /*
     * -timeout bounds the whole benchmark, every counter group and MSR pass
     * included: bench_benchmark_begin records when it started, and every
     * bench_measure of it spends from the same budget.
     */
    bool benchmark_started;
    /*
     * TSC ticks the benchmark's code has run so far, measured on its
     * processor around each stage: -timeout counts only the benchmark, not
     * code generation, firmware calls or (-cpu N) the firmware's round trips
     * to the other processor.
     */
    uint64_t benchmark_used;
    const struct counter_read *reads; /* what every measurement reads */
    size_t n_reads;
    /*
     * -verbose prints the readings in nanoBench's blocks (bench_run.c,
     * dump_measurements): RDTSC and the fixed counters first, then the
     * programmable counters, then the MSRs. `n_fixed` reads at the start
     * count as fixed counters whatever their kind (AMD's MPERF and APERF are
     * RDMSR reads); RDTSC and Intel's fixed RDPMC reads always do. The first
     * `verbose_skip` reads are measured but not shown: their results are not
     * printed either (RDTSC in the MSR pass and in counter groups after the
     * first). Set by the caller before each bench_measure.
     */
    size_t n_fixed;
    size_t verbose_skip;
    bool mask_interrupts;   /* false only for host tests in user mode */
    unsigned cpu;           /* processor that runs the generated code (nb_run_on_cpu) */
    bool catch_faults;      /* our IDT while the code runs: faults become error lines (ring 0) */
    /*
     * SMI check (Intel MSR_SMI_COUNT): a kept measurement during which an SMI
     * happened is discarded and repeated, at most n_measurements times per run.
     * With smi_pmc (AMD) the SMI count is general-purpose counter smi_pmc_index
     * (RDPMC), programmed with PMCx02B by the caller, instead of MSR_SMI_COUNT.
     */
    bool smi_check;
    bool smi_pmc;
    uint32_t smi_pmc_index;
    unsigned smi_pmc_width;
    /*
     * Hang watchdog (watchdog.h), or NULL. `cpu_p` runs processor-specific
     * calls (the local APIC, the TSC) on the benchmark's processor.
     */
    struct watchdog *watchdog;
    /*
     * The NMI watchdog (nmi_watchdog.h), or NULL: preferred to the timer
     * whenever another processor can watch the benchmark's one.
     */
    struct nmi_watchdog *nmi;
    const struct nb_platform *cpu_p;
    uint64_t tsc_hz;
    /*
     * Host tests only (bench_batch.h): replaces the generated code's run and
     * its reads with scripted values; the code is still generated and the
     * deltas, aggregates and results computed as on the image. NULL there.
     */
    fake_run_fn fake_run;
    void *fake_run_arg;
    /* Host tests only: called instead of bench_trace's traced code, on its processor (arg: fake_run_arg). */
    void (*fake_trace)(void *arg);
    /*
     * Host tests only: called instead of a -cycle_by_cycle template run, on
     * its processor inside the guarded procedure (arg: fake_run_arg); it may
     * report a fault or a watchdog timeout in `data` as the code would.
     */
    void (*fake_cycles)(void *arg, struct codegen_data *data, bool empty);
    /*
     * Called by bench_measure after it zeroes the areas and before any code
     * runs, or NULL: the calibration (bench_calibrate.h) links its pointer
     * chain there, where a suite would use -asm_one_time_init.
     */
    void (*prepare_areas)(void *arg, struct bench_context *c);
    void *prepare_arg;
    /* Intel top-down: IA32_PERF_GLOBAL_CTRL's value for the reset before every m1 (codegen_types.h), or 0. */
    uint64_t topdown_global_ctrl;
    /* Vector state the generated code saves: XCR0 and its area size, or 0 (FXSAVE64). */
    uint64_t xsave_mask;
    uint32_t xsave_size;
    /*
     * Effective frequency of the base run and of the main run (power.h): with
     * freq_check, bench_measure adds the APERF and MPERF deltas around each
     * run's batch (warm-up and measurements) to [0] (base) and [1] (main),
     * read on the benchmark's processor; the caller clears them.
     */
    bool freq_check;
    uint64_t freq_aperf[2], freq_mperf[2];
    /*
     * NUMA (numa_srat.h): with `numa` set and numa_domain >= 0, the memory
     * areas are allocated in that proximity domain's memory where the
     * platform can place pages (alloc_data_range), and reallocated when the
     * wanted domain changes. area_domain: where each area is (-1: anywhere);
     * area_asked: the domain asked for when it was allocated.
     */
    const struct numa_map *numa;
    int64_t numa_domain;
    int64_t area_domain[AREA_COUNT], area_asked[AREA_COUNT];
    /* AMD: the session set DE_CFG[1] on the benchmark's processor (LFENCE_SET_FOR_SESSION). */
    bool lfence_de_cfg;
    unsigned smi_repeated;   /* measurements repeated after an SMI, since the caller cleared it */
    unsigned smi_kept;       /* kept measurements that saw an SMI (repeats ran out) */
    /*
     * Kept from one bench_measure to the next (grown when a benchmark needs
     * more, freed by bench_context_free): the executable buffer (base run at
     * its start, main run at its end), per region a staging copy of its code
     * (codegen_params.stage) followed by the code parts it was generated
     * from, and the measurements. Allocating and freeing them per
     * measurement cost more than the measurement under QEMU.
     */
    uint8_t *exec;
    size_t exec_size;
    uint8_t *stage[2];
    size_t stage_size[2];
    int64_t *store;
    size_t store_size;
    struct bench_emitted emitted[2];
    /*
     * Set while the measurement runs where the firmware cannot be called
     * (cpu_measure.h): the buffers bench_reserve grew are used as they are
     * (the main run's region shared when only that fits), never grown.
     */
    bool reserved;
    /* -debug for the current benchmark, or NULL. */
    struct bench_debug *debug;
};

struct bench_code {
    const uint8_t *part[PART_COUNT];
    size_t len[PART_COUNT];
};

struct bench_result {
    size_t n;
    const char *names[NB_MAX_COUNTERS];
    int64_t values[NB_MAX_COUNTERS]; /* stats_result() units */
    /*
     * -range: nanoBench's range of the measured values, in the same units:
     * min(main) - max(base) and max(main) - min(base).
     */
    int64_t range_lo[NB_MAX_COUNTERS], range_hi[NB_MAX_COUNTERS];
};

/*
 * Gives each area the size `sizes` asks (0: BENCH_AREA_SIZE; rounded up to
 * whole pages), reallocating only the areas whose size changes. When the
 * firmware cannot provide one, the areas go back to the default size and
 * `why` names the option: NB_ENOMEM.
 */
int bench_context_size_areas(struct bench_context *c, const int64_t sizes[AREA_COUNT], char *why,
                             size_t why_cap);
/* The option that sizes an area: "-r14_size", ... */
const char *bench_area_option(enum bench_area a);

/* Starts the -timeout budget of a benchmark (before its first bench_measure). */
void bench_benchmark_begin(struct bench_context *c);

/* Allocates the memory areas; returns NB_OK or NB_ENOMEM. */
int bench_context_init(struct bench_context *c, const struct nb_platform *p);
void bench_context_free(struct bench_context *c);

/*
 * Runs one benchmark. Returns NB_OK with *out filled, or an error status with
 * a one-line reason in `error`.
 */
/* Memory for a -mica trace (the caller's): the records and the table of instruction bytes seen. */
struct bench_trace_memory {
    uint8_t *records;
    size_t records_cap;
    struct mica_seen *seen; /* zeroed; seen_cap a power of two */
    size_t seen_cap;
    /*
     * -debug_trace: the init code is traced too (and the loop counter's
     * MOV R15 when -loop_count is given), at most max_instructions (0:
     * -mica_max_instructions); `option` names it in errors (NULL: -mica).
     */
    bool from_init;
    int64_t max_instructions;
    const char *option;
};

/* How a trace run ended besides its capture's state. */
struct bench_trace_end {
    bool fault;      /* an exception (or the watchdog) ended it */
    uint32_t vector;
    /*
     * -debug_trace (from_init): the address of the NOP after the traced
     * region, traced as one more record so that the state after the last
     * instruction is in the trace; 0 otherwise.
     */
    uint64_t sentinel;
    /*
     * IA32_FS_BASE and IA32_GS_BASE, where FS: and GS: operands point (for
     * the host's addresses), read in the same procedure on the benchmark's
     * processor as the traced run (0 when unreadable).
     */
    uint64_t fs_base, gs_base;
};

/*
 * -mica: one more execution of the benchmark after its measurement, with
 * the late-init code and the copies (and their loop) single-stepped into
 * `cap` (mica_capture.h), from the state the init code leaves. It has its
 * own -timeout. A fault is described in `error` (NB_EFAULT) and the trace
 * up to it is kept in `cap`, end record included.
 */
/*
 * -cycle_by_cycle's template (codegen_types.h cycles_global_ctrl), once with
 * the benchmark (unroll_count copies, its loop) and once empty (nothing
 * between the two WRMSRs, as nanoBench's basic mode), each run once per
 * bench_cycles_run_once on the benchmark's processor under the same guards
 * as a measurement's stages (bench_run.c bench_cpu_procedure): XSAVE state
 * and DE_CFG checked, the local APIC quietened, and the session's watchdog
 * armed in the procedure that runs the code, the APIC timer one (its count
 * the budget left) or the NMI one (started by bench_cycles_prepare, ended
 * by bench_cycles_release). -timeout bounds all the runs of the benchmark
 * together: the TSC ticks each run takes on its processor are added up.
 */
struct bench_cycles_code {
    uint8_t *buf[2];     /* [0] empty, [1] the benchmark */
    size_t size[2];
    generated_fn fn[2];
    struct codegen_layout layout[2];
    size_t tail;         /* codegen_cycles_tail: the template's instructions after the benchmark */
    bool watchdog;       /* the APIC-timer watchdog is armed for each run (codegen_params.watchdog) */
    bool nmi;            /* the NMI watcher was started (nmi_watchdog.h) */
    bool budget_on;      /* -timeout with a known TSC frequency */
    uint64_t budget_ticks, used; /* the budget and what the runs have taken of it, TSC ticks */
    int64_t seconds;     /* -timeout, for the error line */
    bool faulted;
    bool timed_out;      /* the fault was the watchdog's, or the budget was spent before a run */
    char error[200];     /* the fault, as a measurement's */
};
int bench_cycles_prepare(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                         uint64_t global_ctrl, struct bench_cycles_code *cc, char *error, size_t error_cap);
/* false once a run has faulted (cc->error says how); nothing runs after that. */
bool bench_cycles_run_once(struct bench_context *c, struct bench_cycles_code *cc, bool empty);
void bench_cycles_release(struct bench_context *c, struct bench_cycles_code *cc);

int bench_trace(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                struct mica_capture *cap, const struct bench_trace_memory *mem, struct bench_trace_end *end,
                char *error, size_t error_cap);

int bench_measure(struct bench_context *c, const struct bench_options *o,
                  const struct bench_code *code, struct bench_result *out, char *error,
                  size_t error_cap);

/*
 * Grows the kept buffers (exec, stage, store) to what the largest
 * measurement of this benchmark can need (NB_MAX_COUNTERS reads), so that
 * its measurements allocate nothing: for a measurement that runs where the
 * firmware cannot be called (cpu_measure.h). NB_OK, or an error in `error`.
 */
int bench_reserve(struct bench_context *c, const struct bench_options *o, const struct bench_code *code,
                  char *error, size_t error_cap);

#endif
