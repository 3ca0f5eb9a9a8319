/*
 * bench_options.c — table-driven parser for nanoBench's options (see
 * bench_options.h). One table row per option; the abbreviation rule and the
 * value checks are generic.
 */
#include "bench_options.h"
#include "bench_expect.h"
#include "nb_text.h"

#include <stddef.h>

enum value_kind {
    VALUE_NONE,   /* a flag */
    VALUE_INT,    /* a bounded integer */
    VALUE_STRING, /* a file name or code text */
};

struct option_def {
    const char *name; /* without the leading dash */
    enum value_kind kind;
    unsigned scope;
    int64_t min, max; /* VALUE_INT bounds */
    /* Applies the option; `text` is the raw value (NULL for flags). */
    void (*apply)(struct bench_options *o, int64_t number, const char *text);
};

#define BOTH (SCOPE_TARGET | SCOPE_HOST)

static void set_asm_main(struct bench_options *o, int64_t n, const char *t) { (void)n; o->asm_text[PART_MAIN] = t; }
static void set_asm_init(struct bench_options *o, int64_t n, const char *t) { (void)n; o->asm_text[PART_INIT] = t; }
static void set_asm_late(struct bench_options *o, int64_t n, const char *t) { (void)n; o->asm_text[PART_LATE_INIT] = t; }
static void set_asm_once(struct bench_options *o, int64_t n, const char *t) { (void)n; o->asm_text[PART_ONE_TIME_INIT] = t; }
static void set_code_main(struct bench_options *o, int64_t n, const char *t) { (void)n; o->code_path[PART_MAIN] = t; }
static void set_code_init(struct bench_options *o, int64_t n, const char *t) { (void)n; o->code_path[PART_INIT] = t; }
static void set_code_late(struct bench_options *o, int64_t n, const char *t) { (void)n; o->code_path[PART_LATE_INIT] = t; }
static void set_code_once(struct bench_options *o, int64_t n, const char *t) { (void)n; o->code_path[PART_ONE_TIME_INIT] = t; }
static void set_n_meas(struct bench_options *o, int64_t n, const char *t) { (void)t; o->n_measurements = n; }
static void set_unroll(struct bench_options *o, int64_t n, const char *t) { (void)t; o->unroll_count = n; o->unroll_set = true; }
static void set_loop(struct bench_options *o, int64_t n, const char *t) { (void)t; o->loop_count = n; }
static void set_warm(struct bench_options *o, int64_t n, const char *t) { (void)t; o->warm_up_count = n; }
static void set_init_warm(struct bench_options *o, int64_t n, const char *t) { (void)t; o->initial_warm_up_count = n; }
static void set_align(struct bench_options *o, int64_t n, const char *t) { (void)t; o->alignment_offset = n; }
static void set_avg(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->aggregate = AGG_AVG; o->aggregate_set = true; }
static void set_median(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->aggregate = AGG_MEDIAN; o->aggregate_set = true; }
static void set_min(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->aggregate = AGG_MIN; o->aggregate_set = true; }
static void set_max(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->aggregate = AGG_MAX; o->aggregate_set = true; }
static void set_basic(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->basic_mode = true; }
static void set_no_norm(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->no_normalization = true; }
static void set_df(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->drain_frontend = true; }
static void set_range(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->range = true; }
static void set_verbose(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->verbose = true; }
static void set_config(struct bench_options *o, int64_t n, const char *t) { (void)n; o->config_path = t; }
static void set_msr_config(struct bench_options *o, int64_t n, const char *t) { (void)n; o->msr_config_path = t; }
static void set_metrics(struct bench_options *o, int64_t n, const char *t) { (void)n; o->metrics = t; }
static void set_no_mem(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->no_mem = true; }
static void set_cpu(struct bench_options *o, int64_t n, const char *t) { (void)t; o->cpu = n; }
static void set_timeout(struct bench_options *o, int64_t n, const char *t) { (void)t; o->timeout = n; }
static void set_fixed(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->fixed_counters = true; }
static void set_remove_empty(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->remove_empty_events = true; }
static void set_lava_results(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->lava_results = true; }
static void set_plan(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->plan = true; }
static void set_plan_cpu(struct bench_options *o, int64_t n, const char *t) { (void)n; o->plan_cpu = t; }
static void set_suite(struct bench_options *o, int64_t n, const char *t) { (void)n; o->suite_path = t; }
static void set_image(struct bench_options *o, int64_t n, const char *t) { (void)n; o->image_path = t; }
static void set_results(struct bench_options *o, int64_t n, const char *t) { (void)n; o->results_dir = t; }
static void set_icount(struct bench_options *o, int64_t n, const char *t) { (void)t; o->icount = n; }
static void set_expect(struct bench_options *o, int64_t n, const char *t) { (void)n; o->expect[o->n_expect++] = t; }
static void set_expect_restore(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->expect_restore = true; }
static void set_qemu_icount(struct bench_options *o, int64_t n, const char *t) { (void)t; o->qemu_icount = n; }
static void set_r14_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->area_size[0] = n; }
static void set_rdi_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->area_size[1] = n; }
static void set_rsi_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->area_size[2] = n; }
static void set_rbp_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->area_size[3] = n; }
static void set_rsp_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->area_size[4] = n; }
static void set_ring_flag(struct bench_options *o, int64_t n, const char *t) { (void)o; (void)n; (void)t; }
static void set_mica(struct bench_options *o, int64_t n, const char *t) { (void)n; o->mica = t; }
static void set_mica_max(struct bench_options *o, int64_t n, const char *t) { (void)t; o->mica_max_instructions = n; }
static void set_mica_interval(struct bench_options *o, int64_t n, const char *t) { (void)t; o->mica_interval = n; }
static void set_mica_ilp_size(struct bench_options *o, int64_t n, const char *t) { (void)t; o->mica_ilp_size = n; }
static void set_mica_block(struct bench_options *o, int64_t n, const char *t) { (void)t; o->mica_block_size = n; }
static void set_mica_page(struct bench_options *o, int64_t n, const char *t) { (void)t; o->mica_page_size = n; }
static void set_mica_itypes(struct bench_options *o, int64_t n, const char *t) { (void)n; o->mica_itypes = t; }
/* -debug block */
static void set_debug(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->debug = true; }
static void set_debug_at(struct bench_options *o, int64_t n, const char *t);
static void set_debug_trace(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->debug_trace = true; }
static void set_debug_max(struct bench_options *o, int64_t n, const char *t) { (void)t; o->debug_max_instructions = n; }
static void set_debug_gdb(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->debug_gdb = o->debug = true; }
static void set_debug_port(struct bench_options *o, int64_t n, const char *t) { (void)t; o->debug_port = n; }
static void set_debug_wait(struct bench_options *o, int64_t n, const char *t) { (void)t; o->debug_wait = n; }
static void set_debug_gdb_batch(struct bench_options *o, int64_t n, const char *t) { (void)n; o->debug_gdb_batch = t; }
static void set_calibrate(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->calibrate = true; }
static void set_freq(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->freq_base = true; }
/* -cycle_by_cycle: nanoBench's cycleByCycle.py sets basic mode and -df; -unroll_count 1 and median by default. */
static void set_cycle_by_cycle(struct bench_options *o, int64_t n, const char *t)
{
    (void)n;
    (void)t;
    o->cycle_by_cycle = o->basic_mode = o->drain_frontend = o->no_normalization = true;
    if (!o->unroll_set)
        o->unroll_count = 1;
    if (!o->aggregate_set)
        o->aggregate = AGG_MEDIAN;
}
static void set_end_to_end(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->end_to_end = true; }
static void set_cycles_csv(struct bench_options *o, int64_t n, const char *t) { (void)n; o->cycles_csv_path = t; }
static void set_cycles_html(struct bench_options *o, int64_t n, const char *t) { (void)n; o->cycles_html_path = t; }
static void set_serve(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->serve = true; }
static void set_finish(struct bench_options *o, int64_t n, const char *t) { (void)t; o->finish = (enum nb_finish_action)n; o->finish_set = true; }
static void set_asm_syntax(struct bench_options *o, int64_t n, const char *t) { (void)t; o->asm_syntax = (enum asm_syntax)n; }
static void set_strict_config(struct bench_options *o, int64_t n, const char *t) { (void)n; (void)t; o->strict_config = true; }

