/*
 * asm_job.h — what the two assemblers of -asm* text (gas_batch.h for GNU as,
 * nasm_batch.h for nasm) share: growing a source text, naming a job's
 * benchmark in messages, undoing the scope prefixes that keep each part's
 * labels its own, and running the assembler with its messages in a file.
 */
#ifndef ASM_JOB_H
#define ASM_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "nasm_batch.h"

/* Appends printf-style text to a malloc'd buffer (exits on memory failure, as the CLI does). */
void asm_text_append(char **out, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "nanobench: benchmark 'NAME' (FILE:LINE): " (or "nanobench: ") on stderr, before a message. */
void asm_job_print_location(const struct asm_job *j);

/* A message line without the scope prefixes of renamed names ("__nb_p3_loop" -> "loop"). */
size_t asm_strip_scope_prefixes(const char *line, size_t len, char *buf, size_t cap);

/*
 * Runs argv (argv[0] found on PATH) with its stderr in err_path, read back
 * into *output; returns its exit status, or -1. `package` names what to
 * install when the program is missing.
 */
int asm_run_tool(char *const argv[], const char *err_path, const char *package, char **output);

/* One assembler run over jobs[first..last); 0 on success (errors printed if report_errors). */
typedef int (*asm_range_fn)(struct asm_job *jobs, size_t n_jobs, size_t first, size_t last,
                            const char *workdir, bool report_errors);

/*
 * Every job in one run; only when that fails, one run per benchmark, so that
 * each error names the right benchmark. Returns how many benchmarks failed.
 */
int asm_assemble_batched(struct asm_job *jobs, size_t n, const char *workdir, asm_range_fn range);

#endif
