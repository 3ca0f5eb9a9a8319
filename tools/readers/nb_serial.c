/*
 * nb_serial.c — turns a captured serial log of nanoBench-EFI back into the
 * results CSV (the same rows as nanobench/results/run-NNNN.csv) and reports
 * every damaged or missing line (kernel/report/serial_frame.h).
 *
 * usage: nb_serial LOG [-o OUT.csv] [-suite FILE]
 * Lines without a frame (the firmware's own output) are ignored; a new boot
 * (after a reset) restarts the line numbers. A value is never filed under
 * the wrong benchmark: after a damaged or lost line, the rows up to the
 * next [name] line are dropped (and counted), since the lost line may have
 * been that [name]. A capture of several runs (one stick booted several
 * times; a boot that resumes a run after a reset continues that run) gives
 * one CSV per run: OUT-run-NNNN.csv. With -o, each run's intact text (as
 * run-NNNN.txt has it: the -verbose tables, the machine lines) goes beside
 * its CSV as OUT.txt (OUT-run-NNNN.txt), for its results page
 * (tools/nb_serial runs tools/nb_html on them).
 *
 * A run whose log ends before its end banner ("nanoBench-EFI done:"; the
 * cable pulled, the machine reset for good) is truncated: nb_serial says
 * which benchmarks are complete, which one is partial (the last one begun:
 * its rows are left out of the CSV, never passed off as a result) and, with
 * -suite FILE (the suite the image ran), which are missing.
 *
 * Exit status: 0 when every line arrived intact and every run ended, 1 when
 * lines were damaged or lost (the CSV then lacks their rows), 2 on usage or
 * I/O errors, 3 when a run is truncated.
 */
#define _GNU_SOURCE
#include "host_file.h"
#include "nb_arena.h"
#include "serial_frame.h"
#include "suite.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One benchmark's rows: [start, end) in its run's rows. */
struct block {
    char name[128];
    long start, end;
    bool dropped; /* the benchmark ran again after a reset: the later block counts */
};

/* The CSV rows of one run, in memory until the whole log is read. */
struct run {
    char name[24]; /* "0003" from the results: line, or "boot-N" */
    char *rows;
    size_t len;
    FILE *f;
    char *text; /* the run's intact lines, unframed */
    size_t text_len;
    FILE *tf;
    struct block *blocks;
    size_t n_blocks;
    bool ended; /* its "nanoBench-EFI done:" line arrived */
};

#define MAX_RUNS 256

struct parser {
    const char *log;
    char benchmark[128];
    bool in_benchmark;
    unsigned expect;  /* next sequence number */
    bool started;
    int problems;
    unsigned dropped; /* rows dropped since the last gap */
    unsigned gap_line;
    struct run runs[MAX_RUNS];
    size_t n_runs;
    struct run *run;  /* the run the current boot belongs to */
    unsigned boots;
    bool run_resumed; /* this boot said "resumed: run N" */
    regex_t header, value, results, resumed, platform;
};

static struct run *new_run(struct parser *p, const char *name)
{
    if (p->n_runs == MAX_RUNS) {
        fprintf(stderr, "nb_serial: %s: more than %d runs in one capture\n", p->log, MAX_RUNS);
        exit(2);
    }
    struct run *r = &p->runs[p->n_runs++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->f = open_memstream(&r->rows, &r->len);
    r->tf = open_memstream(&r->text, &r->text_len);
    if (!r->f || !r->tf) {
        perror("nb_serial");
        exit(2);
    }
    return r;
}

static struct run *find_run(struct parser *p, const char *name)
{
    for (size_t i = 0; i < p->n_runs; i++) {
        if (strcmp(p->runs[i].name, name) == 0)
            return &p->runs[i];
    }
    return NULL;
}

/*
 * A boot's lines name its run. "resumed: run N" continues run N of an
 * earlier boot (its rows join that CSV); "results: .../run-N.txt" names a
 * new run, and the same number seen again without "resumed:" is another
 * stick's or image's run N, kept apart as N-boot-K.
 */
static void name_run(struct parser *p, const char *name, bool resumed)
{
    struct run *same = find_run(p, name);
    if (!p->run || same == p->run)
        return;
    if (resumed && same && p->run->len == 0 && p->run == &p->runs[p->n_runs - 1]) {
        /* This boot's lines so far (its banner) join the earlier run's text. */
        fflush(p->run->tf);
        fwrite(p->run->text, 1, p->run->text_len, same->tf);
        fclose(p->run->f);
        free(p->run->rows);
        fclose(p->run->tf);
        free(p->run->text);
        p->n_runs--;
        p->run = same;
    } else if (same) {
        snprintf(p->run->name, sizeof(p->run->name), "%.4s-boot-%u", name, p->boots);
    } else {
        snprintf(p->run->name, sizeof(p->run->name), "%s", name);
    }
}

/* RFC 4180 quoting, as the image writes its CSV. */
static void csv_field(FILE *f, const char *s, size_t n)
{
    bool quote = memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n);
    if (quote)
        fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    if (quote)
        fputc('"', f);
}