static const struct option_def OPTIONS[] = {
    { "asm", VALUE_STRING, SCOPE_HOST, 0, 0, set_asm_main },
    { "asm_init", VALUE_STRING, SCOPE_HOST, 0, 0, set_asm_init },
    { "asm_late_init", VALUE_STRING, SCOPE_HOST, 0, 0, set_asm_late },
    { "asm_one_time_init", VALUE_STRING, SCOPE_HOST, 0, 0, set_asm_once },
    { "code", VALUE_STRING, BOTH, 0, 0, set_code_main },
    { "code_init", VALUE_STRING, BOTH, 0, 0, set_code_init },
    { "code_late_init", VALUE_STRING, BOTH, 0, 0, set_code_late },
    { "code_one_time_init", VALUE_STRING, BOTH, 0, 0, set_code_once },
    { "n_measurements", VALUE_INT, BOTH, 1, OPT_MEASUREMENTS_MAX, set_n_meas },
    { "unroll_count", VALUE_INT, BOTH, 1, OPT_COUNT_MAX, set_unroll },
    { "loop_count", VALUE_INT, BOTH, 0, OPT_COUNT_MAX, set_loop },
    { "warm_up_count", VALUE_INT, BOTH, 0, OPT_COUNT_MAX, set_warm },
    { "initial_warm_up_count", VALUE_INT, BOTH, 0, OPT_COUNT_MAX, set_init_warm },
    { "alignment_offset", VALUE_INT, BOTH, 0, OPT_ALIGNMENT_OFFSET_MAX, set_align },
    { "avg", VALUE_NONE, BOTH, 0, 0, set_avg },
    { "median", VALUE_NONE, BOTH, 0, 0, set_median },
    { "min", VALUE_NONE, BOTH, 0, 0, set_min },
    { "max", VALUE_NONE, BOTH, 0, 0, set_max },
    { "basic_mode", VALUE_NONE, BOTH, 0, 0, set_basic },
    { "no_normalization", VALUE_NONE, BOTH, 0, 0, set_no_norm },
    { "df", VALUE_NONE, BOTH, 0, 0, set_df },
    { "verbose", VALUE_NONE, BOTH, 0, 0, set_verbose },
    { "range", VALUE_NONE, BOTH, 0, 0, set_range },
    { "config", VALUE_STRING, BOTH, 0, 0, set_config },
    { "msr_config", VALUE_STRING, BOTH, 0, 0, set_msr_config },
    { "fixed_counters", VALUE_NONE, BOTH, 0, 0, set_fixed },
    { "metrics", VALUE_STRING, BOTH, 0, 0, set_metrics }, /* groups checked on the machine */
    { "calibrate", VALUE_NONE, BOTH, 0, 0, set_calibrate },
    { "no_mem", VALUE_NONE, BOTH, 0, 0, set_no_mem },
    { "cpu", VALUE_INT, BOTH, 0, OPT_CPU_MAX, set_cpu },
    { "timeout", VALUE_INT, BOTH, 1, OPT_TIMEOUT_MAX, set_timeout },
    { "freq", VALUE_STRING, BOTH, 0, 0, set_freq }, /* value checked in parse_freq */
    { "remove_empty_events", VALUE_NONE, BOTH, 0, 0, set_remove_empty },
    { "lava_results", VALUE_NONE, BOTH, 0, 0, set_lava_results }, /* tools/nanobench -lava_job */
    /*
     * nanoBench's -usr/-os (count in user / kernel mode): accepted for its
     * scripts; the benchmark runs in ring 0 and the image counts both rings.
     */
    { "usr", VALUE_INT, BOTH, 0, 1, set_ring_flag },
    { "os", VALUE_INT, BOTH, 0, 1, set_ring_flag },
    { "r14_size", VALUE_INT, BOTH, 1, OPT_AREA_SIZE_MAX, set_r14_size },
    { "rdi_size", VALUE_INT, BOTH, 1, OPT_AREA_SIZE_MAX, set_rdi_size },
    { "rsi_size", VALUE_INT, BOTH, 1, OPT_AREA_SIZE_MAX, set_rsi_size },
    { "rbp_size", VALUE_INT, BOTH, 1, OPT_AREA_SIZE_MAX, set_rbp_size },
    { "rsp_size", VALUE_INT, BOTH, 1, OPT_AREA_SIZE_MAX, set_rsp_size },
    { "mica", VALUE_STRING, BOTH, 0, 0, set_mica }, /* value checked in parse_mica */
    { "mica_max_instructions", VALUE_INT, BOTH, 1, OPT_MICA_MAX_INSTRUCTIONS_MAX, set_mica_max },
    { "mica_interval", VALUE_INT, SCOPE_HOST, 1, 1LL << 40, set_mica_interval },
    { "mica_ilp_size", VALUE_INT, SCOPE_HOST, 1, 1LL << 20, set_mica_ilp_size },
    { "mica_block_size", VALUE_INT, SCOPE_HOST, 0, 30, set_mica_block },
    { "mica_page_size", VALUE_INT, SCOPE_HOST, 0, 30, set_mica_page },
    { "mica_itypes", VALUE_STRING, SCOPE_HOST, 0, 0, set_mica_itypes },
    /* -debug block (debug_stop.h) */
    { "debug", VALUE_NONE, BOTH, 0, 0, set_debug },
    { "debug_at", VALUE_STRING, BOTH, 0, 0, set_debug_at }, /* value checked in parse_debug_at */
    { "debug_trace", VALUE_NONE, BOTH, 0, 0, set_debug_trace },
    { "debug_max_instructions", VALUE_INT, BOTH, 1, OPT_MICA_MAX_INSTRUCTIONS_MAX, set_debug_max },
    { "debug_gdb", VALUE_NONE, BOTH, 0, 0, set_debug_gdb },
    { "debug_port", VALUE_STRING, BOTH, 0, 0, set_debug_port }, /* value mapped in parse_debug_port */
    { "debug_wait", VALUE_INT, BOTH, 0, 86400, set_debug_wait },
    { "debug_gdb_batch", VALUE_STRING, SCOPE_HOST, 0, 0, set_debug_gdb_batch },
    { "finish", VALUE_STRING, BOTH, 0, 0, set_finish }, /* value mapped in parse_finish */
    { "serve", VALUE_NONE, BOTH, 0, 0, set_serve },
    { "expect", VALUE_STRING, BOTH, 0, 0, set_expect }, /* value checked in parse_expect */
    { "expect_restore", VALUE_NONE, BOTH, 0, 0, set_expect_restore },
    { "qemu_icount", VALUE_INT, BOTH, 0, OPT_ICOUNT_MAX, set_qemu_icount },
    /* -cycle_by_cycle and its options (cycle_by_cycle.h). */
    { "cycle_by_cycle", VALUE_NONE, BOTH, 0, 0, set_cycle_by_cycle },
    { "end_to_end", VALUE_NONE, BOTH, 0, 0, set_end_to_end },
    { "csv", VALUE_STRING, SCOPE_HOST, 0, 0, set_cycles_csv },
    { "html", VALUE_STRING, SCOPE_HOST, 0, 0, set_cycles_html },
    { "plan", VALUE_NONE, SCOPE_HOST, 0, 0, set_plan },
    { "plan_cpu", VALUE_STRING, SCOPE_HOST, 0, 0, set_plan_cpu },
    { "suite", VALUE_STRING, SCOPE_HOST, 0, 0, set_suite },
    { "image", VALUE_STRING, SCOPE_HOST, 0, 0, set_image },
    { "results", VALUE_STRING, SCOPE_HOST, 0, 0, set_results },
    { "icount", VALUE_INT, SCOPE_HOST, 0, OPT_ICOUNT_MAX, set_icount },
    /* Host checks of issue 23: the assembler dialect, nanoBench's config lines. */
    { "asm_syntax", VALUE_STRING, SCOPE_HOST, 0, 0, set_asm_syntax }, /* value mapped in parse_asm_syntax */
    { "strict_config", VALUE_NONE, SCOPE_HOST, 0, 0, set_strict_config },
};

