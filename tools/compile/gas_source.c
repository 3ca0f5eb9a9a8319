/*
 * gas_source.c — nanoBench assembler text as GNU as source (see gas_source.h).
 *
 * Two passes over the statements (asm_statements.h): collect the names the
 * part defines and refuse what cannot be assembled as nanoBench does, then
 * write one line per statement, each after a line marker.
 */
#include "gas_source.h"
#include "asm_statements.h"
#include "x86_emit.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A character of a gas symbol name. */
static bool is_sym_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static size_t sym_len(const char *s, size_t n)
{
    size_t w = 0;
    while (w < n && is_sym_char(s[w]))
        w++;
    return w;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    while (i < n && asm_is_blank(s[i]))
        i++;
    return i;
}

static bool word_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static bool in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (word_is(s, n, list[i]))
            return true;
    return false;
}

/* The length of leading label definitions ("a: 1: b:"), blanks after them included. */
static size_t leading_labels(const char *s, size_t n)
{
    size_t at = 0;
    for (;;) {
        size_t w = sym_len(s + at, n - at);
        size_t c = skip_blanks(s, n, at + w);
        if (!w || c >= n || s[c] != ':')
            return at;
        at = skip_blanks(s, n, c + 1);
    }
}

struct name {
    const char *s;
    size_t n;
};

/* Blocks a part must close itself: the rest of the suite's source follows it. */
enum block_kind { BLOCK_REPT, BLOCK_MACRO, BLOCK_IF, BLOCK_KINDS };
static const char *const BLOCK_END[BLOCK_KINDS] = { ".endr", ".endm", ".endif" };

struct gas_part {
    const char *text, *scope, *tag;
    char **out;
    size_t *len;
    char *err;
    size_t err_cap;
    struct asm_stmt *stmts;
    size_t n_stmts;
    struct name *names, *macros;
    size_t n_names, n_macros;
    int open[BLOCK_KINDS];         /* blocks open at the end of the statements so far */
    unsigned first_open[BLOCK_KINDS]; /* the statement that opened the outermost one */
};

static int fail(struct gas_part *g, unsigned k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct gas_part *g, unsigned k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    asm_statement_error(g->text, k, g->err, g->err_cap, fmt, ap);
    va_end(ap);
    return -1;
}

static void add_name(struct name **list, size_t *count, const char *s, size_t n)
{
    for (size_t i = 0; i < *count; i++)
        if ((*list)[i].n == n && memcmp((*list)[i].s, s, n) == 0)
            return;
    *list = realloc(*list, (*count + 1) * sizeof(**list));
    if (!*list) {
        perror("nanobench: out of memory");
        exit(2);
    }
    (*list)[(*count)++] = (struct name){ s, n };
}

static bool is_renamed(const struct gas_part *g, const char *s, size_t n)
{
    for (size_t i = 0; i < g->n_names; i++)
        if (g->names[i].n == n && memcmp(g->names[i].s, s, n) == 0)
            return true;
    return false;
}

/* A name the part defines (not a gas local label "1:", not a register-like number). */
static bool own_name(const char *s, size_t n)
{
    return n > 0 && !isdigit((unsigned char)s[0]);
}

/* ---- what as must not see ---- */

static const char *const NASM_FIRST_WORDS[] = {
    "db",     "dw",     "dd",       "dq",    "dt",     "do",     "dy",   "dz",   "resb",
    "resw",   "resd",   "resq",     "rest",  "reso",   "resy",   "resz", "times", "bits",
    "default", "section", "segment", "global", "extern", "org", "incbin", "struc", "endstruc",
    "istruc", "iend",   "absolute", "use64", "use32",  "cpu",    "align", "alignb",
};

static const char *const SIZE_WORDS[] = {
    "byte", "word", "dword", "qword", "tword", "oword", "yword", "zword", "fword", "tbyte",
    "mmword", "xmmword", "ymmword", "zmmword",
};

static const char *const PLACEMENT_DIRECTIVES[] = {
    ".section", ".text", ".data", ".bss", ".rodata", ".pushsection", ".popsection", ".previous",
    ".subsection", ".org",
};


/* The kind of block the directive (w bytes at s) opens, or BLOCK_KINDS. */
static enum block_kind block_opened(const char *s, size_t w)
{
    if (word_is(s, w, ".rept") || word_is(s, w, ".irp") || word_is(s, w, ".irpc"))
        return BLOCK_REPT;
    if (word_is(s, w, ".macro"))
        return BLOCK_MACRO;
    if (w >= 3 && strncasecmp(s, ".if", 3) == 0)
        return BLOCK_IF;
    return BLOCK_KINDS;
}