/* A row as the image writes it: benchmark,event,value,min,max ("V [MIN;MAX]" is -range's). */
static void row(struct parser *p, const char *event, size_t event_len, const char *value,
                size_t value_len)
{
    FILE *f = p->run->f;
    csv_field(f, p->benchmark, strlen(p->benchmark));
    fputc(',', f);
    csv_field(f, event, event_len);
    fputc(',', f);
    const char *open = value_len > 3 && value[value_len - 1] == ']' ? memchr(value, '[', value_len) : NULL;
    const char *semi = open ? memchr(open, ';', (size_t)(value + value_len - open)) : NULL;
    if (semi && open > value && open[-1] == ' ') {
        csv_field(f, value, (size_t)(open - 1 - value));
        fputc(',', f);
        csv_field(f, open + 1, (size_t)(semi - open - 1));
        fputc(',', f);
        csv_field(f, semi + 1, (size_t)(value + value_len - 1 - semi - 1));
    } else {
        csv_field(f, value, value_len);
        fputs(",,", f);
    }
    fputc('\n', f);
}

/*
 * A [name] line starts a block. A boot that resumed a run after a reset runs
 * again whatever was not yet saved (nb_resume.h): the run's earlier block of
 * the same benchmark is dropped, as the image cut it from its files.
 */
static void start_block(struct parser *p, const char *name)
{
    struct run *r = p->run;
    long here = ftell(r->f);
    if (r->n_blocks)
        r->blocks[r->n_blocks - 1].end = here;
    for (size_t i = 0; i < r->n_blocks; i++) {
        if (strcmp(r->blocks[i].name, name) == 0)
            r->blocks[i].dropped = true;
    }
    r->blocks = realloc(r->blocks, (r->n_blocks + 1) * sizeof(*r->blocks));
    if (!r->blocks) {
        perror("nb_serial");
        exit(2);
    }
    struct block *b = &r->blocks[r->n_blocks++];
    snprintf(b->name, sizeof(b->name), "%s", name);
    b->start = b->end = here;
    b->dropped = false;
}

/* After a gap the benchmark of the next rows is unknown until a [name] line. */
static void lose_track(struct parser *p, unsigned lineno)
{
    if (p->in_benchmark) {
        p->in_benchmark = false;
        p->gap_line = lineno;
    }
}

static void report_dropped(struct parser *p)
{
    if (p->dropped)
        fprintf(stderr, "nb_serial: %s:%u: %u row%s after the damaged or lost line%s dropped: "
                        "the [name] line they belong to may be among them\n",
                p->log, p->gap_line, p->dropped, p->dropped == 1 ? "" : "s",
                p->dropped == 1 ? " was" : "s were");
    p->dropped = 0;
}