#define N_OPTIONS (sizeof(OPTIONS) / sizeof(OPTIONS[0]))

/*
 * Short forms nanoBench users type, which our extra options would otherwise
 * make ambiguous (-f: -fixed_counters or -finish): nanoBench's meaning wins.
 * Exact only; they take no part in prefix matching.
 */
static const struct {
    const char *alias, *name;
} ALIASES[] = {
    { "f", "fixed_counters" },
    { "re", "remove_empty_events" },
    { "n", "n_measurements" },
    { "l", "loop_count" }, /* unique in nanoBench; -lava_results made it ambiguous */
    { "i", "initial_warm_up_count" },
    { "mi", "min" }, /* unique in nanoBench; -mica made it ambiguous here */
    { "me", "median" }, /* likewise; -metrics */
    { "d", "df" },      /* unique before -debug* joined */
};

static const char *const FINISH_NAMES[] = { "shutdown", "reboot", "exit" };

const char *finish_action_name(enum nb_finish_action action)
{
    return (unsigned)action < 3 ? FINISH_NAMES[action] : "?";
}

void bench_options_init(struct bench_options *o)
{
    nb_memset(o, 0, sizeof(*o));
    o->n_measurements = OPT_N_MEASUREMENTS_DEFAULT;
    o->unroll_count = OPT_UNROLL_COUNT_DEFAULT;
    o->loop_count = OPT_LOOP_COUNT_DEFAULT;
    o->warm_up_count = OPT_WARM_UP_COUNT_DEFAULT;
    o->initial_warm_up_count = OPT_INITIAL_WARM_UP_COUNT_DEFAULT;
    o->alignment_offset = OPT_ALIGNMENT_OFFSET_DEFAULT;
    o->aggregate = AGG_AVG;
    o->finish = NB_FINISH_SHUTDOWN;
    o->icount = -1;
    o->cpu = -1;
    o->timeout = OPT_TIMEOUT_DEFAULT;
    o->qemu_icount = -1;
    o->mica_max_instructions = OPT_MICA_MAX_INSTRUCTIONS_DEFAULT;
    o->mica_block_size = OPT_MICA_BLOCK_SIZE_DEFAULT;
    o->mica_page_size = OPT_MICA_PAGE_SIZE_DEFAULT;
    o->debug_group = 1;
    o->debug_run = 1;
    o->debug_index = 0;
    o->debug_max_instructions = OPT_DEBUG_MAX_INSTRUCTIONS_DEFAULT;
    o->debug_port = OPT_DEBUG_PORT_DEFAULT;
    o->debug_wait = OPT_DEBUG_WAIT_DEFAULT;
}

