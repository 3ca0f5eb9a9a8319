/*
 * nb_compile.c — the host half of tools/nanobench: validates a command line
 * or suite file with the same parsers the image uses, assembles all -asm*
 * snippets (one GNU as run; one nasm run for -asm_syntax nasm) and writes
 * the staging tree for the image:
 *
 *   OUTDIR/nanobench/suite.nb         compiled suite (target options only)
 *   OUTDIR/nanobench/code/code.bin    every benchmark's code (suite.nb: -code code/code.bin:OFFSET:LENGTH)
 *   OUTDIR/cli.env                    settings for the shell driver
 *
 * usage: nb_compile OUTDIR [nanoBench options...]
 * Exit status: 0 ok, 2 bad input (every problem is printed, each naming the
 * benchmark, the option and the file line).
 */
#define _GNU_SOURCE
#include "bench_options.h"
#include "bench_run.h" /* BENCH_AREA_SIZE */
#include "config_check.h"
#include "gas_batch.h"
#include "host_checks.h"
#include "host_file.h"
#include "nasm_batch.h"
#include "nb_arena.h"
#include "nb_plan.h"
#include "plan_cpu_names.h"
#include "nb_version.h"
#include "suite.h"
#include "suite_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SINGLE_NAME "benchmark"
/*
 * The highest processor QEMU's q35 machine boots as the CLI starts it: 255
 * processors, APIC IDs 0..254 (from 256 QEMU wants x2APIC with interrupt
 * remapping: "current -smp configuration requires kernel irqchip and X2APIC
 * API support"; its q35 limit, 288, is never reached).
 */
#define QEMU_MAX_CPU 254

struct bench {
    const char *name;
    char *where; /* "file:line", NULL for the command line */
    unsigned line; /* line in the user's suite file, 0 for the command line */
    struct bench_options o;
    bool ok;
    uint8_t *code[PART_COUNT];
    size_t code_len[PART_COUNT];
    bool has_code[PART_COUNT];
    char *config;      /* contents of the -config file */
    size_t config_len;
    const char *config_file; /* its path as opened, for messages */
    char *msr_config;  /* contents of the -msr_config file */
    size_t msr_config_len;
    const char *msr_config_file;
};

struct input_file;

struct compile {
    const char *outdir;
    struct bench_options cli;
    char **cli_bench_args; /* command-line options that apply to every benchmark */
    int n_cli_bench_args;
    const char *suite_dir; /* base for the relative paths of suite lines */
    struct input_file *inputs; /* files read so far (read_input) */
    size_t n_inputs;
    struct bench *benches;
    size_t n;
    int errors;
    enum nb_finish_action finish;
    bool serve; /* -serve on the command line or in the suite: the image serves requests after it */
};

