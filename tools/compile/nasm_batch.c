/*
 * nasm_batch.c — one nasm run per suite (see nasm_batch.h).
 */
#define _GNU_SOURCE
#include "nasm_batch.h"
#include "asm_translate.h"
#include "asm_job.h"
#include "host_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Builds the nasm source for jobs[first..last); returns 0 or -1 (errors printed if report_errors). */
static int build_source(struct asm_job *jobs, size_t first, size_t last, char **src, size_t *len,
                        bool report_errors)
{
    int failed = 0;
    for (size_t i = first; i < last; i++) {
        char err[600], scope[32];
        /* Every part starts in the mode nanoBench assembles in, whatever the last one set. */
        asm_text_append(src, len, "bits 64\ndefault rel\n");
        asm_text_append(src, len, "__nb_start_%zu:\n%%line 0+1 nb%zu.%d\n", i, i, (int)jobs[i].part);
        snprintf(scope, sizeof(scope), "p%zu", i);
        if (asm_translate(jobs[i].text, scope, src, len, err, sizeof(err)) != 0) {
            failed = -1;
            if (report_errors) {
                asm_job_print_location(&jobs[i]);
                fprintf(stderr, "%s %s\n", code_part_asm_option(jobs[i].part), err);
            }
        }
        asm_text_append(src, len, "%%line 0+1 nb-internal\n__nb_end_%zu:\n", i);
    }
    asm_text_append(src, len, "align 8, db 0\n__nb_table:\n");
    for (size_t i = first; i < last; i++)
        asm_text_append(src, len, "dq __nb_start_%zu, __nb_end_%zu\n", i, i);
    return failed;
}

/* Rewrites "nbJ.P:LINE: error: text" as a message naming benchmark, option and statement. */
static void report_nasm_output(struct asm_job *jobs, size_t n_jobs, const char *output)
{
    const char *next = output;
    while (next && *next) {
        const char *eol = strchr(next, '\n');
        char line[1024];
        size_t len = asm_strip_scope_prefixes(next, eol ? (size_t)(eol - next) : strlen(next), line,
                                         sizeof(line));
        next = eol ? eol + 1 : NULL;
        size_t job, lineno;
        int part, consumed = 0;
        if (sscanf(line, "nb%zu.%d:%zu: %n", &job, &part, &lineno, &consumed) == 3 && consumed &&
            job < n_jobs) {
            char statement[160];
            asm_statement(jobs[job].text, (unsigned)lineno, statement, sizeof(statement));
            asm_job_print_location(&jobs[job]);
            fprintf(stderr, "%s statement %zu '%s': %.*s\n", code_part_asm_option(jobs[job].part),
                    lineno, statement, (int)(len - (size_t)consumed), line + consumed);
        } else if (len > 0) {
            fprintf(stderr, "nanobench: nasm: %.*s\n", (int)len, line);
        }
    }
}

/* Runs nasm; returns its exit status (or -1), with its messages in *output. */
static int run_nasm(const char *src_path, const char *bin_path, const char *err_path, char **output)
{
    char *const argv[] = { "nasm", "-f", "bin", "-w-other", "-o", (char *)bin_path, (char *)src_path, NULL };
    return asm_run_tool(argv, err_path, "nasm", output);
}

/* Assembles jobs[first..last) in one nasm run; returns 0 on success. */
static int assemble_range(struct asm_job *jobs, size_t n_jobs, size_t first, size_t last,
                          const char *workdir, bool report_errors)
{
    char *src = NULL;
    size_t len = 0;
    if (build_source(jobs, first, last, &src, &len, report_errors) != 0) {
        free(src);
        return -1;
    }
    char *src_path = host_path_join(workdir, "suite.asm");
    char *bin_path = host_path_join(workdir, "suite.bin");
    char *err_path = host_path_join(workdir, "nasm.log");
    char *output = NULL;
    int rc = -1;
    if (host_write_file(src_path, src, len) != 0) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", src_path, strerror(errno));
        goto out;
    }
    int status = run_nasm(src_path, bin_path, err_path, &output);
    if (status != 0) {
        if (report_errors)
            report_nasm_output(jobs, n_jobs, output ? output : "nasm failed\n");
        goto out;
    }
    if (output)
        report_nasm_output(jobs, n_jobs, output); /* warnings of a successful run */
    size_t bin_len;
    uint8_t *bin = (uint8_t *)host_read_file(bin_path, &bin_len);
    size_t table = 16 * (last - first);
    if (!bin || bin_len < table) {
        fprintf(stderr, "nanobench: nasm produced no usable output in %s\n", bin_path);
        free(bin);
        goto out;
    }
    const uint64_t *offsets = (const uint64_t *)(bin + bin_len - table);
    for (size_t i = first; i < last; i++) {
        uint64_t start = offsets[2 * (i - first)], end = offsets[2 * (i - first) + 1];
        jobs[i].len = (size_t)(end - start);
        jobs[i].bytes = malloc(jobs[i].len ? jobs[i].len : 1);
        memcpy(jobs[i].bytes, bin + start, jobs[i].len);
    }
    free(bin);
    rc = 0;
out:
    free(output);
    free(src);
    free(src_path);
    free(bin_path);
    free(err_path);
    return rc;
}

int nasm_assemble(struct asm_job *jobs, size_t n, const char *workdir)
{
    return asm_assemble_batched(jobs, n, workdir, assemble_range);
}
