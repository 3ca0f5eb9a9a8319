/*
 * asm_translate.c — nanoBench assembler text to nasm (see asm_translate.h).
 *
 * Two passes over the statements (asm_statements.h): collect what the part
 * defines (labels, gas local labels, macros), then write one nasm line per
 * statement.
 */
#include "asm_translate.h"
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

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    *cap = need > 2 * *cap ? need : 2 * *cap;
    p = realloc(p, *cap * size);
    if (!p) {
        perror("nanobench: out of memory");
        exit(2);
    }
    return p;
}

static void append(char **out, size_t *len, const char *s, size_t n)
{
    *out = realloc(*out, *len + n + 1);
    if (!*out) {
        perror("nanobench: out of memory");
        exit(2);
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = '\0';
}

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '@' || c == '?';
}

static size_t word_len(const char *s, size_t n)
{
    size_t w = 0;
    while (w < n && is_word_char(s[w]))
        w++;
    return w;
}

static bool word_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    while (i < n && asm_is_blank(s[i]))
        i++;
    return i;
}

struct label {
    const char *name;
    size_t n;
    bool code; /* a place in the code (not an equ constant) */
};

struct local_def { /* a gas local label "N:" */
    unsigned long num;
    size_t at; /* index in stmts */
};

struct pp_name { /* a single-line macro name, or a multi-line macro with its parameter spec */
    const char *name, *spec;
    size_t n, spec_n;
    bool macro, icase;
};

struct xlate {
    const char *text, *scope;
    char **out;
    size_t *len;
    char *err;
    size_t err_cap;
    struct asm_stmt *stmts;
    size_t n_stmts;
    struct label *labels;
    size_t n_labels, cap_labels;
    struct local_def *locals;
    size_t n_locals, cap_locals;
    struct pp_name *pp;
    size_t n_pp, cap_pp;
    unsigned next_line; /* the number nasm gives the next output line */
    unsigned rip_ids;   /* RIP-end labels so far */
    char *line;         /* the nasm line being written */
    size_t line_len;
    bool rip_pending; /* the line needs its RIP-end label after it */
};

