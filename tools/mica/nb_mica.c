/*
 * nb_mica.c — MICA on single-step traces (lib/nb_trace_format.h): decodes
 * every trace given (or every *.trace of a results folder) and runs the
 * analyses of ../shared/MICA-SPEC.md.
 *
 * usage: see usage_text below (nb_mica -h).
 *
 * With `-- PROGRAM ARGS`, the program runs on this machine under ptrace,
 * single-stepped (tools/mica/mica_ptrace.h), into DIR/<program>.trace
 * (DIR: -o, default the current folder), which is then analysed as above.
 * -mica_max_instructions stops that trace (the program runs on untraced).
 * With -dbt the program runs under qemu-x86_64 with build/host/mica_dbt.so
 * instead (tools/mica/mica_dbt.h): no trace file, the records go straight
 * into the analyses.
 *
 * For run-NNNN-<benchmark>.trace it prints the report under "<benchmark>:",
 * appends CSV rows to DIR/run-NNNN-mica.csv and writes MICA's own files to
 * DIR/run-NNNN-mica/<benchmark>/ (other names: DIR/mica.csv, DIR/mica/<name>/).
 * A bad trace is reported and the others are still analysed. Exit status:
 * 0, 1 when a trace could not be analysed, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_file.h"
#include "mica_analyze.h"
#include "mica_dbt.h"
#include "mica_itypes.h"
#include "mica_output.h"
#include "mica_ptrace.h"
#include "mica_run.h"

struct settings {
    struct mica_options opt;
    uint64_t max_instructions;
    const char *out_dir;
    bool quiet;
    bool int3_markers;
    bool dbt;
    bool nop_mem_given;
    bool max_given;
};

/* CSV files already started in this invocation (later traces append). */
static char **csv_started;
static size_t n_csv_started;

static const char usage_text[] =
    "usage: nb_mica TRACE...|RESULTS_DIR [options]\n"
    "       nb_mica [options] [-int3_markers] -- PROGRAM [ARGS...]\n"
    "       nb_mica [options] -dbt -- PROGRAM [ARGS...]\n"
    "\n"
    "MICA's analyses of an instruction trace: the image's *.trace files (a\n"
    "results folder takes every *.trace in it), or a Linux program run here\n"
    "single-stepped under ptrace (into DIR/PROGRAM.trace), or, with -dbt, run\n"
    "under QEMU user-mode emulation with nb_mica's TCG plugin, its records\n"
    "streamed into the analyses (no trace file; millions of instructions per\n"
    "second where single-stepping does tens of thousands).\n"
    "\n"
    "  -mica LIST                 all (default) or a comma list of itypes, ilp, ilp_one,\n"
    "                             reg, stride, memfootprint, memstackdist,\n"
    "                             fullmemstackdist, ppm\n"
    "  -mica_interval S           intervals of S instructions (default: the whole run;\n"
    "                             ilp: a multiple of 200)\n"
    "  -mica_ilp_size W           window of ilp_one\n"
    "  -mica_block_size K         2^K-byte blocks (default 6)\n"
    "  -mica_page_size K          2^K-byte pages (default 12)\n"
    "  -mica_itypes FILE          itypes groups in MICA's spec-file format\n"
    "  -mica_nop_mem on|off       a NOP's memory operand (nop dword [rax]) is a read, as\n"
    "                             MICA on Pin counts it (on, default), or no access (off;\n"
    "                             always so with -dbt: QEMU makes no access for it)\n"
    "  -mica_max_instructions N   refuse longer traces, stop a capture there\n"
    "                             (default 10,000,000, with -dbt none; 0 = no limit)\n"
    "  -o DIR                     where outputs go (default: the trace's folder; with --,\n"
    "                             the current folder)\n"
    "  -q                         no report on stdout\n"
    "  -int3_markers              with --: trace only between the program's first two INT3\n"
    "  -dbt                       with --: capture through QEMU user-mode TCG (qemu-x86_64\n"
    "                             -plugin), both cores; no AVX-512; see docs/mica.md\n"
    "  -h, --help                 this text\n"
    "\n"
    "Exit status: 0; 1 when a trace or program could not be analysed; 2 on usage errors.\n";

static int usage(void)
{
    fputs(usage_text, stderr);
    return 2;
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *e;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    *v = strtoull(s, &e, 10);
    return *e == 0 && errno == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds path, or every *.trace in it when it is a folder (sorted by name). */
static int add_input(const char *path, char ***list, size_t *n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "nb_mica: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t first = *n;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            fprintf(stderr, "nb_mica: %s: %s\n", path, strerror(errno));
            return -1;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len > 6 && strcmp(e->d_name + len - 6, ".trace") == 0) {
                *list = realloc(*list, (*n + 1) * sizeof(**list));
                (*list)[(*n)++] = host_path_join(path, e->d_name);
            }
        }
        closedir(d);
        if (*n == first) {
            fprintf(stderr, "nb_mica: %s: no *.trace files in this folder\n", path);
            return -1;
        }
        qsort(*list + first, *n - first, sizeof(**list), cmp_str);
    } else {
        *list = realloc(*list, (*n + 1) * sizeof(**list));
        (*list)[(*n)++] = strdup(path);
    }
    return 0;
}