static void error_at(struct compile *c, const struct bench *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error_at(struct compile *c, const struct bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (b && c->cli.suite_path && strcmp(b->name, "defaults") == 0)
        fprintf(stderr, "nanobench: defaults (%s): ", b->where);
    else if (b && c->cli.suite_path)
        fprintf(stderr, "nanobench: benchmark '%s' (%s): ", b->name, b->where);
    else
        fprintf(stderr, "nanobench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    c->errors++;
}

/* Host settings that only the command line may give (parse_command_line takes them out). */
static bool has_command_line_only(const struct bench_options *o)
{
    return o->suite_path || o->image_path || o->results_dir || o->icount >= 0 || o->plan ||
           o->plan_cpu;
}

#define COMMAND_LINE_ONLY \
    "options -suite, -image, -results, -icount, -plan and -plan_cpu belong on the command line"

/*
 * Options for one benchmark: command line first, then the suite line (which
 * wins). own_argc: the line's own words at the end of argv (the defaults
 * before them were checked on their own line).
 */
static bool parse_bench(struct compile *c, struct bench *b, int argc, char **argv, int own_argc)
{
    struct option_error err;
    bench_options_init(&b->o);
    if (bench_options_parse(&b->o, c->n_cli_bench_args, c->cli_bench_args,
                            SCOPE_HOST | SCOPE_TARGET, &err) != NB_OK ||
        bench_options_parse(&b->o, argc, argv, SCOPE_HOST | SCOPE_TARGET, &err) != NB_OK ||
        bench_options_validate(&b->o, &err) != NB_OK) {
        error_at(c, b, "%s", err.message);
        return false;
    }
    struct bench_options own;
    bench_options_init(&own);
    if (own_argc > 0 &&
        bench_options_parse(&own, own_argc, argv + (argc - own_argc), SCOPE_HOST | SCOPE_TARGET,
                            &err) == NB_OK && has_command_line_only(&own)) {
        error_at(c, b, COMMAND_LINE_ONLY);
        return false;
    }
    if (b->o.qemu_icount >= 0) {
        error_at(c, b, "option -qemu_icount is set by the CLI from -icount (it tells the image it "
                       "runs under QEMU -icount); do not give it yourself");
        return false;
    }
    /* The image's "if icount=N" checks hold only in the QEMU run the CLI starts itself. */
    if (c->cli.icount >= 0 && !c->cli.image_path)
        b->o.qemu_icount = c->cli.icount;
    if (b->o.finish_set)
        c->finish = b->o.finish;
    if (b->o.serve)
        c->serve = true;
    return true;
}

static bool has_code(const struct bench_options *o)
{
    for (int part = 0; part < PART_COUNT; part++)
        if (o->asm_text[part] || o->code_path[part])
            return true;
    return false;
}

static void load_suite(struct compile *c)
{
    size_t size;
    char *text = host_read_file(c->cli.suite_path, &size);
    if (!text) {
        fprintf(stderr, "nanobench: cannot read suite file %s: %s\n", c->cli.suite_path,
                strerror(errno));
        c->errors++;
        return;
    }
    struct nb_arena arena;
    struct suite suite;
    int st = NB_ENOMEM;
    for (size_t arena_size = suite_arena_estimate(text, size); st == NB_ENOMEM;
         arena_size *= 2) {
        void *memory = malloc(arena_size);
        if (!memory) {
            fprintf(stderr, "nanobench: out of memory parsing %s\n", c->cli.suite_path);
            exit(2);
        }
        nb_arena_init(&arena, memory, arena_size);
        st = suite_parse(text, size, &arena, &suite);
        if (st != NB_OK)
            free(memory);
    }
    c->benches = calloc(suite.count + 1, sizeof(*c->benches));
    for (size_t i = 0; i < suite.count; i++) {
        const struct suite_entry *e = &suite.entries[i];
        struct bench *b = &c->benches[c->n];
        b->name = e->name;
        b->line = e->line;
        if (asprintf(&b->where, "%s:%u", c->cli.suite_path, e->line) < 0)
            exit(2);
        if (e->error) {
            error_at(c, b, "%s", e->error);
            continue;
        }
        if (e->is_defaults) {
            struct bench_options o;
            struct option_error err;
            bench_options_init(&o);
            if (bench_options_parse(&o, e->argc, e->argv, SCOPE_HOST | SCOPE_TARGET, &err) != NB_OK)
                error_at(c, b, "%s", err.message);
            else if (has_command_line_only(&o))
                error_at(c, b, COMMAND_LINE_ONLY);
            else if (o.finish_set)
                c->finish = o.finish;
            if (o.serve)
                c->serve = true;
            continue;
        }
        for (size_t k = 0; k < c->n; k++) {
            if (strcmp(c->benches[k].name, b->name) == 0) {
                error_at(c, b, "duplicate benchmark name (first defined at %s)",
                         c->benches[k].where);
                break;
            }
        }
        b->ok = parse_bench(c, b, e->argc, e->argv, e->own_argc);
        c->n++;
    }
    /* The arena and text stay alive: option strings point into them. */
}

/* An input file read once for every benchmark that names it (or its error). */
struct input_file {
    char *path; /* as opened: relative to the current folder or absolute */
    char *data; /* NULL: it could not be read (already reported) */
    size_t len;
    bool checked; /* its contents were checked as a config (check_config_file) */
};

/*
 * True when `text` is one of the command-line words (the option parser keeps
 * argv's pointers): such a path is the shell's, relative to the current
 * folder; a suite line's path is relative to the suite file.
 */
static bool from_command_line(const struct compile *c, const char *text)
{
    for (int i = 0; i < c->n_cli_bench_args; i++)
        if (c->cli_bench_args[i] == text)
            return true;
    return false;
}

/*
 * The contents of the file an option names, or NULL (b is then not ok). Each
 * file is read and each failure reported once, however many benchmarks name
 * it; a command-line file's error names no benchmark.
 */
static char *read_input(struct compile *c, struct bench *b, const char *option, const char *file,
                        size_t *len, const char **opened)
{
    bool command_line = from_command_line(c, file);
    char *path = command_line ? host_path_join(NULL, file) : host_path_join(c->suite_dir, file);
    for (size_t i = 0; i < c->n_inputs; i++) {
        if (strcmp(c->inputs[i].path, path) == 0) {
            free(path);
            *len = c->inputs[i].len;
            if (opened)
                *opened = c->inputs[i].path;
            b->ok &= c->inputs[i].data != NULL;
            return c->inputs[i].data;
        }
    }
    struct input_file in = { path, NULL, 0, false };
    in.data = host_read_file(path, &in.len);
    if (!in.data) {
        error_at(c, command_line ? NULL : b, "option %s: cannot read %s: %s", option, path,
                 strerror(errno));
        b->ok = false;
    }
    struct input_file *bigger = realloc(c->inputs, (c->n_inputs + 1) * sizeof(*c->inputs));
    if (!bigger) {
        perror("nanobench");
        exit(2);
    }
    c->inputs = bigger;
    c->inputs[c->n_inputs++] = in;
    *len = in.len;
    if (opened)
        *opened = in.path;
    return in.data;
}

static void load_code_files(struct compile *c, struct bench *b)
{
    for (int part = 0; part < PART_COUNT; part++) {
        if (!b->o.code_path[part])
            continue;
        size_t size;
        char *data = read_input(c, b, code_part_code_option(part), b->o.code_path[part], &size,
                                NULL);
        if (data) {
            b->code[part] = (uint8_t *)data;
            b->code_len[part] = size;
            b->has_code[part] = true;
        }
    }
}

static char *read_option_file(struct compile *c, struct bench *b, const char *option,
                              const char *file, size_t *len, const char **opened)
{
    return file ? read_input(c, b, option, file, len, opened) : NULL;
}

/*
 * The contents of a -config or -msr_config file, checked once however many
 * benchmarks name it; every problem names the user's file and line.
 */
static void check_config_file(struct compile *c, const char *path, bool msr, bool strict)
{
    for (size_t i = 0; i < c->n_inputs; i++) {
        struct input_file *in = &c->inputs[i];
        if (in->path != path || in->checked || !in->data)
            continue;
        in->checked = true;
        c->errors += msr ? config_check_msr(in->data, in->len, in->path)
                         : config_check_events(in->data, in->len, in->path, strict);
    }
}

static void load_config_files(struct compile *c, struct bench *b)
{
    b->config = read_option_file(c, b, "-config", b->o.config_path, &b->config_len, &b->config_file);
    b->msr_config = read_option_file(c, b, "-msr_config", b->o.msr_config_path, &b->msr_config_len,
                                     &b->msr_config_file);
    if (b->config)
        check_config_file(c, b->config_file, false, b->o.strict_config);
    if (b->msr_config)
        check_config_file(c, b->msr_config_file, true, b->o.strict_config);
}

/* Writes data to nanobench/configs/NAME.EXT in the staging tree; returns the image path. */
static char *stage_config(struct compile *c, const char *name, const char *ext, const char *data,
                          size_t len)
{
    char *rel, *dir = host_path_join(c->outdir, "nanobench/configs");
    if (asprintf(&rel, "configs/%s.%s", name, ext) < 0)
        exit(2);
    char *top = host_path_join(c->outdir, "nanobench");
    char *file = host_path_join(top, rel);
    if (host_make_dirs(dir) != 0 || host_write_file(file, data, len) != 0) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", file, strerror(errno));
        exit(2);
    }
    free(dir);
    free(top);
    free(file);
    return rel;
}

/*
 * Every -asm* snippet: GNU as for the benchmarks in nanoBench's dialect (one
 * as run), nasm for those with -asm_syntax nasm (one nasm run).
 */
static void assemble(struct compile *c)
{
    struct asm_job *jobs[2];
    size_t n_jobs[2] = { 0, 0 };
    for (int syntax = 0; syntax < 2; syntax++)
        jobs[syntax] = calloc(c->n * PART_COUNT + 1, sizeof(*jobs[syntax]));
    for (size_t i = 0; i < c->n; i++) {
        struct bench *b = &c->benches[i];
        int syntax = b->o.asm_syntax == ASM_SYNTAX_NASM;
        for (int part = 0; b->ok && part < PART_COUNT; part++) {
            if (!b->o.asm_text[part])
                continue;
            jobs[syntax][n_jobs[syntax]++] =
                (struct asm_job){ i, c->cli.suite_path ? b->name : NULL, b->where,
                                  (enum code_part)part, b->o.asm_text[part], NULL, 0 };
        }
    }
    char *workdir = host_path_join(c->outdir, "work");
    if (host_make_dirs(workdir) != 0) {
        fprintf(stderr, "nanobench: cannot create %s: %s\n", workdir, strerror(errno));
        exit(2);
    }
    c->errors += gas_assemble(jobs[0], n_jobs[0], workdir);
    c->errors += nasm_assemble(jobs[1], n_jobs[1], workdir);
    for (int syntax = 0; syntax < 2; syntax++) {
        for (size_t j = 0; j < n_jobs[syntax]; j++) {
            const struct asm_job *job = &jobs[syntax][j];
            struct bench *b = &c->benches[job->bench];
            if (!job->bytes) {
                b->ok = false;
                continue;
            }
            b->code[job->part] = job->bytes;
            b->code_len[job->part] = job->len;
            b->has_code[job->part] = true;
        }
        free(jobs[syntax]);
    }
    free(workdir);
}

/* The assembled code of every benchmark, in nanobench/code/. */
#define CODE_BLOB_FILE "code.bin"

static int write_outputs(struct compile *c)
{
    char *code_dir = host_path_join(c->outdir, "nanobench/code");
    char *suite_path = host_path_join(c->outdir, "nanobench/suite.nb");
    if (host_make_dirs(code_dir) != 0) {
        fprintf(stderr, "nanobench: cannot create %s: %s\n", code_dir, strerror(errno));
        return -1;
    }
    FILE *f = fopen(suite_path, "w");
    if (!f) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", suite_path, strerror(errno));
        return -1;
    }
    fprintf(f, "# compiled by tools/nanobench %s from %s\n", NB_VERSION,
            c->cli.suite_path ? c->cli.suite_path : "the command line");
    fprintf(f, "defaults: -finish %s%s\n", finish_action_name(c->finish), c->serve ? " -serve" : "");
    /*
     * Every blob in one file, each benchmark's parts as FILE:OFFSET:LENGTH
     * slices of it: the image reads one file, not one per benchmark part
     * (a FAT file read costs about as much as a short benchmark under QEMU).
     */
    char *blob_path = host_path_join(code_dir, CODE_BLOB_FILE);
    FILE *blob = fopen(blob_path, "wb");
    if (!blob) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", blob_path, strerror(errno));
        fclose(f);
        return -1;
    }
    uint64_t blob_size = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct bench *b = &c->benches[i];
        char *paths[PART_COUNT] = { 0 };
        for (int part = 0; part < PART_COUNT; part++) {
            if (!b->has_code[part])
                continue;
            if (asprintf(&paths[part], "code/" CODE_BLOB_FILE ":%llu:%llu", (unsigned long long)blob_size,
                         (unsigned long long)b->code_len[part]) < 0)
                exit(2);
            if (b->code_len[part] && fwrite(b->code[part], 1, b->code_len[part], blob) != b->code_len[part]) {
                fprintf(stderr, "nanobench: cannot write %s: %s\n", blob_path, strerror(errno));
                fclose(blob);
                fclose(f);
                return -1;
            }
            blob_size += b->code_len[part];
        }
        char *config = b->config ? stage_config(c, b->name, "cfg", b->config, b->config_len) : NULL;
        char *msr_config = b->msr_config ? stage_config(c, b->name, "msr", b->msr_config,
                                                        b->msr_config_len) : NULL;
        /* The image's errors then name the line of the user's file (kernel/suite/suite.h). */
        if (b->line)
            fprintf(f, "#line %u\n", b->line);
        suite_write_benchmark(f, b->name, &b->o, (const char *const *)paths, config, msr_config);
        free(config);
        free(msr_config);
        for (int part = 0; part < PART_COUNT; part++)
            free(paths[part]);
    }
    if (fclose(blob) != 0) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", blob_path, strerror(errno));
        fclose(f);
        return -1;
    }
    free(blob_path);
    if (fclose(f) != 0)
        return -1;
    free(code_dir);
    free(suite_path);
    return 0;
}

