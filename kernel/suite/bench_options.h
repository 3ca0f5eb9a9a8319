/*
 * bench_options.h — nanoBench's command-line options, parsed identically on
 * the host (tools/nanobench) and on the target (suite lines).
 *
 * Names, defaults and the abbreviation rule (a unique prefix of an option
 * name, one leading dash; an exact name always wins) follow the nanoBench
 * README. A few options exist only on the host (-asm*, -suite, -image,
 * -icount, -results): the host compiler turns -asm* into -code* blobs, so a
 * compiled suite on the image only ever contains target options.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

/* The four code parts of a benchmark, in the order nanoBench runs them. */
enum code_part {
    PART_ONE_TIME_INIT = 0, /* once, before the first run of the benchmark */
    PART_INIT,              /* at the start of every run, before m1 */
    PART_LATE_INIT,         /* after m1, right before the unrolled code */
    PART_MAIN,              /* the code being measured, unrolled */
    PART_COUNT
};

enum aggregate {
    AGG_AVG = 0, /* mean of the middle 60% (nanoBench's default) */
    AGG_MEDIAN,
    AGG_MIN,
    AGG_MAX,
};

/* Where an option may appear. */
enum option_scope {
    SCOPE_TARGET = 1u << 0, /* on the image (compiled suite) */
    SCOPE_HOST = 1u << 1,   /* on the host CLI or in a host suite file */
};

#define OPT_N_MEASUREMENTS_DEFAULT 10
#define OPT_UNROLL_COUNT_DEFAULT 1000
#define OPT_LOOP_COUNT_DEFAULT 0
#define OPT_WARM_UP_COUNT_DEFAULT 5
#define OPT_INITIAL_WARM_UP_COUNT_DEFAULT 0
#define OPT_ALIGNMENT_OFFSET_DEFAULT 0

/* Upper bounds keep every count inside the generated code's 32-bit immediates. */
#define OPT_COUNT_MAX 2147483647LL
#define OPT_MEASUREMENTS_MAX 1000000LL
#define OPT_ALIGNMENT_OFFSET_MAX 4095LL
#define OPT_ICOUNT_MAX 10LL
#define OPT_CPU_MAX 4095LL
#define OPT_TIMEOUT_DEFAULT 10
#define OPT_TIMEOUT_MAX 86400LL
#define OPT_AREA_SIZE_MAX (1LL << 30) /* -r14_size etc.: 1 GiB */
#define OPT_MICA_MAX_INSTRUCTIONS_DEFAULT 10000000LL
#define OPT_MICA_MAX_INSTRUCTIONS_MAX 1000000000LL
#define OPT_MICA_BLOCK_SIZE_DEFAULT 6
#define OPT_MICA_PAGE_SIZE_DEFAULT 12
#define OPT_EXPECT_MAX 16
#define OPT_DEBUG_GROUP_MAX 4096LL
#define OPT_DEBUG_MAX_INSTRUCTIONS_DEFAULT 100000LL
#define OPT_DEBUG_PORT_DEFAULT 0x2F8LL /* COM2 */
#define OPT_DEBUG_WAIT_DEFAULT 60LL /* -expect options per benchmark (defaults included) */

/* Who assembles -asm* text (host only): GNU as, as nanoBench does, or nasm. */
enum asm_syntax {
    ASM_SYNTAX_GAS = 0, /* .intel_syntax noprefix, the default */
    ASM_SYNTAX_NASM,    /* tools/compile/asm_translate.h's dialect */
};

struct bench_options {
    const char *asm_text[PART_COUNT];  /* host only */
    enum asm_syntax asm_syntax;        /* host only: -asm_syntax */
    bool strict_config; /* host only: -strict_config, a skipped nanoBench config line is an error */
    /* Suite line: relative to the suite's folder; command line: to the current one. */
    const char *code_path[PART_COUNT];

    int64_t n_measurements;
    int64_t unroll_count;
    int64_t loop_count;
    int64_t warm_up_count;
    int64_t initial_warm_up_count;
    int64_t alignment_offset;
    enum aggregate aggregate;
    bool basic_mode;
    bool no_normalization;
    bool drain_frontend;
    bool verbose;
    bool range;   /* -range: print [min;max] after every value, as nanoBench */

    /* Performance counters. */
    const char *config_path;  /* nanoBench event config; NULL: the CPU's default */
    const char *msr_config_path; /* nanoBench MSR config (counters read with RDMSR) */
    bool fixed_counters;
    /*
     * -metrics GROUP[,GROUP]: derived metrics of these groups of the CPU's
     * metric file (configs/metrics/, pmu/metric_file.h), printed after the
     * counters; NULL: none.
     */
    const char *metrics;
    bool calibrate; /* -calibrate: L1/L2/L3/DRAM latency, once per boot and core kind, first (bench_calibrate.h) */
    bool remove_empty_events;
    bool lava_results; /* -lava_results: "lava:" result lines on serial for a LAVA job (nb_report.h) */
    bool no_mem; /* counters in R8..R13; enables the pause/resume magic sequences */
    int64_t cpu; /* -cpu: logical processor to run on; -1: the boot processor */
    int64_t timeout; /* -timeout: seconds of TSC time a benchmark may take (watchdog.h) */
    bool freq_base;  /* -freq base: base frequency, turbo off, for this benchmark (freq_pin.h) */
    /*
     * -r14_size, -rdi_size, -rsi_size, -rbp_size, -rsp_size: bytes of the
     * memory area the register points to the middle of (bench_run.h
     * enum bench_area order); 0: the default 1 MiB.
     */
    int64_t area_size[5];