/* "run-0003-loop.trace" -> run "run-0003", bench "loop"; other names: run "", bench = stem. */
static void split_name(const char *path, char *run, size_t runlen, char *bench, size_t benchlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 6 && strcmp(base + len - 6, ".trace") == 0)
        len -= 6;
    run[0] = 0;
    size_t skip = 0;
    if (len > 9 && strncmp(base, "run-", 4) == 0) {
        size_t d = 4;
        while (d < len && base[d] >= '0' && base[d] <= '9')
            d++;
        if (d > 4 && d < len && base[d] == '-') {
            snprintf(run, runlen, "%.*s", (int)d, base);
            skip = d + 1;
        }
    }
    snprintf(bench, benchlen, "%.*s", (int)(len - skip), base + skip);
}

static FILE *open_csv(const char *path)
{
    for (size_t i = 0; i < n_csv_started; i++)
        if (strcmp(csv_started[i], path) == 0)
            return fopen(path, "a");
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "benchmark,event,value\n");
        csv_started = realloc(csv_started, (n_csv_started + 1) * sizeof(*csv_started));
        csv_started[n_csv_started++] = strdup(path);
    }
    return f;
}

/*
 * The report on stdout, the CSV rows in DIR/<run>-mica.csv (DIR/mica.csv
 * without a run) and MICA's files in DIR/<run>-mica/<bench>/. runs[1] is
 * the interval run or NULL. 0 or -1.
 */