/* One intact line of the image's text. */
static void text_line(struct parser *p, char *text)
{
    regmatch_t m[3];
    char name[24];
    if (strncmp(text, "nanoBench-EFI ", 14) == 0) {
        report_dropped(p);
        p->in_benchmark = false;
        if (strncmp(text, "nanoBench-EFI done:", 19) == 0) {
            if (p->run)
                p->run->ended = true;
            return;
        }
        snprintf(name, sizeof(name), "boot-%u", ++p->boots);
        p->run = new_run(p, name);
        p->run_resumed = false;
    } else if (!p->run) {
        return; /* the capture started in the middle of a boot: no run to file rows under */
    } else if (text[0] == '\t') {
        return; /* a row of a -verbose table ("\trun 0:          208"), never a value */
    } else if (regexec(&p->resumed, text, 2, m, 0) == 0) {
        snprintf(name, sizeof(name), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), text + m[1].rm_so);
        p->run_resumed = true;
        name_run(p, name, true);
    } else if (regexec(&p->results, text, 2, m, 0) == 0) {
        snprintf(name, sizeof(name), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), text + m[1].rm_so);
        if (!p->run_resumed)
            name_run(p, name, false);
    } else if (regexec(&p->header, text, 2, m, 0) == 0) {
        report_dropped(p);
        snprintf(p->benchmark, sizeof(p->benchmark), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
                 text + m[1].rm_so);
        p->in_benchmark = true;
        start_block(p, p->benchmark);
    } else if (!p->in_benchmark && regexec(&p->platform, text, 3, m, 0) == 0) {
        /* The platform report (kernel/platform/platform_report.h): rows of the pseudo-benchmark "platform". */
        if (!p->run->n_blocks || strcmp(p->benchmark, "platform") != 0) {
            snprintf(p->benchmark, sizeof(p->benchmark), "platform");
            start_block(p, p->benchmark);
        }
        row(p, text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), text + m[2].rm_so,
            (size_t)(m[2].rm_eo - m[2].rm_so));
    } else if (strncmp(text, "lava: ", 6) == 0) {
        /* -lava_results: a LAVA job's copy of the values above it, not a row of its own. */
    } else if (strncmp(text, "error: ", 7) == 0 || regexec(&p->value, text, 3, m, 0) == 0) {
        if (!p->in_benchmark) {
            if (p->gap_line)
                p->dropped++;
        } else if (text[0] == 'e' && strncmp(text, "error: ", 7) == 0) {
            row(p, "error", 5, text + 7, strlen(text + 7));
        } else {
            row(p, text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), text + m[2].rm_so,
                (size_t)(m[2].rm_eo - m[2].rm_so));
        }
    }
}

/* The line's text goes to its run's text, then is parsed. */
static void text_line_kept(struct parser *p, char *text)
{
    text_line(p, text);
    if (p->run) {
        fputs(text, p->run->tf);
        fputc('\n', p->run->tf);
    }
}

static void line(struct parser *p, char *s, size_t len, unsigned lineno)
{
    while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    size_t text_len;
    unsigned seq;
    bool ok;
    if (!serial_unframe(s, len, &text_len, &seq, &ok))
        return; /* firmware output, or a line damaged beyond recognition */
    if (!ok) {
        fprintf(stderr, "nb_serial: %s:%u: damaged line (serial #%04u): %.*s\n", p->log, lineno, seq,
                (int)text_len, s);
        p->problems++;
        if (p->started)
            p->expect = (p->expect + 1) % SERIAL_SEQ_MODULO;
        lose_track(p, lineno);
        return;
    }
    if (seq == 0) {
        p->started = true; /* a (re)boot */
    } else if (!p->started) {
        /* The capture began after this boot's first lines. */
        fprintf(stderr, "nb_serial: %s:%u: serial lines #0000 to #%04u are missing (the capture "
                        "starts in the middle of a boot)\n", p->log, lineno, seq - 1);
        p->problems++;
        p->started = true;
    } else if (seq != p->expect) {
        unsigned last = (seq + SERIAL_SEQ_MODULO - 1) % SERIAL_SEQ_MODULO;
        if (last == p->expect)
            fprintf(stderr, "nb_serial: %s:%u: serial line #%04u is missing\n", p->log, lineno, last);
        else
            fprintf(stderr, "nb_serial: %s:%u: serial lines #%04u to #%04u are missing\n", p->log,
                    lineno, p->expect, last);
        p->problems++;
        lose_track(p, lineno);
    }
    p->expect = (seq + 1) % SERIAL_SEQ_MODULO;
    s[text_len] = '\0';
    text_line_kept(p, s);
}