/* Shell-safe single-quoted value. */
static void env_line(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s='", key);
    for (const char *p = value ? value : ""; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputs("'\n", f);
}

/* One word of a bash array, single-quoted. */
static void env_word(FILE *f, const char *word)
{
    fputs(" '", f);
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

static void env_number_option(FILE *f, const char *option, int64_t value)
{
    char text[24];
    snprintf(text, sizeof(text), "%lld", (long long)value);
    env_word(f, option);
    env_word(f, text);
}

/*
 * -mica: each traced benchmark's name and the options tools/nb_mica gets
 * for its trace after the run (NB_MICA_NAME_k, the array NB_MICA_ARGS_k).
 */
static void write_mica_env(FILE *f, const struct compile *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct bench *b = &c->benches[i];
        if (!b->ok || !b->o.mica)
            continue;
        fprintf(f, "NB_MICA_NAME_%zu", k);
        env_line(f, "", b->name);
        fprintf(f, "NB_MICA_ARGS_%zu=(", k);
        env_word(f, "-mica");
        env_word(f, b->o.mica);
        env_number_option(f, "-mica_max_instructions", b->o.mica_max_instructions);
        env_number_option(f, "-mica_block_size", b->o.mica_block_size);
        env_number_option(f, "-mica_page_size", b->o.mica_page_size);
        if (b->o.mica_interval)
            env_number_option(f, "-mica_interval", b->o.mica_interval);
        if (b->o.mica_ilp_size)
            env_number_option(f, "-mica_ilp_size", b->o.mica_ilp_size);
        if (b->o.mica_itypes) {
            char *spec = host_path_join(NULL, b->o.mica_itypes);
            env_word(f, "-mica_itypes");
            env_word(f, spec);
            free(spec);
        }
        fputs(" )\n", f);
        k++;
    }
    fprintf(f, "NB_MICA_COUNT=%zu\n", k);
}

/*
 * How long the serial port may stay silent before the host stops QEMU
 * (images/qemu-run.sh --idle). The image prints a benchmark's lines when it
 * ends, and its watchdog ends every benchmark within its budget: -timeout
 * seconds of TSC time, plus 40 us per instruction -mica may single-step
 * (kernel/engine/bench_run.c). The guest's clock may run slower than the host's
 * (TCG with -icount: 16 ns per instruction interpreted, so a host that
 * interprets fewer than 62.5 M instructions per second stretches it), hence
 * IDLE_BUDGET_FACTOR; IDLE_MARGIN_S covers what no -timeout bounds: the
 * firmware's boot, the TSC and APIC-timer calibrations, -calibrate's
 * latency runs, writing -mica traces and flushing results files.
 */
#define IDLE_BUDGET_FACTOR 4
#define IDLE_MARGIN_S 60
#define IDLE_CALIBRATE_S 60
#define TRACE_STEP_BUDGET_US 40

static long long host_idle_seconds(const struct compile *c)
{
    long long worst = 0;
    bool calibrates = false;
    for (size_t i = 0; i < c->n; i++) {
        const struct bench_options *o = &c->benches[i].o;
        long long budget = o->timeout > 0 ? o->timeout : 0;
        if (o->mica)
            budget += (o->mica_max_instructions * TRACE_STEP_BUDGET_US + 999999) / 1000000;
        worst = budget > worst ? budget : worst;
        calibrates |= o->calibrate || o->metrics != NULL;
    }
    return worst * IDLE_BUDGET_FACTOR + IDLE_MARGIN_S + (calibrates ? IDLE_CALIBRATE_S : 0);
}

/*
 * -cycle_by_cycle with -csv FILE / -html FILE: where the CLI copies the
 * benchmark's run-NNNN-<name>-cycles.csv and the run's page
 * (NB_CBC_NAME_k, NB_CBC_CSV_k, NB_CBC_HTML_k; paths made absolute).
 */
static void write_cycles_env(FILE *f, const struct compile *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct bench *b = &c->benches[i];
        if (!b->ok || !b->o.cycle_by_cycle || (!b->o.cycles_csv_path && !b->o.cycles_html_path))
            continue;
        char var[32];
        snprintf(var, sizeof(var), "NB_CBC_NAME_%zu", k);
        env_line(f, var, b->name);
        char *csv = b->o.cycles_csv_path ? host_path_join(NULL, b->o.cycles_csv_path) : NULL;
        char *html = b->o.cycles_html_path ? host_path_join(NULL, b->o.cycles_html_path) : NULL;
        snprintf(var, sizeof(var), "NB_CBC_CSV_%zu", k);
        env_line(f, var, csv ? csv : "");
        snprintf(var, sizeof(var), "NB_CBC_HTML_%zu", k);
        env_line(f, var, html ? html : "");
        free(csv);
        free(html);
        k++;
    }
    fprintf(f, "NB_CBC_COUNT=%zu\n", k);
}

