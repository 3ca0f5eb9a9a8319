/*
 * gas_batch.h — assembles every gas-dialect -asm* snippet of a suite with ONE
 * GNU as run, as nanoBench assembles each snippet (`.intel_syntax noprefix`).
 *
 * Each part goes into its own section `.text.nbJ` of one source (gas_source.h
 * writes it), so each starts at offset 0 as when assembled alone and its
 * `.align` pads the same; the bytes of part J are the contents of section
 * `.text.nbJ` of the object file as writes, exactly as nanoBench takes the
 * bytes of its object's .text. A relocation left in a part is an address the
 * object does not know: a symbol the part does not define (a typo, a label
 * of another part) is an error; an absolute address of the part's own code
 * (`mov rax, OFFSET 1f`, `.quad label`) keeps the bytes as wrote them, as in
 * nanoBench, with a warning. Messages name the benchmark, the option and the
 * statement. Only when the combined run fails is each benchmark assembled on
 * its own, to attribute every error.
 */
#ifndef GAS_BATCH_H
#define GAS_BATCH_H

#include <stddef.h>

#include "nasm_batch.h" /* struct asm_job */

/* Like nasm_assemble: prints every error, returns how many benchmarks failed. */
int gas_assemble(struct asm_job *jobs, size_t n, const char *workdir);

#endif
