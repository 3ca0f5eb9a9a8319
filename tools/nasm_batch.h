/*
 * nasm_batch.h — assembles every -asm* snippet of a suite with ONE nasm run.
 *
 * Each snippet is translated (asm_translate.h) and placed between two labels
 * in a single `nasm -f bin` source; a table of those labels at the end of the
 * output gives each snippet's bytes. A `%line 0+1 nbB.P` directive before each
 * snippet makes nasm name the benchmark B and part P in its messages, which
 * are rewritten to name the benchmark, the option and the statement.
 *
 * Snippets are assembled together, so two benchmarks defining the same global
 * label clash. Only when the combined run fails is each benchmark assembled
 * on its own, which both attributes every error precisely and resolves such
 * clashes.
 */
#ifndef NASM_BATCH_H
#define NASM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"

struct asm_job {
    size_t bench;           /* benchmark index (jobs of one benchmark are adjacent) */
    const char *bench_name; /* for messages; NULL in single-benchmark mode */
    const char *where;      /* "file:line" for messages, or NULL */
    enum code_part part;
    const char *text;       /* nanoBench assembler text */
    uint8_t *bytes;         /* out: malloc'd machine code */
    size_t len;             /* out */
};

/*
 * Assembles all jobs, using workdir for temporary files. Prints every error
 * to stderr and returns how many benchmarks failed (0 on success).
 */
int nasm_assemble(struct asm_job *jobs, size_t n, const char *workdir);

#endif