static int fail(struct option_error *err, const char *fmt, const char *a, const char *b)
{
    nb_snprintf(err->message, sizeof(err->message), fmt, a, b);
    return NB_EINVAL;
}

/*
 * Finds the option named by `word` (without dash): an exact name wins,
 * otherwise the word must be a prefix of exactly one option in scope.
 */
static int lookup(const char *word, unsigned scope, const struct option_def **found,
                  struct option_error *err)
{
    for (size_t a = 0; a < sizeof(ALIASES) / sizeof(ALIASES[0]); a++)
        if (nb_strcmp(ALIASES[a].alias, word) == 0)
            word = ALIASES[a].name;
    const struct option_def *match = NULL;
    int n_matches = 0, listed = 0;
    char candidates[120] = "";
    size_t used = 0;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (!(OPTIONS[i].scope & scope))
            continue;
        if (nb_strcmp(OPTIONS[i].name, word) == 0) {
            *found = &OPTIONS[i];
            return NB_OK;
        }
        if (nb_starts_with(OPTIONS[i].name, word)) {
            match = &OPTIONS[i];
            n_matches++;
            /* Whole names only: the ones that do not fit are counted at the end. */
            size_t need = nb_strlen(OPTIONS[i].name) + 3;
            if (listed == n_matches - 1 && used + need < sizeof(candidates) - 16) {
                used += nb_snprintf(candidates + used, sizeof(candidates) - used, "%s-%s",
                                    n_matches > 1 ? ", " : "", OPTIONS[i].name);
                listed++;
            }
        }
    }
    if (n_matches == 1) {
        *found = match;
        return NB_OK;
    }
    if (n_matches > listed)
        nb_snprintf(candidates + used, sizeof(candidates) - used, " and %d more", n_matches - listed);
    if (n_matches > 1)
        return fail(err, "option -%s is ambiguous (%s)", word, candidates);
    /* A known option in the wrong place deserves a precise message. */
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (nb_strcmp(OPTIONS[i].name, word) == 0) {
            if (OPTIONS[i].scope == SCOPE_HOST)
                return fail(err, "option -%s is only understood by the host tool (tools/nanobench)%s",
                            word, nb_starts_with(word, "asm")
                                      ? "; on the image use the -code variant with a binary file" : "");
            return fail(err, "option -%s is not allowed here%s", word, "");
        }
    }
    return fail(err, "unknown option -%s%s", word, "");
}

