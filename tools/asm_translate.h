/*
 * asm_translate.h — turns nanoBench's assembler text into nasm source.
 *
 * nanoBench takes Intel syntax with ';' between statements and an extension
 * `|n` for an n-byte NOP (1 <= n <= 15). We assemble with nasm, so:
 *   - every ';' outside quotes ends a statement (one statement per line),
 *   - `|n` becomes `db` of the SDM's recommended n-byte NOP,
 *   - GNU-style size operands are accepted: `QWORD PTR [x]` -> `qword [x]`,
 *     `XMMWORD PTR` -> `oword`, `YMMWORD PTR` -> `yword`, `ZMMWORD PTR` -> `zword`.
 * Statement k of a snippet is line k of the output, so nasm's line numbers
 * point back at the statement the user wrote.
 */
#ifndef ASM_TRANSLATE_H
#define ASM_TRANSLATE_H

#include <stddef.h>

/*
 * Appends the translation of `text` to the malloc'd buffer *out (length
 * *len, grown as needed). Returns 0, or -1 with a message in err for a bad
 * `|n` statement.
 */
int asm_translate(const char *text, char **out, size_t *len, char *err, size_t err_cap);

/* The n-th statement (1-based) of `text`, trimmed, into buf; "" if none. */
void asm_statement(const char *text, unsigned n, char *buf, size_t cap);

#endif