/*
 * The memory QEMU gets (MiB) unless QEMU_MEM says: 512, or for a suite whose
 * areas (-r14_size etc., 1 MiB each by default) need more, their total plus
 * 768 MiB for the firmware, the image and its page tables, in 256 MiB steps
 * (configs/latency.suite's 1 GiB chain boots with 2048).
 */
static long long qemu_memory_mib(const struct compile *c)
{
    long long need = 0;
    for (size_t i = 0; i < c->n; i++) {
        long long total = 0;
        for (int a = 0; a < 5; a++)
            total += c->benches[i].o.area_size[a] ? c->benches[i].o.area_size[a] : BENCH_AREA_SIZE;
        need = total > need ? total : need;
    }
    long long mib = (need + (1 << 20) - 1) >> 20;
    if (mib <= 128)
        return 512;
    return (mib + 768 + 255) / 256 * 256;
}

static int write_env(struct compile *c)
{
    char *path = host_path_join(c->outdir, "cli.env");
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    env_line(f, "NB_MODE", c->cli.suite_path ? "suite" : "single");
    env_line(f, "NB_IMAGE", c->cli.image_path);
    env_line(f, "NB_RESULTS", c->cli.results_dir);
    char icount[24] = "";
    if (c->cli.icount >= 0)
        snprintf(icount, sizeof(icount), "%lld", (long long)c->cli.icount);
    env_line(f, "NB_ICOUNT", icount);
    env_line(f, "NB_FINISH", finish_action_name(c->finish));
    env_line(f, "NB_SERVE", c->serve ? "1" : "");
    fprintf(f, "NB_BENCHMARKS=%zu\n", c->n);
    /*
     * Metric files go on the image only when a benchmark asks (the configs
     * they name are 1 MB): for -metrics, and for -calibrate, whose level
     * check takes its load-hit and walk events from them.
     */
    bool metrics = false;
    for (size_t i = 0; i < c->n; i++)
        metrics |= c->benches[i].o.metrics != NULL || c->benches[i].o.calibrate;
    fprintf(f, "NB_METRICS=%d\n", metrics);
    /*
     * QEMU gets enough processors for the highest -cpu (one boots 0.3 s
     * faster than two; QEMU_SMP asks for more, e.g. for the NMI watchdog).
     */
    long long max_cpu = -1;
    for (size_t i = 0; i < c->n; i++)
        max_cpu = c->benches[i].o.cpu > max_cpu ? c->benches[i].o.cpu : max_cpu;
    fprintf(f, "NB_SMP=%lld\n", max_cpu + 1 > 1 ? max_cpu + 1 : 1);
    fprintf(f, "NB_IDLE_SECONDS=%lld\n", host_idle_seconds(c));
    fprintf(f, "NB_MEM_MIB=%lld\n", qemu_memory_mib(c));
    write_mica_env(f, c);
    write_cycles_env(f, c);
    /* -debug_gdb: COM2 on a socket and gdb attached to it (tools/nanobench); -debug_gdb_batch: gdb's commands. */
    bool gdb = c->cli.debug_gdb;
    const char *batch = c->cli.debug_gdb_batch;
    for (size_t i = 0; i < c->n; i++) {
        gdb |= c->benches[i].o.debug_gdb;
        if (!batch && c->benches[i].o.debug_gdb_batch)
            batch = c->benches[i].o.debug_gdb_batch;
    }
    fprintf(f, "NB_GDB=%d\n", gdb);
    char *batch_path = batch ? host_path_join(NULL, batch) : NULL;
    env_line(f, "NB_GDB_BATCH", batch_path);
    free(batch_path);
    free(path);
    return fclose(f);
}

