/*
 * asm_translate.h — turns nanoBench's assembler text into nasm source.
 *
 * nanoBench gives its text to gas (Intel syntax, no register prefix) with
 * ';' between statements and an extension `|n` for an n-byte NOP
 * (1 <= n <= 15). We assemble with nasm and accept what nanoBench users
 * paste:
 *   - every ';' or newline outside quotes ends a statement (one statement per line),
 *   - '#' outside quotes starts a comment up to the end of the line (as in
 *     gas, a ';' after it is part of the comment),
 *   - `|n` becomes `db` of the SDM's recommended n-byte NOP,
 *   - `n*|code|` is code (one or more statements) n times, as in nanoBench,
 *   - GNU-style size operands: `QWORD PTR [x]` -> `qword [x]`,
 *     `XMMWORD PTR` -> `oword`, `YMMWORD PTR` -> `yword`, `ZMMWORD PTR` -> `zword`,
 *   - gas data directives `.byte .word .short .long .int .quad` -> `db dw dw dd dd dq`
 *     (a gas octal number such as 010 keeps its value),
 *   - `[rip + N]` (nasm has no `rip`): displacement N from the end of the
 *     instruction; `[rip + label]` -> `[rel label]`,
 *   - gas local labels `N:` with references `Nb` / `Nf`.
 * Section directives are refused (the harness places the code), and so are
 * gas directives nasm spells differently, with the nasm spelling to use.
 *
 * One suite is assembled in one nasm run, so a part's names must stay its
 * own: labels and `equ` names are renamed with the part's `scope`, and the
 * `%define`-style names and `%macro`s a part defines are undone at its end.
 *
 * Statement k of a snippet is line k for nasm: the caller puts
 * `%line 0+1 NAME` before the translation, and a statement that became
 * several lines is followed by a `%line` for the next one, so nasm's
 * messages name the statement the user wrote.
 */
#ifndef ASM_TRANSLATE_H
#define ASM_TRANSLATE_H

#include <stddef.h>

#include "asm_statements.h"

/*
 * Appends the translation of `text` to the malloc'd buffer *out (length
 * *len, grown as needed). `scope` (letters and digits, unique per part in
 * one nasm source) goes into every label name. Returns 0, or -1 with
 * "statement K 'TEXT': why, and what to write instead" in err.
 */
int asm_translate(const char *text, const char *scope, char **out, size_t *len, char *err,
                  size_t err_cap);

#endif