static int parse_finish(const char *text, int64_t *value, struct option_error *err)
{
    for (int64_t i = 0; i < 3; i++) {
        if (nb_strcmp(text, FINISH_NAMES[i]) == 0) {
            *value = i;
            return NB_OK;
        }
    }
    return fail(err, "option -finish: '%s' is not one of shutdown, reboot, exit%s", text, "");
}

/* -freq: only "base" (freq_pin.h). */
static int parse_freq(const char *text, struct option_error *err)
{
    if (nb_strcmp(text, "base") == 0)
        return NB_OK;
    return fail(err, "option -freq: '%s' is not base (the only setting: base frequency, turbo off)%s",
                text, "");
}

/* -asm_syntax gas|nasm: who assembles the -asm* text (tools/compile/gas_batch.h, nasm_batch.h). */
static int parse_asm_syntax(const char *text, int64_t *value, struct option_error *err)
{
    if (nb_strcmp(text, "gas") == 0 || nb_strcmp(text, "nasm") == 0) {
        *value = nb_strcmp(text, "gas") == 0 ? ASM_SYNTAX_GAS : ASM_SYNTAX_NASM;
        return NB_OK;
    }
    return fail(err, "option -asm_syntax: '%s' is not gas (GNU as, nanoBench's) or nasm%s", text, "");
}