/* -plan does not boot: tell the driver to stop after compiling. */
static int write_plan_env(struct compile *c)
{
    if (host_make_dirs(c->outdir) != 0)
        return 2;
    char *path = host_path_join(c->outdir, "cli.env");
    FILE *f = fopen(path, "w");
    free(path);
    if (!f)
        return 2;
    env_line(f, "NB_MODE", "plan");
    return fclose(f) == 0 ? 0 : 2;
}

/* Splits the command line: host-only settings vs options for every benchmark. */
static void parse_command_line(struct compile *c, int argc, char **argv)
{
    struct option_error err;
    bench_options_init(&c->cli);
    if (bench_options_parse(&c->cli, argc, argv, SCOPE_HOST | SCOPE_TARGET, &err) != NB_OK) {
        fprintf(stderr, "nanobench: %s\n", err.message);
        exit(2);
    }
    /* Everything except -suite/-image/-results/-icount applies to each benchmark. */
    c->cli_bench_args = calloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++) {
        struct bench_options probe;
        bench_options_init(&probe);
        int width = (i + 1 < argc) ? 2 : 1;
        bool host_setting = false;
        /*
         * The shortest parse wins: a flag followed by a host setting
         * ("-verbose -plan") is two options, not one host setting.
         */
        for (int w = 1; w <= width; w++) {
            bench_options_init(&probe);
            if (bench_options_parse(&probe, w, argv + i, SCOPE_HOST, &err) != NB_OK)
                continue;
            if (probe.suite_path || probe.image_path || probe.results_dir || probe.icount >= 0 ||
                probe.plan || probe.plan_cpu) {
                host_setting = true;
                i += w - 1;
            }
            break;
        }
        if (!host_setting)
            c->cli_bench_args[c->n_cli_bench_args++] = argv[i];
    }
    if (c->cli.finish_set)
        c->finish = c->cli.finish;
    if (c->cli.serve)
        c->serve = true;
}