static int fail(struct xlate *x, unsigned k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct xlate *x, unsigned k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    asm_statement_error(x->text, k, x->err, x->err_cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- what a part defines ---- */

/* The length of a leading label definition "name:" (through the ':'), name length in *w; 0 if none. */
static size_t leading_label(const char *s, size_t n, size_t *w)
{
    *w = word_len(s, n);
    if (!*w || s[0] == '$')
        return 0;
    size_t i = skip_blanks(s, n, *w);
    return i < n && s[i] == ':' ? i + 1 : 0;
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return n > 0;
}

/* User labels, renamed into the part's scope (not nasm's .local or ..@ names, not gas local labels). */
static bool renamed_label(const char *s, size_t n)
{
    return n > 0 && s[0] != '.' && !all_digits(s, n);
}

static void add_label(struct xlate *x, const char *s, size_t n, bool code)
{
    for (size_t i = 0; i < x->n_labels; i++)
        if (x->labels[i].n == n && memcmp(x->labels[i].name, s, n) == 0)
            return;
    x->labels = grow(x->labels, &x->cap_labels, x->n_labels + 1, sizeof(*x->labels));
    x->labels[x->n_labels++] = (struct label){ s, n, code };
}

static const struct label *find_label(const struct xlate *x, const char *s, size_t n)
{
    for (size_t i = 0; i < x->n_labels; i++)
        if (x->labels[i].n == n && memcmp(x->labels[i].name, s, n) == 0)
            return &x->labels[i];
    return NULL;
}

static const char *const DEFINE_DIRECTIVES[] = {
    "define", "xdefine", "idefine", "ixdefine", "assign",  "iassign",  "defstr",
    "idefstr", "deftok", "ideftok", "defalias", "idefalias",
};
static const char *const MACRO_DIRECTIVES[] = { "macro", "imacro", "rmacro", "irmacro" };

static bool in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (word_is(s, n, list[i]))
            return true;
    return false;
}

/* A %define-style or %macro directive at s: remember its name to undo it after the part. */
static void note_pp_name(struct xlate *x, const char *s, size_t n)
{
    size_t w = word_len(s + 1, n - 1);
    bool define = in_list(s + 1, w, DEFINE_DIRECTIVES, ARRAY_SIZE(DEFINE_DIRECTIVES));
    bool macro = in_list(s + 1, w, MACRO_DIRECTIVES, ARRAY_SIZE(MACRO_DIRECTIVES));
    if (!define && !macro)
        return;
    size_t a = skip_blanks(s, n, 1 + w), name_n = word_len(s + a, n - a);
    if (!name_n)
        return; /* %$context names and the like end with their context */
    struct pp_name p = { s + a, NULL, name_n, 0, macro, tolower((unsigned char)s[1]) == 'i' };
    if (macro) {
        size_t b = skip_blanks(s, n, a + name_n), e = b;
        while (e < n && !asm_is_blank(s[e]))
            e++;
        if (e - b > 7 && strncasecmp(s + e - 7, ".nolist", 7) == 0)
            e -= 7; /* %unmacro takes the parameter counts only */
        p.spec = s + b;
        p.spec_n = e - b;
    }
    x->pp = grow(x->pp, &x->cap_pp, x->n_pp + 1, sizeof(*x->pp));
    x->pp[x->n_pp++] = p;
}

static const char *const PLACEMENT_DIRECTIVES[] = {
    "section", "segment", "absolute", "org", ".section", ".text", ".data", ".bss", ".rodata",
};

/* Pass 1: the definitions in stmts[i]; refuses section directives. */
static int scan_statement(struct xlate *x, size_t i)
{
    const char *s = x->stmts[i].s;
    size_t n = x->stmts[i].n, w;
    size_t after = leading_label(s, n, &w);
    if (after && all_digits(s, w)) {
        x->locals = grow(x->locals, &x->cap_locals, x->n_locals + 1, sizeof(*x->locals));
        x->locals[x->n_locals++] = (struct local_def){ strtoul(s, NULL, 10), i };
    } else if (after && renamed_label(s, w)) {
        add_label(x, s, w, true);
    } else if (!after && w) {
        size_t b = skip_blanks(s, n, w);
        if (renamed_label(s, w) && word_is(s + b, word_len(s + b, n - b), "equ"))
            add_label(x, s, w, false);
    }
    size_t r = skip_blanks(s, n, after);
    if (r < n && s[r] == '%')
        note_pp_name(x, s + r, n - r);
    if (r < n && s[r] == '[')
        r = skip_blanks(s, n, r + 1);
    if (in_list(s + r, word_len(s + r, n - r), PLACEMENT_DIRECTIVES,
                ARRAY_SIZE(PLACEMENT_DIRECTIVES)))
        return fail(x, x->stmts[i].k,
                    "the harness places the code, so section, segment, absolute and org "
                    "cannot be used; put data inline (db/dq or .byte/.quad, jumped over) "
                    "or store it through R14 in -asm_init");
    return 0;
}

/* ---- writing nasm ---- */

static void put(struct xlate *x, const char *s, size_t n)
{
    append(&x->line, &x->line_len, s, n);
}

static void putf(struct xlate *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct xlate *x, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    put(x, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A user label of this part: __nb_SCOPE_name (nothing the user writes starts so). */
static void put_label(struct xlate *x, const char *s, size_t n)
{
    putf(x, "__nb_%s_", x->scope);
    put(x, s, n);
}

/* The gas local label definition number d: __nb_SCOPE_N_d (user names cannot start with a digit). */
static void put_local(struct xlate *x, size_t d)
{
    putf(x, "__nb_%s_%lu_%zu", x->scope, x->locals[d].num, d);
}

/*
 * For a token "Nb" / "Nf": the definition it refers to (the nearest N: at or
 * before this statement / after it) as an index into locals; -1 when the
 * token is not such a reference (no N: and it reads as nasm's binary number,
 * as 101b does); -2 when it refers to nothing.
 */
static long local_ref(const struct xlate *x, size_t at, const char *t, size_t w)
{
    if (w < 2 || (t[w - 1] != 'b' && t[w - 1] != 'f') || !all_digits(t, w - 1) || w > 10)
        return -1;
    unsigned long num = strtoul(t, NULL, 10);
    bool any = false, binary = true;
    for (size_t j = 0; j + 1 < w; j++)
        binary &= t[j] == '0' || t[j] == '1';
    long found = -1;
    for (size_t d = 0; d < x->n_locals; d++) {
        if (x->locals[d].num != num)
            continue;
        any = true;
        if (t[w - 1] == 'b' && x->locals[d].at <= at)
            found = (long)d;
        if (t[w - 1] == 'f' && x->locals[d].at > at && found < 0)
            found = (long)d;
    }
    if (found >= 0)
        return found;
    return !any && t[w - 1] == 'b' && binary ? -1 : -2;
}

static const struct {
    const char *gnu;
    const char *nasm;
} SIZE_WORDS[] = {
    { "byte", "byte" },     { "word", "word" },     { "dword", "dword" },   { "qword", "qword" },
    { "tbyte", "tword" },   { "tword", "tword" },   { "xmmword", "oword" }, { "oword", "oword" },
    { "ymmword", "yword" }, { "zmmword", "zword" }, { "fword", "dword" },
};

/* "<size> PTR" at s (a word of length w): nasm's size word, with *used set past "PTR"; else NULL. */
static const char *size_ptr(const char *s, size_t n, size_t w, size_t *used)
{
    size_t after = skip_blanks(s, n, w);
    if (!word_is(s + after, word_len(s + after, n - after), "ptr"))
        return NULL;
    for (size_t k = 0; k < ARRAY_SIZE(SIZE_WORDS); k++) {
        if (word_is(s, w, SIZE_WORDS[k].gnu)) {
            *used = after + 3;
            return SIZE_WORDS[k].nasm;
        }
    }
    return NULL;
}

/* Whether an operand expression refers to a place in the code (a label), not a constant. */
static bool refers_to_code(const struct xlate *x, size_t at, const char *s, size_t n)
{
    for (size_t p = 0; p < n;) {
        if (asm_is_quote(s[p])) {
            p = (size_t)(asm_skip_quoted(s + p, s + n) - s);
            continue;
        }
        size_t w = word_len(s + p, n - p);
        if (!w) {
            p++;
            continue;
        }
        const char *t = s + p;
        size_t base = 0;
        while (base < w && t[base] != '.')
            base++;
        const struct label *l = find_label(x, t, base);
        if (t[0] == '.' || (l && l->code) || (isdigit((unsigned char)t[0]) && local_ref(x, at, t, w) >= 0))
            return true;
        p += w;
    }
    return false;
}

static int rewrite(struct xlate *x, size_t at, const char *s, size_t n, bool gas_octal);

/*
 * `[rip ...]` at s[*p] ('[' with `rip` ending at s[rip_end]). gas means the
 * displacement from the end of the instruction: `[rip + N]` becomes
 * `[rel E + N]` with a label E written right after the statement, so the
 * disp32 is exactly N; `[rip + label]` is nasm's `[rel label]`.
 */
static int rewrite_rip(struct xlate *x, size_t at, const char *s, size_t n, size_t *p, size_t rip_end)
{
    unsigned k = x->stmts[at].k;
    size_t close = rip_end;
    while (close < n && s[close] != ']')
        close = asm_is_quote(s[close]) ? (size_t)(asm_skip_quoted(s + close, s + n) - s) : close + 1;
    size_t a = skip_blanks(s, close, rip_end), e = close;
    while (e > a && asm_is_blank(s[e - 1]))
        e--;
    if (close == n)
        return fail(x, k, "a memory operand ends with ']'");
    if (a < e && s[a] != '+' && s[a] != '-')
        return fail(x, k, "write [rip + N], [rip - N] or [rip + label]");
    *p = close + 1;
    if (a < e && refers_to_code(x, at, s + a, e - a)) {
        put(x, "[rel ", 5);
        if (s[a] == '+')
            a = skip_blanks(s, e, a + 1);
        if (rewrite(x, at, s + a, e - a, false) != 0)
            return -1;
        put(x, "]", 1);
        return 0;
    }
    if (!x->rip_pending)
        x->rip_ids++;
    x->rip_pending = true;
    putf(x, "[rel __nb_%s_%u_rip", x->scope, x->rip_ids);
    if (a < e) {
        put(x, " ", 1);
        if (rewrite(x, at, s + a, e - a, false) != 0)
            return -1;
    }
    put(x, "]", 1);
    return 0;
}

/* Copies an operand text with gas spellings turned into nasm's and the part's names renamed. */
static int rewrite(struct xlate *x, size_t at, const char *s, size_t n, bool gas_octal)
{
    unsigned k = x->stmts[at].k;
    int brackets = 0;
    for (size_t p = 0; p < n;) {
        char c = s[p];
        if (asm_is_quote(c)) {
            size_t q = (size_t)(asm_skip_quoted(s + p, s + n) - s);
            put(x, s + p, q - p);
            p = q;
        } else if (c == '%') { /* %define, %%local, %$ctx, %1: nasm's own, never renamed */
            size_t q = p + 1;
            while (q < n && (is_word_char(s[q]) || s[q] == '%'))
                q++;
            put(x, s + p, q - p);
            p = q;
        } else if (c == '[') {
            size_t q = skip_blanks(s, n, p + 1), w = word_len(s + q, n - q);
            if (word_is(s + q, w, "rip")) {
                if (rewrite_rip(x, at, s, n, &p, q + w) != 0)
                    return -1;
                continue;
            }
            brackets++;
            put(x, &c, 1);
            p++;
        } else if (is_word_char(c)) {
            size_t w = word_len(s + p, n - p), used = w;
            const char *t = s + p, *size;
            if (isdigit((unsigned char)c)) {
                long d = local_ref(x, at, t, w);
                if (d >= 0)
                    put_local(x, (size_t)d);
                else if (d == -2)
                    return fail(x, k, "no gas local label %.*s: %s this statement (%.*s%c refers "
                                      "to the nearest %.*s: %s it)",
                                (int)(w - 1), t, t[w - 1] == 'b' ? "before or at" : "after",
                                (int)(w - 1), t, t[w - 1], (int)(w - 1), t,
                                t[w - 1] == 'b' ? "before" : "after");
                else if (gas_octal && w > 1 && t[0] == '0' && strspn(t, "01234567") == w)
                    putf(x, "0o%.*s", (int)(w - 1), t + 1);
                else
                    put(x, t, w);
            } else if (brackets > 0 && word_is(t, w, "rip")) {
                return fail(x, k, "rip comes first: write [rip + N] or [rip - N]");
            } else if ((size = size_ptr(t, n - p, w, &used)) != NULL) {
                put(x, size, strlen(size));
            } else {
                size_t base = 0;
                while (base < w && t[base] != '.')
                    base++;
                if (renamed_label(t, base) && find_label(x, t, base))
                    put_label(x, t, w);
                else
                    put(x, t, w);
            }
            p += used;
        } else {
            brackets -= c == ']' && brackets > 0;
            put(x, &c, 1);
            p++;
        }
    }
    return 0;
}

static const struct {
    const char *gnu, *nasm;
} DATA_DIRECTIVES[] = {
    { ".byte", "db" }, { ".word", "dw" }, { ".short", "dw" }, { ".value", "dw" },
    { ".long", "dd" }, { ".int", "dd" },  { ".quad", "dq" },
};

/* gas directives nasm spells differently: what to write instead. */
static const struct {
    const char *gnu, *advice;
} GAS_DIRECTIVES[] = {
    { ".align", "write nasm's align N (N in bytes)" },
    { ".balign", "write nasm's align N (N in bytes)" },
    { ".p2align", "write nasm's align N (N in bytes: .p2align 4 is align 16)" },
    { ".ascii", "write db 'text'" },
    { ".asciz", "write db 'text', 0" },
    { ".string", "write db 'text', 0" },
    { ".skip", "write times N db 0" },
    { ".space", "write times N db 0" },
    { ".zero", "write times N db 0" },
    { ".rept", "write nanoBench's N*|statements|" },
    { ".set", "write NAME equ VALUE" },
    { ".equ", "write NAME equ VALUE" },
    { ".att_syntax", "-asm takes Intel syntax, as nanoBench does" },
};

static void put_nop(struct xlate *x, unsigned count)
{
    uint8_t nop[X86_NOP_MAX];
    x86_nop_bytes(nop, count);
    put(x, "db ", 3);
    for (unsigned b = 0; b < count; b++)
        putf(x, "%s0x%02x", b ? ", " : "", nop[b]);
}

/* Pass 2: stmts[i] as one nasm line in x->line. */
static int translate_statement(struct xlate *x, size_t i)
{
    const char *s = x->stmts[i].s;
    size_t n = x->stmts[i].n, w;
    unsigned k = x->stmts[i].k;
    x->line_len = 0;
    put(x, "", 0);
    if (n > 0 && s[0] == '|') {
        size_t p = skip_blanks(s, n, 1), d = p;
        long count = 0;
        while (d < n && d - p < 3 && isdigit((unsigned char)s[d]))
            count = count * 10 + (s[d++] - '0');
        if (d == p || d != n || count < 1 || count > X86_NOP_MAX)
            return fail(x, k, "the NOP extension is |n with 1 <= n <= 15");
        put_nop(x, (unsigned)count);
        return 0;
    }
    size_t after = leading_label(s, n, &w);
    if (after) {
        if (all_digits(s, w)) {
            for (size_t d = 0; d < x->n_locals; d++)
                if (x->locals[d].at == i)
                    put_local(x, d);
        } else if (renamed_label(s, w)) {
            put_label(x, s, w);
        } else {
            put(x, s, w);
        }
        put(x, ": ", 2);
    }
    size_t r = skip_blanks(s, n, after);
    w = word_len(s + r, n - r);
    if (w > 1 && s[r] == '.') {
        for (size_t d = 0; d < ARRAY_SIZE(DATA_DIRECTIVES); d++) {
            if (word_is(s + r, w, DATA_DIRECTIVES[d].gnu)) {
                put(x, DATA_DIRECTIVES[d].nasm, strlen(DATA_DIRECTIVES[d].nasm));
                return rewrite(x, i, s + r + w, n - r - w, true);
            }
        }
        if (word_is(s + r, w, ".intel_syntax"))
            return 0; /* what nanoBench puts before the code; nasm is Intel syntax anyway */
        for (size_t d = 0; d < ARRAY_SIZE(GAS_DIRECTIVES); d++)
            if (word_is(s + r, w, GAS_DIRECTIVES[d].gnu))
                return fail(x, k, "gas's %s is not nasm: %s", GAS_DIRECTIVES[d].gnu,
                            GAS_DIRECTIVES[d].advice);
    }
    return rewrite(x, i, s + r, n - r, false);
}

/* Writes a line that nasm must number k, after a %line when it would number it otherwise. */
static void emit_line(struct xlate *x, unsigned k, const char *s, size_t n)
{
    if (x->next_line != k) {
        char directive[48];
        int d = snprintf(directive, sizeof(directive), "%%line %u+1\n", k - 1);
        append(x->out, x->len, directive, (size_t)d);
    }
    append(x->out, x->len, s, n);
    append(x->out, x->len, "\n", 1);
    x->next_line = k + 1;
}

/* Undoes the part's %define-style names and %macros, so the next part starts clean. */
static void emit_undo(struct xlate *x)
{
    for (size_t i = 0; i < x->n_pp; i++) {
        const struct pp_name *p = &x->pp[i];
        char line[300];
        int n;
        if (p->macro)
            n = snprintf(line, sizeof(line), "%%un%smacro %.*s %.*s\n", p->icase ? "i" : "",
                         (int)p->n, p->name, (int)p->spec_n, p->spec);
        else
            n = snprintf(line, sizeof(line), "%%undef %.*s\n", (int)p->n, p->name);
        if (n > 0 && (size_t)n < sizeof(line))
            append(x->out, x->len, line, (size_t)n);
    }
}

int asm_translate(const char *text, const char *scope, char **out, size_t *len, char *err,
                  size_t err_cap)
{
    struct xlate x = { .text = text, .scope = scope, .out = out, .len = len, .err = err,
                       .err_cap = err_cap, .next_line = 1 };
    int rc = asm_statements(text, &x.stmts, &x.n_stmts, err, err_cap);
    for (size_t i = 0; rc == 0 && i < x.n_stmts; i++)
        rc = scan_statement(&x, i);
    for (size_t i = 0; rc == 0 && i < x.n_stmts; i++) {
        x.rip_pending = false;
        rc = translate_statement(&x, i);
        if (rc == 0)
            emit_line(&x, x.stmts[i].k, x.line, x.line_len);
        if (rc == 0 && x.rip_pending) {
            char end_label[96];
            int n = snprintf(end_label, sizeof(end_label), "__nb_%s_%u_rip:", scope, x.rip_ids);
            emit_line(&x, x.stmts[i].k, end_label, (size_t)n);
        }
    }
    if (rc == 0)
        emit_undo(&x);
    free(x.stmts);
    free(x.labels);
    free(x.locals);
    free(x.pp);
    free(x.line);
    return rc;
}