/* Writes one run's text beside its CSV at `csv_path` (NAME.csv -> NAME.txt). */
static int write_text(const char *csv_path, const struct run *r)
{
    size_t stem = strlen(csv_path);
    if (stem > 4 && strcmp(csv_path + stem - 4, ".csv") == 0)
        stem -= 4;
    char *path;
    if (asprintf(&path, "%.*s.txt", (int)stem, csv_path) < 0)
        return 2;
    FILE *f = fopen(path, "w");
    int status = 0;
    if (!f || fwrite(r->text, 1, r->text_len, f) != r->text_len) {
        perror(path);
        status = 2;
    }
    if (f && fclose(f) != 0) {
        perror(path);
        status = 2;
    }
    free(path);
    return status;
}

/* Writes one run's CSV to `path` (or stdout for NULL). */
static int write_csv(const char *path, const struct run *r)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        perror(path);
        return 2;
    }
    fputs("benchmark,event,value,min,max\n", f);
    for (size_t i = 0; i < r->n_blocks; i++) {
        const struct block *b = &r->blocks[i];
        long end = i + 1 == r->n_blocks ? (long)r->len : b->end;
        /* A truncated run's last block may lack rows: not a result. */
        bool partial = !r->ended && i + 1 == r->n_blocks;
        if (!b->dropped && !partial)
            fwrite(r->rows + b->start, 1, (size_t)(end - b->start), f);
    }
    if (path && fclose(f) != 0) {
        perror(path);
        return 2;
    }
    return 0;
}

/* Appends name to a ", "-separated list. */
static void list_add(char **list, size_t *len, const char *name)
{
    size_t n = strlen(name);
    *list = realloc(*list, *len + n + 3);
    if (!*list) {
        perror("nb_serial");
        exit(2);
    }
    if (*len) {
        memcpy(*list + *len, ", ", 2);
        *len += 2;
    }
    memcpy(*list + *len, name, n + 1);
    *len += n;
}

/* The benchmark names of a suite file, in order (NULL-terminated), or NULL. */
static char **suite_names(const char *path, size_t *count)
{
    size_t size;
    char *text = host_read_file(path, &size);
    if (!text) {
        perror(path);
        exit(2);
    }
    struct nb_arena arena;
    struct suite suite;
    int st = NB_ENOMEM;
    void *memory = NULL;
    for (size_t arena_size = suite_arena_estimate(text, size); st == NB_ENOMEM; arena_size *= 2) {
        free(memory);
        memory = malloc(arena_size);
        if (!memory) {
            perror("nb_serial");
            exit(2);
        }
        nb_arena_init(&arena, memory, arena_size);
        st = suite_parse(text, size, &arena, &suite);
    }
    char **names = calloc(suite.count + 1, sizeof(*names));
    *count = 0;
    for (size_t i = 0; i < suite.count; i++)
        if (!suite.entries[i].is_defaults)
            names[(*count)++] = strdup(suite.entries[i].name);
    free(memory);
    free(text);
    return names;
}

/* A run without its end banner: complete, partial and missing benchmarks. True if truncated. */
static bool report_truncated(const char *log, const struct run *r, const char *suite_path)
{
    if (r->ended)
        return false;
    char *complete = NULL, *missing = NULL;
    size_t complete_len = 0, missing_len = 0;
    const char *partial = NULL;
    for (size_t i = 0; i < r->n_blocks; i++) {
        if (r->blocks[i].dropped || strcmp(r->blocks[i].name, "platform") == 0)
            continue;
        if (i + 1 == r->n_blocks)
            partial = r->blocks[i].name;
        else
            list_add(&complete, &complete_len, r->blocks[i].name);
    }
    fprintf(stderr, "nb_serial: %s: run %s is truncated: the log ends before its end banner "
                    "(nanoBench-EFI done:)\n", log, r->name);
    fprintf(stderr, "nb_serial: complete: %s\n", complete ? complete : "none");
    fprintf(stderr, "nb_serial: partial: %s%s\n", partial ? partial : "none",
            partial ? " (its rows are left out of the CSV)" : "");
    if (suite_path) {
        size_t n;
        char **names = suite_names(suite_path, &n);
        for (size_t k = 0; k < n; k++) {
            bool seen = false;
            for (size_t i = 0; i < r->n_blocks; i++)
                seen |= !r->blocks[i].dropped && strcmp(r->blocks[i].name, names[k]) == 0;
            if (!seen)
                list_add(&missing, &missing_len, names[k]);
            free(names[k]);
        }
        free(names);
        fprintf(stderr, "nb_serial: missing: %s\n", missing ? missing : "none");
    } else {
        fprintf(stderr, "nb_serial: missing: not known without -suite FILE (the suite the image ran)\n");
    }
    free(complete);
    free(missing);
    return true;
}