/* -expect: the grammar of bench_expect.h, and room for one more. */
/* MICA's analyses (MICA-SPEC.md), as -mica names them. */
static const char *const MICA_ANALYSES[] = { "itypes", "ilp", "ilp_one", "reg", "stride", "memfootprint",
                                             "memstackdist", "fullmemstackdist", "ppm" };

/* "all", or a comma list of analyses. */
static int parse_mica(const char *text, struct option_error *err)
{
    if (nb_strcmp(text, "all") == 0)
        return NB_OK;
    for (const char *start = text;;) {
        const char *end = start;
        while (*end && *end != ',')
            end++;
        bool known = false;
        for (size_t i = 0; i < sizeof(MICA_ANALYSES) / sizeof(MICA_ANALYSES[0]); i++) {
            size_t n = nb_strlen(MICA_ANALYSES[i]);
            if ((size_t)(end - start) == n && nb_strncmp(start, MICA_ANALYSES[i], n) == 0)
                known = true;
        }
        if (!known) {
            char name[64];
            size_t n = (size_t)(end - start) < sizeof(name) - 1 ? (size_t)(end - start) : sizeof(name) - 1;
            nb_memcpy(name, start, n);
            name[n] = '\0';
            return fail(err, "option -mica: '%s' is not an analysis (all, itypes, ilp, ilp_one, reg, stride, "
                             "memfootprint, memstackdist, fullmemstackdist, ppm)%s", name, "");
        }
        if (!*end)
            return NB_OK;
        start = end + 1;
    }
}

