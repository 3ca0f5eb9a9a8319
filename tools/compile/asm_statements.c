/*
 * asm_statements.c — statements of nanoBench's assembler text (see asm_statements.h).
 */
#include "asm_statements.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of a repeat's `N*|` at s, with N in *count; 0 if s does not start one. */
static size_t repeat_open(const char *s, const char *end, unsigned long *count)
{
    const char *p = s;
    unsigned long v = 0;
    while (p < end && isdigit((unsigned char)*p)) {
        v = v > ASM_REPEAT_MAX ? v : v * 10 + (unsigned long)(*p - '0');
        p++;
    }
    if (p == s)
        return 0;
    while (p < end && asm_is_blank(*p))
        p++;
    if (p == end || *p != '*')
        return 0;
    p++;
    while (p < end && asm_is_blank(*p))
        p++;
    if (p == end || *p != '|')
        return 0;
    *count = v;
    return (size_t)(p + 1 - s);
}

/*
 * The '|' that closes a repeat whose body starts at s: the first '|' outside
 * quotes followed by nothing but blanks up to the end of the statement, so
 * that a '|' inside (nasm's OR, a `|n` NOP) does not end it; NULL if none.
 */
static const char *repeat_close(const char *s, const char *end)
{
    for (const char *p = s; p < end;) {
        if (asm_is_quote(*p)) {
            p = asm_skip_quoted(p, end);
            continue;
        }
        if (*p == '|') {
            const char *q = p + 1;
            while (q < end && asm_is_blank(*q))
                q++;
            if (q == end || *q == ';' || *q == '\n' || *q == '#')
                return p;
        }
        p++;
    }
    return NULL;
}

typedef int (*statement_fn)(const char *s, size_t n, unsigned k, void *arg);

/* Calls fn for statement k = 1, 2, ... of text, trimmed, without its comment. */
static int for_each_statement(const char *text, statement_fn fn, void *arg)
{
    const char *end = text + strlen(text), *p = text;
    for (unsigned k = 1;; k++) {
        const char *s = p;
        while (s < end && asm_is_blank(*s))
            s++;
        unsigned long count;
        size_t open = repeat_open(s, end, &count);
        const char *close = open ? repeat_close(s + open, end) : NULL;
        const char *c = close ? close + 1 : s;
        while (c < end && *c != ';' && *c != '\n' && *c != '#')
            c = asm_is_quote(*c) ? asm_skip_quoted(c, end) : c + 1;
        const char *e = c;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        if (c < end && *c == '#')
            while (c < end && *c != '\n')
                c++;
        int rc = fn(s, (size_t)(e - s), k, arg);
        if (rc || c >= end)
            return rc;
        p = c + 1;
    }
}

void asm_statement_error(const char *text, unsigned k, char *err, size_t err_cap, const char *fmt,
                         va_list ap)
{
    char statement[160], why[300];
    asm_statement(text, k, statement, sizeof(statement));
    vsnprintf(why, sizeof(why), fmt, ap);
    snprintf(err, err_cap, "statement %u '%s': %s", k, statement, why);
}

struct expansion {
    const char *text;
    struct asm_stmt *stmts;
    size_t n, cap;
    char *err;
    size_t err_cap;
};

static int fail(struct expansion *x, unsigned k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct expansion *x, unsigned k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    asm_statement_error(x->text, k, x->err, x->err_cap, fmt, ap);
    va_end(ap);
    return -1;
}

static void push(struct expansion *x, const char *s, size_t n, unsigned k)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->stmts = realloc(x->stmts, x->cap * sizeof(*x->stmts));
        if (!x->stmts) {
            perror("nanobench: out of memory");
            exit(2);
        }
    }
    x->stmts[x->n++] = (struct asm_stmt){ s, n, k };
}

/* One user statement; a repeat's body (split at ';' and newlines) count times. */
static int expand(const char *s, size_t n, unsigned k, void *arg)
{
    struct expansion *x = arg;
    unsigned long count;
    size_t open = repeat_open(s, s + n, &count);
    if (!open) {
        push(x, s, n, k);
        return 0;
    }
    if (n - 1 < open || s[n - 1] != '|')
        return fail(x, k, "a repeat is N*|statements| (the closing '|' is missing)");
    if (count > ASM_REPEAT_MAX)
        return fail(x, k, "at most %d copies; -unroll_count makes more", ASM_REPEAT_MAX);
    const char *end = s + n - 1;
    size_t first = x->n;
    for (const char *p = s + open;;) {
        const char *c = p;
        while (c < end && *c != ';' && *c != '\n')
            c = asm_is_quote(*c) ? asm_skip_quoted(c, end) : c + 1;
        const char *a = p, *e = c;
        while (a < e && isspace((unsigned char)*a))
            a++;
        while (e > a && isspace((unsigned char)e[-1]))
            e--;
        unsigned long inner;
        if (repeat_open(a, e, &inner))
            return fail(x, k, "repeats cannot be nested; write the inner statements out");
        push(x, a, (size_t)(e - a), k);
        if (c >= end)
            break;
        p = c + 1;
    }
    size_t per_copy = x->n - first;
    if (count == 0)
        x->n = first;
    for (unsigned long copy = 1; copy < count; copy++)
        for (size_t i = 0; i < per_copy; i++)
            push(x, x->stmts[first + i].s, x->stmts[first + i].n, k);
    return 0;
}

int asm_statements(const char *text, struct asm_stmt **stmts, size_t *n, char *err, size_t err_cap)
{
    struct expansion x = { .text = text, .err = err, .err_cap = err_cap };
    int rc = for_each_statement(text, expand, &x);
    *stmts = x.stmts;
    *n = x.n;
    return rc;
}

struct find_state {
    unsigned want;
    char *buf;
    size_t cap;
};

static int find_statement(const char *s, size_t n, unsigned k, void *arg)
{
    struct find_state *f = arg;
    if (k != f->want)
        return 0;
    snprintf(f->buf, f->cap, "%.*s", (int)n, s);
    return 1;
}

void asm_statement(const char *text, unsigned n, char *buf, size_t cap)
{
    struct find_state f = { n, buf, cap };
    if (cap)
        buf[0] = '\0';
    for_each_statement(text, find_statement, &f);
}
