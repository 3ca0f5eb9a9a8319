/*
 * nasm_batch.h — assembles every -asm* snippet of a suite with ONE nasm run.
 *
 * Each snippet is translated (asm_translate.h) and placed between two labels
 * in a single `nasm -f bin` source; a table of those labels at the end of the
 * output gives each snippet's bytes. A `%line 0+1 nbB.P` directive before each
 * snippet makes nasm name the benchmark B and part P in its messages, which
 * are rewritten to name the benchmark, the option and the statement.
 *
 * Snippets are assembled together, yet each part is assembled as if alone,
 * as nanoBench assembles each of its -asm* options: the translation renames
 * the part's labels into its own scope ("pJ") and undoes its %define-style
 * names and %macros at its end, and every part starts with `bits 64` and
 * `default rel`. Only when the combined run fails is each benchmark
 * assembled on its own, to attribute every error precisely; nasm's messages
 * show the user's label names, not the renamed ones.
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