const char *gas_nasm_construct(const char *s, size_t n)
{
    static char what[96];
    size_t r = leading_labels(s, n);
    if (r < n && s[r] == '%') {
        size_t w = sym_len(s + r + 1, n - r - 1);
        snprintf(what, sizeof(what), "nasm's %%%.*s", (int)(w < 40 ? w : 40), s + r + 1);
        return what;
    }
    size_t w = sym_len(s + r, n - r);
    if (in_list(s + r, w, NASM_FIRST_WORDS, ARRAY_SIZE(NASM_FIRST_WORDS))) {
        snprintf(what, sizeof(what), "nasm's %.*s", (int)w, s + r);
        return what;
    }
    size_t b = skip_blanks(s, n, r + w);
    if (w && word_is(s + b, sym_len(s + b, n - b), "equ"))
        return "nasm's NAME equ VALUE (gas: .set NAME, VALUE)";
    /* Operands: `qword [x]` without PTR, `[rel x]`. */
    for (size_t i = r + w; i < n;) {
        if (asm_is_quote(s[i])) {
            i = (size_t)(asm_skip_quoted(s + i, s + n) - s);
            continue;
        }
        if (s[i] == '[') {
            size_t a = skip_blanks(s, n, i + 1);
            size_t t = sym_len(s + a, n - a);
            if (word_is(s + a, t, "rel") || word_is(s + a, t, "abs"))
                return "nasm's [rel x] (gas: [rip + x])";
            i++;
            continue;
        }
        size_t t = sym_len(s + i, n - i);
        if (!t) {
            i++;
            continue;
        }
        if ((i == 0 || !is_sym_char(s[i - 1])) && in_list(s + i, t, SIZE_WORDS, ARRAY_SIZE(SIZE_WORDS))) {
            size_t a = skip_blanks(s, n, i + t);
            if (a < n && s[a] == '[') {
                snprintf(what, sizeof(what), "nasm's %.*s [x] (as reads it as a number + [x]; gas: "
                         "%.*s PTR [x])", (int)t, s + i, (int)t, s + i);
                return what;
            }
        }
        i += t;
    }
    return NULL;
}

/* Pass 1: the names stmts[i] defines; refuses what as must not see. */
static int scan_statement(struct gas_part *g, size_t i)
{
    const char *s = g->stmts[i].s;
    size_t n = g->stmts[i].n;
    unsigned k = g->stmts[i].k;
    if (n > 0 && s[0] == '|')
        return 0;
    const char *nasm = gas_nasm_construct(s, n);
    if (nasm)
        return fail(g, k, "%s: -asm* is GNU as's .intel_syntax noprefix, as in nanoBench; "
                          "rewrite it, or give -asm_syntax nasm", nasm);
    size_t at = 0;
    for (;;) {
        size_t w = sym_len(s + at, n - at);
        size_t c = skip_blanks(s, n, at + w);
        if (!w || c >= n || s[c] != ':')
            break;
        if (own_name(s + at, w))
            add_name(&g->names, &g->n_names, s + at, w);
        at = skip_blanks(s, n, c + 1);
    }
    size_t w = sym_len(s + at, n - at);
    if (word_is(s + at, w, ".end"))
        return fail(g, k, ".end would end the assembly of the whole suite; leave it out");
    if (in_list(s + at, w, PLACEMENT_DIRECTIVES, ARRAY_SIZE(PLACEMENT_DIRECTIVES)))
        return fail(g, k, "the harness places the code, so %.*s cannot be used; put data inline "
                          "(.byte/.quad, jumped over) or store it through R14 in -asm_init",
                    (int)w, s + at);
    enum block_kind kind = block_opened(s + at, w);
    if (kind != BLOCK_KINDS && g->open[kind]++ == 0)
        g->first_open[kind] = k;
    for (int e = 0; e < BLOCK_KINDS; e++)
        if (word_is(s + at, w, BLOCK_END[e]) && g->open[e] > 0)
            g->open[e]--;
    size_t b = skip_blanks(s, n, at + w);
    if (word_is(s + at, w, ".set") || word_is(s + at, w, ".equ") || word_is(s + at, w, ".equiv") ||
        word_is(s + at, w, ".eqv")) {
        size_t v = sym_len(s + b, n - b);
        if (own_name(s + b, v))
            add_name(&g->names, &g->n_names, s + b, v);
    } else if (word_is(s + at, w, ".macro")) {
        size_t v = sym_len(s + b, n - b);
        if (v)
            add_name(&g->macros, &g->n_macros, s + b, v);
    } else if (w && own_name(s + at, w) && b < n && s[b] == '=' && (b + 1 >= n || s[b + 1] != '=')) {
        add_name(&g->names, &g->n_names, s + at, w);
    }
    return 0;
}