/*
 * -debug_at GROUP:RUN:INDEX: GROUP 1.., RUN base or main, INDEX a whole
 * number (negative: a warm-up run). Fills the three when `o` is not NULL.
 */
static int parse_debug_at(const char *text, struct bench_options *o, struct option_error *err)
{
    const char *c1 = text, *c2;
    while (*c1 && *c1 != ':')
        c1++;
    c2 = *c1 ? c1 + 1 : c1;
    while (*c2 && *c2 != ':')
        c2++;
    char group[24], run[16];
    int64_t g = 0, index = 0;
    size_t gl = (size_t)(c1 - text), rl = *c1 ? (size_t)(c2 - c1 - 1) : 0;
    bool ok = *c1 && *c2 && gl > 0 && gl < sizeof(group) && rl < sizeof(run);
    if (ok) {
        nb_memcpy(group, text, gl);
        group[gl] = '\0';
        nb_memcpy(run, c1 + 1, rl);
        run[rl] = '\0';
        ok = nb_parse_i64(group, &g) && g >= 1 && g <= OPT_DEBUG_GROUP_MAX && nb_parse_i64(c2 + 1, &index) &&
             index > -OPT_COUNT_MAX && index < OPT_MEASUREMENTS_MAX &&
             (nb_strcmp(run, "base") == 0 || nb_strcmp(run, "main") == 0);
    }
    if (!ok)
        return fail(err, "option -debug_at: '%s' is not GROUP:RUN:INDEX (GROUP 1.., RUN base or main, "
                         "INDEX a measurement: 0 the first, negative a warm-up), e.g. 1:main:0%s", text, "");
    if (o) {
        o->debug = true;
        o->debug_group = g;
        o->debug_run = run[0] == 'm';
        o->debug_index = index;
    }
    return NB_OK;
}

/* -debug_port COM1..COM4 or an I/O port number (the legacy ports 3F8h, 2F8h, 3E8h, 2E8h). */
static int parse_debug_port(const char *text, int64_t *port, struct option_error *err)
{
    static const char *const NAMES[] = { "COM1", "COM2", "COM3", "COM4" };
    static const int64_t PORTS[] = { 0x3F8, 0x2F8, 0x3E8, 0x2E8 };
    for (int i = 0; i < 4; i++) {
        bool same = true;
        for (int k = 0; k < 5; k++) {
            char a = text[k], b = NAMES[i][k];
            if (a >= 'a' && a <= 'z')
                a = (char)(a - 'a' + 'A');
            if (a != b) {
                same = false;
                break;
            }
            if (!a)
                break;
        }
        if (same) {
            *port = PORTS[i];
            return NB_OK;
        }
    }
    if (nb_parse_i64(text, port) && *port > 0 && *port <= 0xFFF8)
        return NB_OK;
    return fail(err, "option -debug_port: '%s' is not COM1..COM4 or an I/O port (e.g. 0x2f8)%s", text, "");
}

static void set_debug_at(struct bench_options *o, int64_t n, const char *t)
{
    (void)n;
    struct option_error unused;
    parse_debug_at(t, o, &unused); /* checked before */
}

static int parse_expect(const struct bench_options *o, const char *text, struct option_error *err)
{
    struct expectation e;
    char why[160];
    if (o->n_expect == OPT_EXPECT_MAX) {
        nb_snprintf(err->message, sizeof(err->message),
                    "option -expect: more than %d expectations for one benchmark", OPT_EXPECT_MAX);
        return NB_EINVAL;
    }
    if (!expect_parse(text, &e, why, sizeof(why)))
        return fail(err, "option -expect: %s%s", why, "");
    return NB_OK;
}

/*
 * True when `text` has the shape nb_parse_i64 accepts (sign, then decimal
 * digits or 0x and hex digits): when it still fails, the number has too many
 * digits for 64 bits, which is out of range rather than not a number.
 */
static bool integer_shaped(const char *text)
{
    if (*text == '-' || *text == '+')
        text++;
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex)
        text += 2;
    if (!*text)
        return false;
    for (; *text; text++) {
        char c = *text;
        bool digit = (c >= '0' && c <= '9') ||
                     (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        if (!digit)
            return false;
    }
    return true;
}