/* -image names a file to write: its folder must exist, and it must be a plain file or nothing yet. */
static void check_image_path(const char *image)
{
    struct stat st;
    if (stat(image, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nanobench: -image %s: is a folder; give the name of the image file\n",
                image);
        exit(2);
    }
    /* images/mkimage.sh moves the finished image into place: that would replace a device node. */
    if (stat(image, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "nanobench: -image %s: not a regular file; write the image to a file, "
                        "then dd it to the stick\n", image);
        exit(2);
    }
    char *dir = host_dirname(image);
    bool found = stat(dir, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nanobench: -image %s: %s %s\n", image, dir,
                found ? "is not a folder" : "does not exist");
        exit(2);
    }
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, "nanobench: -image %s: cannot write in folder %s: %s\n", image, dir,
                strerror(errno));
        exit(2);
    }
    free(dir);
}

/*
 * What the image would only find after a boot (host_checks.h): -metrics
 * groups, -mica_itypes, -expect values; with code_known, the magic bytes.
 */
static void host_checks(struct compile *c, bool code_known)
{
    const char *root = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
    for (size_t i = 0; i < c->n; i++) {
        struct bench *b = &c->benches[i];
        char why[400];
        if (!b->ok)
            continue;
        if (code_known) {
            if (host_check_magic(&b->o, b->code[PART_MAIN], b->code_len[PART_MAIN], why,
                                 sizeof(why)) != 0) {
                error_at(c, b, "%s", why);
                b->ok = false;
            }
            continue;
        }
        if (b->o.metrics && host_check_metrics(root, b->o.metrics, why, sizeof(why)) != 0) {
            error_at(c, b, "option -metrics %s: %s", b->o.metrics, why);
            b->ok = false;
        }
        if (b->o.mica_itypes && host_check_mica_itypes(b->o.mica_itypes, why, sizeof(why)) != 0) {
            error_at(c, b, "option -mica_itypes: %s", why);
            b->ok = false;
        }
        if (host_check_expect(root, &b->o, b->config, b->config_len, b->msr_config,
                              b->msr_config_len, why, sizeof(why)) != 0) {
            error_at(c, b, "%s", why);
            b->ok = false;
        }
    }
}