static int usage(void)
{
    fprintf(stderr, "usage: nb_serial LOG [-o OUT.csv] [-suite FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *log = NULL, *out_path = NULL, *suite_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "-suite") == 0 && i + 1 < argc)
            suite_path = argv[++i];
        else if (!log && argv[i][0] != '-')
            log = argv[i];
        else
            return usage();
    }
    if (!log)
        return usage();
    size_t size;
    char *data = host_read_file(log, &size);
    if (!data) {
        perror(log);
        return 2;
    }
    struct parser p = { .log = log };
    regcomp(&p.header, "^\\[([A-Za-z0-9_.-]+)\\]$", REG_EXTENDED);
    /* A value, with -range its "[min;max]" too (kernel/engine/bench_counters.c). */
    regcomp(&p.value, "^([^:]+): (-?[0-9]+(\\.[0-9][0-9])?( \\[-?[0-9]+(\\.[0-9][0-9])?;-?[0-9]+(\\.[0-9][0-9])?\\])?)$",
            REG_EXTENDED);
    regcomp(&p.results, "^results: nanobench/results/run-([0-9]+)\\.txt,", REG_EXTENDED);
    regcomp(&p.resumed, "^resumed: run ([0-9]+) continues", REG_EXTENDED);
    regcomp(&p.platform, "^platform: ([^ ]+) = (.*)$", REG_EXTENDED);
    unsigned lineno = 0;
    for (char *s = data; s < data + size;) {
        char *eol = memchr(s, '\n', (size_t)(data + size - s));
        size_t len = eol ? (size_t)(eol - s) : (size_t)(data + size - s);
        line(&p, s, len, ++lineno);
        s += len + 1;
    }
    report_dropped(&p);
    for (size_t i = 0; i < p.n_runs; i++) {
        fflush(p.runs[i].f);
        fflush(p.runs[i].tf);
    }
    if (!p.started || p.n_runs == 0) {
        fprintf(stderr, "nb_serial: %s: no nanoBench-EFI lines found\n", log);
        return 1;
    }
    int status = 0;
    if (p.n_runs == 1) {
        status = write_csv(out_path, &p.runs[0]);
        if (!status && out_path)
            status = write_text(out_path, &p.runs[0]);
    } else if (!out_path) {
        fprintf(stderr, "nb_serial: %s holds %zu runs: give -o OUT.csv for one CSV per run "
                        "(OUT-run-NNNN.csv)\n", log, p.n_runs);
        return 2;
    } else {
        size_t stem = strlen(out_path);
        if (stem > 4 && strcmp(out_path + stem - 4, ".csv") == 0)
            stem -= 4;
        for (size_t i = 0; i < p.n_runs && !status; i++) {
            char *path;
            if (asprintf(&path, "%.*s-run-%s.csv", (int)stem, out_path, p.runs[i].name) < 0)
                return 2;
            status = write_csv(path, &p.runs[i]);
            if (!status)
                status = write_text(path, &p.runs[i]);
            fprintf(stderr, "nb_serial: run %s: %s\n", p.runs[i].name, path);
            free(path);
        }
    }
    if (status)
        return status;
    bool truncated = false;
    for (size_t i = 0; i < p.n_runs; i++)
        truncated |= report_truncated(log, &p.runs[i], suite_path);
    return truncated ? 3 : p.problems ? 1 : 0;
}