int bench_options_parse(struct bench_options *o, int argc, char *const *argv, unsigned scope,
                        struct option_error *err)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0' || arg[1] == '-') {
            if (arg[0] == '-' && arg[1] == '-')
                return fail(err, "option %s: options take a single dash (nanoBench style)%s", arg, "");
            return fail(err, "unexpected argument '%s' (options start with '-')%s", arg, "");
        }
        const struct option_def *def;
        if (lookup(arg + 1, scope, &def, err) != NB_OK)
            return NB_EINVAL;
        int64_t number = 0;
        const char *text = NULL;
        if (def->kind != VALUE_NONE) {
            if (i + 1 >= argc)
                return fail(err, "option -%s needs a value%s", def->name, "");
            text = argv[++i];
            if (def->kind == VALUE_INT) {
                bool parsed = nb_parse_i64(text, &number);
                if (!parsed && !integer_shaped(text))
                    return fail(err, "option -%s: '%s' is not a whole number", def->name, text);
                if (!parsed || number < def->min || number > def->max) {
                    char range[64];
                    nb_snprintf(range, sizeof(range), "%lld..%lld", (long long)def->min,
                                (long long)def->max);
                    nb_snprintf(err->message, sizeof(err->message),
                                "option -%s: %s is out of range (%s)", def->name, text, range);
                    return NB_EINVAL;
                }
            } else if (def->apply == set_finish) {
                if (parse_finish(text, &number, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_freq) {
                if (parse_freq(text, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_asm_syntax) {
                if (parse_asm_syntax(text, &number, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_mica) {
                if (parse_mica(text, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_debug_port) {
                if (parse_debug_port(text, &number, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_debug_at) {
                if (parse_debug_at(text, NULL, err) != NB_OK)
                    return NB_EINVAL;
            } else if (def->apply == set_expect) {
                if (parse_expect(o, text, err) != NB_OK)
                    return NB_EINVAL;
            } else if (text[0] == '\0') {
                return fail(err, "option -%s: empty value%s", def->name, "");
            }
        }
        def->apply(o, number, text);
    }
    return NB_OK;
}

int bench_options_validate(const struct bench_options *o, struct option_error *err)
{
    for (int p = 0; p < PART_COUNT; p++) {
        if (o->asm_text[p] && o->code_path[p])
            return fail(err, "options %s and %s cannot be used together",
                        code_part_asm_option((enum code_part)p),
                        code_part_code_option((enum code_part)p));
    }
    /* nanoBench's cycle-by-cycle mode has neither (its cycleByCycle.py takes no such option). */
    if (o->cycle_by_cycle && o->fixed_counters)
        return fail(err, "option -%s is not available with -cycle_by_cycle%s", "fixed_counters", "");
    if (o->cycle_by_cycle && o->msr_config_path)
        return fail(err, "option -%s is not available with -cycle_by_cycle%s", "msr_config", "");
    if (o->cycle_by_cycle && o->metrics)
        return fail(err, "option -%s is not available with -cycle_by_cycle%s", "metrics", "");
    if (!o->cycle_by_cycle && (o->end_to_end || o->cycles_csv_path || o->cycles_html_path))
        return fail(err, "option -%s only applies to -cycle_by_cycle%s",
                    o->end_to_end ? "end_to_end" : o->cycles_csv_path ? "csv" : "html", "");
    return NB_OK;
}

const char *code_part_asm_option(enum code_part part)
{
    static const char *const names[PART_COUNT] = { "-asm_one_time_init", "-asm_init",
                                                    "-asm_late_init", "-asm" };
    return names[part];
}

const char *code_part_code_option(enum code_part part)
{
    static const char *const names[PART_COUNT] = { "-code_one_time_init", "-code_init",
                                                    "-code_late_init", "-code" };
    return names[part];
}

const char *code_part_name(enum code_part part)
{
    static const char *const names[PART_COUNT] = { "one-time init", "init", "late init",
                                                    "main code" };
    return names[part];
}