static int write_outputs(const char *run, const char *bench, const char *dir, struct mica_run **runs,
                         const struct settings *s)
{
    char csv_path[4096], files_dir[4096], err[512];
    if (!s->quiet)
        mica_report(stdout, runs[0]);
    if (host_make_dirs(dir) != 0) {
        fprintf(stderr, "nb_mica: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(csv_path, sizeof(csv_path), "%s/%s%smica.csv", dir, run, run[0] ? "-" : "");
    snprintf(files_dir, sizeof(files_dir), "%s/%s%smica/%s", dir, run, run[0] ? "-" : "", bench);
    FILE *f = open_csv(csv_path);
    if (!f) {
        fprintf(stderr, "nb_mica: %s: %s\n", csv_path, strerror(errno));
        return -1;
    }
    mica_csv_rows(f, bench, runs[0], runs[1]);
    if (fclose(f) != 0) {
        fprintf(stderr, "nb_mica: %s: %s\n", csv_path, strerror(errno));
        return -1;
    }
    if (host_make_dirs(files_dir) != 0) {
        fprintf(stderr, "nb_mica: %s: %s\n", files_dir, strerror(errno));
        return -1;
    }
    if (mica_write_files(files_dir, runs[1] ? runs[1] : runs[0], err, sizeof(err)) != 0) {
        fprintf(stderr, "nb_mica: %s\n", err);
        return -1;
    }
    return 0;
}

/* The whole-run analyses, and with intervals a second run for the interval lines. */
static size_t new_runs(const struct settings *s, struct mica_run **runs)
{
    struct mica_options whole = s->opt;
    whole.interval = 0;
    runs[0] = mica_run_new(&whole);
    runs[1] = s->opt.interval ? mica_run_new(&s->opt) : NULL;
    return s->opt.interval ? 2 : 1;
}

static int analyse(const char *path, const struct settings *s)
{
    char run[64], bench[256], err[512];
    split_name(path, run, sizeof(run), bench, sizeof(bench));
    size_t size;
    uint8_t *buf = (uint8_t *)host_read_file(path, &size);
    if (!buf) {
        fprintf(stderr, "nb_mica: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct mica_run *runs[2];
    size_t n_runs = new_runs(s, runs);
    struct mica_trace_header h;
    int rc = mica_analyze(path, buf, size, runs, n_runs, s->max_instructions, &h, err, sizeof(err));
    free(buf);
    if (!s->quiet)
        printf("%s:\n", bench);
    if (rc < 0) {
        fprintf(stderr, "nb_mica: %s\n", err);
        if (!s->quiet)
            printf("  error: %s\n", err);
        goto out;
    }
    if (!s->quiet && h.end_reason == NB_TRACE_END_FAULT)
        printf("  (the traced code stopped on exception vector %u; the trace up to it is "
               "analysed)\n", h.vector);
    char *dir = s->out_dir ? strdup(s->out_dir) : host_dirname(path);
    rc = write_outputs(run, bench, dir, runs, s);
    free(dir);
out:
    mica_run_free(runs[0]);
    mica_run_free(runs[1]);
    return rc;
}

/* The plugin next to this executable (build/host/mica_dbt.so), or $NB_MICA_PLUGIN. */
static char *plugin_path(void)
{
    const char *env = getenv("NB_MICA_PLUGIN");
    if (env && *env)
        return strdup(env);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return strdup("mica_dbt.so");
    self[n] = 0;
    char *dir = host_dirname(self);
    char *p = host_path_join(dir, "mica_dbt.so");
    free(dir);
    return p;
}

/* nb_mica -dbt -- PROGRAM ARGS: QEMU with the plugin, records streamed into the analyses. */
static int dbt_program(char **argv, struct settings *s)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    char err[512];
    struct mica_run *runs[2];
    size_t n_runs = new_runs(s, runs);
    char *plugin = plugin_path();
    const char *qemu = getenv("NB_MICA_QEMU");
    struct mica_dbt_options o = { .max_instructions = s->max_instructions,
                                  .qemu = qemu && *qemu ? qemu : "qemu-x86_64",
                                  .plugin = plugin,
                                  .threads = 2 };
    struct mica_dbt_result res;
    int status = 0;
    if (mica_dbt_run(argv, &o, runs, n_runs, &res, err, sizeof(err)) != 0) {
        fprintf(stderr, "nb_mica: %s\n", err);
        status = 1;
        goto out;
    }
    if (!s->quiet) {
        fprintf(stderr, "nb_mica: %s: %llu instructions analysed through QEMU (DBT)\n", argv[0],
                (unsigned long long)res.instructions);
        fprintf(stderr, "nb_mica: %.2f s, %.2f M instructions/s; CPU s: QEMU %.2f, decoding %.2f, "
                "analyses %.2f + %.2f\n", res.wall,
                res.wall > 0 ? (double)res.instructions / res.wall / 1e6 : 0.0, res.cpu_qemu,
                res.cpu_reader, res.cpu_worker[0], res.n_workers > 1 ? res.cpu_worker[1] : 0.0);
    }
    if (res.too_long) {
        fprintf(stderr, "nb_mica: %s: more than -mica_max_instructions %llu instructions; the analyses "
                "stop there and the program ran on (-mica_max_instructions 0: no limit)\n", argv[0],
                (unsigned long long)s->max_instructions);
        status = 1;
    }
    if (res.killed)
        fprintf(stderr, "nb_mica: %s: killed by signal %d (%s)\n", argv[0], res.signal, strsignal(res.signal));
    else if (res.exit_status)
        fprintf(stderr, "nb_mica: %s: exit status %d\n", argv[0], res.exit_status);
    if (!s->quiet)
        printf("%s:\n", base[0] ? base : "program");
    if (write_outputs("", base[0] ? base : "program", s->out_dir ? s->out_dir : ".", runs, s) != 0)
        status = 1;
out:
    free(plugin);
    mica_run_free(runs[0]);
    mica_run_free(runs[1]);
    return status;
}

/* nb_mica -- PROGRAM ARGS: the ptrace capture into DIR/<program>.trace, then its analysis. */
static int trace_program(char **argv, struct settings *s)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!s->out_dir)
        s->out_dir = ".";
    if (host_make_dirs(s->out_dir) != 0) {
        fprintf(stderr, "nb_mica: %s: %s\n", s->out_dir, strerror(errno));
        return 1;
    }
    char name[256], err[512];
    snprintf(name, sizeof(name), "%s.trace", base[0] ? base : "program");
    char *path = host_path_join(s->out_dir, name);
    struct mica_ptrace_options po = { .max_instructions = s->max_instructions, .int3_markers = s->int3_markers };
    struct mica_ptrace_result res;
    int status = 0;
    if (mica_ptrace_run(argv, path, &po, &res, err, sizeof(err)) != 0) {
        fprintf(stderr, "nb_mica: %s\n", err);
        free(path);
        return 1;
    }
    if (!s->quiet)
        fprintf(stderr, "nb_mica: %s: %llu instructions traced into %s\n", argv[0],
                (unsigned long long)res.instructions, path);
    if (res.too_long) {
        fprintf(stderr, "nb_mica: %s: more than -mica_max_instructions %llu instructions; the trace stops "
                "there and the program ran on untraced (the trace up to it is analysed; -mica_max_instructions 0: "
                "no limit)\n", argv[0], (unsigned long long)s->max_instructions);
        status = 1;
    }
    if (res.markers_missing) {
        fprintf(stderr, "nb_mica: %s: -int3_markers: the program ended before its %s INT3\n", argv[0],
                res.instructions ? "second" : "first (or second)");
        status = 1;
    }
    if (res.killed)
        fprintf(stderr, "nb_mica: %s: killed by signal %d (%s)\n", argv[0], res.signal, strsignal(res.signal));
    else if (res.exit_status)
        fprintf(stderr, "nb_mica: %s: exit status %d\n", argv[0], res.exit_status);
    if (analyse(path, s) < 0)
        status = 1;
    free(path);
    return status;
}

int main(int argc, char **argv)
{
    struct settings s = { .max_instructions = 10000000 };
    struct mica_itypes_spec *spec = NULL;
    char **inputs = NULL, err[512];
    size_t n_inputs = 0;
    const char *list = "all";
    mica_options_default(&s.opt);
    char **program = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "nb_mica: -- needs a program to trace\n");
                return usage();
            }
            program = argv + i + 1;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "-dbt") == 0) {
            s.dbt = true;
            continue;
        }
        if (strcmp(a, "-int3_markers") == 0) {
            s.int3_markers = true;
            continue;
        }
        if (a[0] != '-') {
            if (add_input(a, &inputs, &n_inputs) < 0)
                return 2;
            continue;
        }
        if (strcmp(a, "-q") == 0) {
            s.quiet = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "nb_mica: %s needs a value\n", a);
            return usage();
        }
        i++;
        if (strcmp(a, "-mica") == 0) {
            list = v;
        } else if (strcmp(a, "-mica_nop_mem") == 0) {
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
                fprintf(stderr, "nb_mica: -mica_nop_mem %s: give on or off\n", v);
                return 2;
            }
            s.opt.nop_mem = strcmp(v, "on") == 0;
            s.nop_mem_given = true;
        } else if (strcmp(a, "-o") == 0) {
            s.out_dir = v;
        } else if (strcmp(a, "-mica_itypes") == 0) {
            size_t len;
            char *text = host_read_file(v, &len);
            if (!text) {
                fprintf(stderr, "nb_mica: %s: %s\n", v, strerror(errno));
                return 2;
            }
            int rc = mica_itypes_spec_parse(text, len, v, &spec, err, sizeof(err));
            free(text);
            if (rc != 0) {
                fprintf(stderr, "nb_mica: %s\n", err);
                return 2;
            }
            s.opt.itypes = spec;
        } else if (!parse_u64(v, &x)) {
            fprintf(stderr, "nb_mica: %s %s: not a number\n", a, v);
            return 2;
        } else if (strcmp(a, "-mica_interval") == 0) {
            if (x == 0) {
                fprintf(stderr, "nb_mica: -mica_interval 0: give a positive size\n");
                return 2;
            }
            s.opt.interval = x;
        } else if (strcmp(a, "-mica_ilp_size") == 0) {
            s.opt.ilp_size = (unsigned)(x > 1000000 ? 1000000 : x);
        } else if (strcmp(a, "-mica_block_size") == 0) {
            s.opt.block_bits = (unsigned)(x > 64 ? 64 : x);
        } else if (strcmp(a, "-mica_page_size") == 0) {
            s.opt.page_bits = (unsigned)(x > 64 ? 64 : x);
        } else if (strcmp(a, "-mica_max_instructions") == 0) {
            s.max_instructions = x;
            s.max_given = true;
        } else {
            fprintf(stderr, "nb_mica: unknown option %s\n", a);
            return usage();
        }
    }
    if ((n_inputs == 0) == !program || (s.int3_markers && !program) || (s.dbt && !program))
        return usage();
    if (s.dbt && s.int3_markers) {
        fprintf(stderr, "nb_mica: -dbt and -int3_markers: QEMU hands the INT3 to the program as SIGTRAP; "
                        "trace between markers with the ptrace capture (without -dbt)\n");
        return 2;
    }
    if (s.dbt) {
        if (s.nop_mem_given && s.opt.nop_mem) {
            fprintf(stderr, "nb_mica: -mica_nop_mem on with -dbt: QEMU makes no access for a NOP's memory "
                            "operand, so its address is unknown; use the ptrace capture (without -dbt)\n");
            return 2;
        }
        s.opt.nop_mem = false;
        if (!s.max_given)
            s.max_instructions = 0; /* no trace file to keep small */
    }
    if (mica_options_set_list(&s.opt, list, err, sizeof(err)) != 0 ||
        mica_options_check(&s.opt, err, sizeof(err)) != 0) {
        fprintf(stderr, "nb_mica: %s\n", err);
        return 2;
    }
    int status = 0;
    if (program)
        status = s.dbt ? dbt_program(program, &s) : trace_program(program, &s);
    for (size_t i = 0; i < n_inputs; i++) {
        if (analyse(inputs[i], &s) < 0)
            status = 1;
        free(inputs[i]);
    }
    free(inputs);
    mica_itypes_spec_free(spec);
    return status;
}