    /*
     * -mica (MICA-SPEC.md): after the measurement, one more execution of the
     * benchmark is single-stepped into a trace (kernel/mica/mica_capture.h), which
     * tools/nb_mica analyses. A comma list of analyses or "all"; NULL: none.
     * The image stops tracing after -mica_max_instructions; the analysis
     * settings (MICA's mica.conf keys) are the host's.
     */
    const char *mica;
    int64_t mica_max_instructions;
    int64_t mica_interval;   /* host: 0 = the full run */
    int64_t mica_ilp_size;   /* host: 0 = MICA's window sizes */
    int64_t mica_block_size; /* host: log2 bytes, default 6 */
    int64_t mica_page_size;  /* host: log2 bytes, default 12 */
    const char *mica_itypes; /* host: MICA spec file for itypes; NULL: the default groups */

    /*
     * -debug (debug_stop.h): the machine state at nanoBench's breakpoint
     * (after the last copy, before the second counter read) of one
     * execution: -debug_at GROUP:RUN:INDEX, GROUP the counter group (1 the
     * first, in the order measured), RUN base or main, INDEX the measurement
     * (0 the first kept one; -1 the last warm-up, -warm_up_count the first).
     * Default 1:main:0. -debug_at implies -debug.
     */
    bool debug;
    int64_t debug_group;
    int debug_run; /* 0 base, 1 main */
    int64_t debug_index;
    /*
     * -debug_trace: after the measurement, one execution single-stepped from
     * the init code on (bench_mica.h), at most -debug_max_instructions.
     */
    bool debug_trace;
    int64_t debug_max_instructions;
    /*
     * -debug_gdb: at the breakpoint, gdb's remote protocol on -debug_port
     * (COM2 by default; COM1 keeps the results), waiting -debug_wait seconds
     * (default 60) for gdb before the dump is written and the suite goes
     * on. Implies -debug. -debug_gdb_batch FILE (host): the gdb that
     * tools/nanobench attaches runs the commands of FILE and its output is
     * printed after the results.
     */
    bool debug_gdb;
    int64_t debug_port;
    int64_t debug_wait;
    const char *debug_gdb_batch;

    /*
     * Known-answer checks (bench_expect.h): -expect "EVENT=VALUE[~TOL][ if COND]",
     * repeatable, accumulating over defaults and the line. -expect_restore: at
     * the end of the suite, read back every counter MSR restored. -qemu_icount:
     * written by the CLI when it boots QEMU with -icount N (conditions "icount=N").
     */
    const char *expect[OPT_EXPECT_MAX];
    unsigned n_expect;
    bool expect_restore;
    int64_t qemu_icount; /* -1: not known to run under QEMU -icount */

    /*
     * -cycle_by_cycle (cycle_by_cycle.h): the events of every cycle instead of
     * the usual result. Sets nanoBench's defaults for the mode: -basic_mode,
     * -df, -no_normalization, and -unroll_count 1 and -median unless given
     * (unroll_set, aggregate_set). -end_to_end keeps the template's cycles.
     * Host only: -csv FILE and -html FILE, copies of the cycles' CSV and page.
     */
    bool cycle_by_cycle;
    bool end_to_end;
    const char *cycles_csv_path;
    const char *cycles_html_path;
    bool unroll_set, aggregate_set;

    /* Suite-level: what the machine does when the suite ends. */
    /* -serve: after the suite, answer benchmark requests on the serial line (kernel/serve/nb_serve.h). */
    bool serve;
    enum nb_finish_action finish;
    bool finish_set;

    /* Host only. */
    const char *suite_path;
    const char *image_path;
    const char *results_dir;
    int64_t icount; /* -1: no -icount */
    bool plan;            /* print the counter groups and MSR writes, do not boot */
    const char *plan_cpu; /* VENDOR:FAMILY:MODEL:GPCOUNTERS for -plan */
};

/* A parse error: which option and why, ready to print after the benchmark name. */
struct option_error {
    char message[200];
};

void bench_options_init(struct bench_options *o);

/*
 * Applies argv[0..argc-1] on top of *o (later options win). Only options whose
 * scope intersects `scope` are accepted. Strings are borrowed from argv.
 * Returns NB_OK, or NB_EINVAL with err->message set.
 */
int bench_options_parse(struct bench_options *o, int argc, char *const *argv, unsigned scope,
                        struct option_error *err);

/*
 * Cross-option checks (e.g. -asm together with -code for the same part).
 * Returns NB_OK or NB_EINVAL with err->message set.
 */
int bench_options_validate(const struct bench_options *o, struct option_error *err);

/* Canonical nanoBench option name of a code part: "-asm_init" / "-code_init"... */
const char *code_part_asm_option(enum code_part part);
const char *code_part_code_option(enum code_part part);
/* Human name of a part for messages: "main code", "init"... */
const char *code_part_name(enum code_part part);

const char *finish_action_name(enum nb_finish_action action);

#endif
