/*
 * gas_source.h — nanoBench's assembler text as GNU as source.
 *
 * nanoBench writes its -asm* text after `.intel_syntax noprefix` and gives
 * it to GNU as; this keeps that text as it is, one statement per line
 * (asm_statements.h: ';' and newlines end statements, '#' starts a comment,
 * `n*|code|` repeats), with only what one `as` run for a whole suite needs:
 *   - `|n` (1 <= n <= 15) becomes `.byte` of the SDM's n-byte NOP,
 *   - before each statement a line marker `# K "TAG"`, so as names the
 *     statement K the user wrote in its messages,
 *   - the part's own names (labels `name:`, `.set`/`.equ`/`.equiv`/`=`
 *     symbols) are renamed into the part's scope (`__nb_SCOPE_name`), so
 *     every part is assembled as if alone, as nanoBench assembles each of
 *     its -asm* options; `.macro`s it defines are purged at its end.
 * Refused, each with the reason: section directives (the harness places the
 * code), `.end`, a `.rept`/`.irp`/`.macro`/`.if` the part does not close
 * (the rest of the suite follows it) and nasm-only constructs (`%define`, `db`, `times`, `qword [x]`,
 * `[rel x]`, ...), whose message names -asm_syntax nasm. `qword [x]`
 * without PTR is refused although as accepts it: as reads it as 8 + [x].
 */
#ifndef GAS_SOURCE_H
#define GAS_SOURCE_H

#include <stddef.h>

/*
 * Appends the gas source of `text` to the malloc'd buffer *out (length *len).
 * scope: letters and digits, unique per part of one as source; tag: the file
 * name as's messages give the part. Returns 0, or -1 with
 * "statement K 'TEXT': why" in err.
 */
int gas_source(const char *text, const char *scope, const char *tag, char **out, size_t *len,
               char *err, size_t err_cap);

/*
 * If `stmt` (n bytes, one statement) is written in nasm's syntax, the
 * construct (e.g. "nasm's %define"); else NULL.
 */
const char *gas_nasm_construct(const char *stmt, size_t n);

#endif