static void append(struct gas_part *g, const char *s, size_t n)
{
    *g->out = realloc(*g->out, *g->len + n + 1);
    if (!*g->out) {
        perror("nanobench: out of memory");
        exit(2);
    }
    memcpy(*g->out + *g->len, s, n);
    *g->len += n;
    (*g->out)[*g->len] = '\0';
}

static void appendf(struct gas_part *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void appendf(struct gas_part *g, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n > 0)
        append(g, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* `|n`: the SDM's n-byte NOP as .byte. */
static int put_nop(struct gas_part *g, size_t i)
{
    const char *s = g->stmts[i].s;
    size_t n = g->stmts[i].n, p = skip_blanks(s, n, 1), d = p;
    long count = 0;
    while (d < n && d - p < 3 && isdigit((unsigned char)s[d]))
        count = count * 10 + (s[d++] - '0');
    if (d == p || d != n || count < 1 || count > X86_NOP_MAX)
        return fail(g, g->stmts[i].k, "the NOP extension is |n with 1 <= n <= 15");
    uint8_t nop[X86_NOP_MAX];
    x86_nop_bytes(nop, (unsigned)count);
    append(g, ".byte ", 6);
    for (long b = 0; b < count; b++)
        appendf(g, "%s0x%02x", b ? ", " : "", nop[b]);
    return 0;
}

/* The statement with the part's names renamed; the mnemonic (first word after labels) stays. */
static void put_renamed(struct gas_part *g, const char *s, size_t n)
{
    size_t labels = leading_labels(s, n);
    size_t first = sym_len(s + labels, n - labels);
    size_t after_first = skip_blanks(s, n, labels + first);
    bool assignment = after_first < n && s[after_first] == '=';
    for (size_t i = 0; i < n;) {
        if (asm_is_quote(s[i]) && s[i] != '`') {
            size_t e = (size_t)(asm_skip_quoted(s + i, s + n) - s);
            append(g, s + i, e - i);
            i = e;
            continue;
        }
        size_t t = sym_len(s + i, n - i);
        if (!t || s[i] == '\\') {
            append(g, s + i, 1);
            i++;
            continue;
        }
        bool mnemonic = i == labels && !assignment;
        bool macro_arg = i > 0 && s[i - 1] == '\\';
        if (!mnemonic && !macro_arg && is_renamed(g, s + i, t))
            appendf(g, "__nb_%s_", g->scope);
        append(g, s + i, t);
        i += t;
    }
}

int gas_source(const char *text, const char *scope, const char *tag, char **out, size_t *len,
               char *err, size_t err_cap)
{
    struct gas_part g = { .text = text, .scope = scope, .tag = tag, .out = out, .len = len,
                          .err = err, .err_cap = err_cap };
    int rc = asm_statements(text, &g.stmts, &g.n_stmts, err, err_cap);
    for (size_t i = 0; rc == 0 && i < g.n_stmts; i++)
        rc = scan_statement(&g, i);
    for (int e = 0; rc == 0 && e < BLOCK_KINDS; e++)
        if (g.open[e] > 0)
            rc = fail(&g, g.first_open[e], "not closed by %s in this part (each -asm* option is "
                                           "assembled alone, as in nanoBench)", BLOCK_END[e]);
    for (size_t i = 0; rc == 0 && i < g.n_stmts; i++) {
        if (g.stmts[i].n == 0)
            continue;
        appendf(&g, "# %u \"%s\"\n", g.stmts[i].k, tag);
        if (g.stmts[i].s[0] == '|')
            rc = put_nop(&g, i);
        else
            put_renamed(&g, g.stmts[i].s, g.stmts[i].n);
        append(&g, "\n", 1);
    }
    if (rc == 0)
        for (size_t i = 0; i < g.n_macros; i++)
            appendf(&g, ".purgem %.*s\n", (int)g.macros[i].n, g.macros[i].s);
    free(g.stmts);
    free(g.names);
    free(g.macros);
    return rc;
}