/* -plan: every benchmark, for the processor of -plan_cpu; nothing is built. */
static int plan(struct compile *c)
{
    struct plan_bench *pb = calloc(c->n + 1, sizeof(*pb));
    for (size_t i = 0; i < c->n; i++) {
        const struct bench *b = &c->benches[i];
        pb[i] = (struct plan_bench){ c->cli.suite_path ? b->name : NULL, &b->o, b->config,
                                     b->config_len, b->config_file, b->msr_config,
                                     b->msr_config_len, b->msr_config_file };
    }
    int st = nb_plan(&c->cli, c->cli.suite_path, pb, c->n);
    free(pb);
    return st == 0 ? write_plan_env(c) : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: nb_compile OUTDIR [nanoBench options...]\n");
        return 2;
    }
    struct compile c = { .outdir = argv[1], .finish = NB_FINISH_SHUTDOWN };
    parse_command_line(&c, argc - 2, argv + 2);
    if (c.cli.plan_cpu && strcmp(c.cli.plan_cpu, "list") == 0) {
        plan_cpu_list(getenv("NB_ROOT") ? getenv("NB_ROOT") : ".", stdout);
        return write_plan_env(&c);
    }
    if (c.cli.plan_cpu && !c.cli.plan && c.cli.image_path) {
        fprintf(stderr, "nanobench: -plan_cpu %s prints the counter plan for that processor and "
                        "builds nothing, as -plan does; an image finds its processor when it boots: "
                        "drop -plan_cpu to write %s\n", c.cli.plan_cpu, c.cli.image_path);
        return 2;
    }
    if (c.cli.image_path)
        check_image_path(c.cli.image_path);

    if (c.cli.suite_path) {
        /* A suite from a pipe (-suite <(...)) has no folder of its own: then the current one. */
        struct stat st;
        bool regular = stat(c.cli.suite_path, &st) == 0 && S_ISREG(st.st_mode);
        c.suite_dir = regular ? host_dirname(c.cli.suite_path) : "";
        load_suite(&c);
        if (c.n == 0 && c.errors == 0 && !c.serve) {
            fprintf(stderr, "nanobench: suite %s has no benchmarks\n", c.cli.suite_path);
            return 2;
        }
    } else if (c.cli.serve && !has_code(&c.cli)) {
        /* -serve without code: no benchmark at boot, only the requests. */
        c.suite_dir = ".";
        c.n = 0;
    } else {
        c.suite_dir = ".";
        c.benches = calloc(1, sizeof(*c.benches));
        c.benches[0].name = SINGLE_NAME;
        c.benches[0].ok = parse_bench(&c, &c.benches[0], 0, NULL, 0);
        c.n = 1;
    }
    for (size_t i = 0; i < c.n; i++) {
        if (c.benches[i].ok) {
            load_code_files(&c, &c.benches[i]);
            load_config_files(&c, &c.benches[i]);
        }
    }
    host_checks(&c, false);
    if (c.cli.plan || c.cli.plan_cpu)
        return c.errors ? 2 : plan(&c);
    /* A stick image may name any processor; QEMU has at most QEMU_MAX_CPU + 1. */
    for (size_t i = 0; !c.cli.image_path && i < c.n; i++) {
        struct bench *b = &c.benches[i];
        if (b->ok && b->o.cpu > QEMU_MAX_CPU) {
            error_at(&c, b, "option -cpu %lld: QEMU's q35 machine boots at most %d processors 0..%d "
                     "(beyond APIC ID %d it needs x2APIC interrupt remapping); -image FILE writes "
                     "an image for a machine that has it", (long long)b->o.cpu, QEMU_MAX_CPU + 1,
                     QEMU_MAX_CPU, QEMU_MAX_CPU);
            b->ok = false;
        }
    }
    assemble(&c);
    host_checks(&c, true);
    if (c.errors) {
        fprintf(stderr, "nanobench: %d error%s; nothing was run\n", c.errors, c.errors == 1 ? "" : "s");
        return 2;
    }
    if (write_outputs(&c) != 0 || write_env(&c) != 0)
        return 2;
    return 0;
}
