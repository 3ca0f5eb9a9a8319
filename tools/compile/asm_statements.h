/*
 * asm_statements.h — splits nanoBench's assembler text into statements.
 *
 * Statements end at ';' and newlines outside quotes; '#' outside quotes
 * starts a comment up to the end of the line (as in gas, a ';' after it is
 * part of the comment). nanoBench's repeat `N*|code|` is one statement even
 * with ';' inside; expanded, it is code's statements N times, each still
 * numbered as the statement the user wrote, so messages can name it.
 */
#ifndef ASM_STATEMENTS_H
#define ASM_STATEMENTS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* More copies than this belong in -unroll_count (the text would only grow). */
#define ASM_REPEAT_MAX 100000

struct asm_stmt {
    const char *s; /* trimmed, inside the user's text */
    size_t n;
    unsigned k; /* the statement of the user's text (1-based) it comes from */
};

/*
 * The statements of text with repeats expanded: a malloc'd array in *stmts
 * (free it), *n of them. Returns 0, or -1 with "statement K 'TEXT': why" in err.
 */
int asm_statements(const char *text, struct asm_stmt **stmts, size_t *n, char *err, size_t err_cap);

/* The n-th statement (1-based) of `text`, trimmed, without its comment, into buf; "" if none. */
void asm_statement(const char *text, unsigned n, char *buf, size_t cap);

/* err = "statement K 'TEXT': " followed by the formatted reason. */
void asm_statement_error(const char *text, unsigned k, char *err, size_t err_cap, const char *fmt,
                         va_list ap) __attribute__((format(printf, 5, 0)));

static inline bool asm_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool asm_is_quote(char c)
{
    return c == '\'' || c == '"' || c == '`';
}

/* Past the string that starts at s (an unterminated one runs to end: nasm reports it). */
static inline const char *asm_skip_quoted(const char *s, const char *end)
{
    const char *p = s + 1;
    while (p < end && *p != *s)
        p++;
    return p < end ? p + 1 : end;
}

#endif
