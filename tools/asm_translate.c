/*
 * asm_translate.c — nanoBench assembler text to nasm (see asm_translate.h).
 */
#include "asm_translate.h"
#include "x86_emit.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Calls fn for each statement: split at ';' and newlines outside quotes. */
static int for_each_statement(const char *text, int (*fn)(const char *s, size_t n, void *arg),
                              void *arg)
{
    const char *start = text;
    char quote = 0;
    for (const char *c = text;; c++) {
        if (quote) {
            if (*c == quote)
                quote = 0;
            else if (!*c)
                quote = 0; /* let nasm report the unterminated string */
        } else if (*c == '\'' || *c == '"' || *c == '`') {
            quote = *c;
        }
        if (!*c || (!quote && (*c == ';' || *c == '\n'))) {
            const char *s = start, *e = c;
            while (s < e && isspace((unsigned char)*s))
                s++;
            while (e > s && isspace((unsigned char)e[-1]))
                e--;
            int rc = fn(s, (size_t)(e - s), arg);
            if (rc)
                return rc;
            if (!*c)
                return 0;
            start = c + 1;
        }
    }
}

struct translate_state {
    char **out;
    size_t *len;
    char *err;
    size_t err_cap;
};

static const struct {
    const char *gnu;
    const char *nasm;
} SIZE_WORDS[] = {
    { "byte", "byte" },     { "word", "word" },     { "dword", "dword" },   { "qword", "qword" },
    { "tbyte", "tword" },   { "tword", "tword" },   { "xmmword", "oword" }, { "oword", "oword" },
    { "ymmword", "yword" }, { "zmmword", "zword" }, { "fword", "dword" },
};


static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '@';
}

/* Rewrites "<size> PTR" into nasm's "<size>"; everything else is copied. */
static void translate_size_ptr(struct translate_state *st, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (is_word_char(s[i]) && (i == 0 || !is_word_char(s[i - 1]))) {
            size_t w = i;
            while (w < n && is_word_char(s[w]))
                w++;
            size_t after = w;
            while (after < n && isspace((unsigned char)s[after]))
                after++;
            size_t ptr_end = after + 3;
            bool is_ptr = ptr_end <= n && strncasecmp(s + after, "ptr", 3) == 0 &&
                          (ptr_end == n || !is_word_char(s[ptr_end]));
            const char *replacement = NULL;
            if (is_ptr) {
                for (size_t k = 0; k < sizeof(SIZE_WORDS) / sizeof(SIZE_WORDS[0]); k++) {
                    if (strlen(SIZE_WORDS[k].gnu) == w - i &&
                        strncasecmp(s + i, SIZE_WORDS[k].gnu, w - i) == 0)
                        replacement = SIZE_WORDS[k].nasm;
                }
            }
            if (replacement) {
                append(st->out, st->len, replacement, strlen(replacement));
                i = ptr_end;
            } else {
                append(st->out, st->len, s + i, w - i);
                i = w;
            }
        } else if (s[i] == '\'' || s[i] == '"' || s[i] == '`') {
            size_t q = i + 1;
            while (q < n && s[q] != s[i])
                q++;
            q = q < n ? q + 1 : n;
            append(st->out, st->len, s + i, q - i);
            i = q;
        } else {
            append(st->out, st->len, s + i, 1);
            i++;
        }
    }
}

static int translate_statement(const char *s, size_t n, void *arg)
{
    struct translate_state *st = arg;
    if (n > 0 && s[0] == '|') {
        char digits[8] = "";
        size_t k = 1;
        while (k < n && isspace((unsigned char)s[k]))
            k++;
        size_t d = 0;
        while (k < n && d < sizeof(digits) - 1 && isdigit((unsigned char)s[k]))
            digits[d++] = s[k++];
        long count = d ? strtol(digits, NULL, 10) : 0;
        if (k != n || count < 1 || count > X86_NOP_MAX) {
            snprintf(st->err, st->err_cap, "'%.*s': the NOP extension is |n with 1 <= n <= 15",
                     (int)n, s);
            return -1;
        }
        uint8_t nop[X86_NOP_MAX];
        x86_nop_bytes(nop, (unsigned)count);
        char line[128] = "db ";
        for (long b = 0; b < count; b++)
            snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s0x%02x", b ? ", " : "",
                     nop[b]);
        append(st->out, st->len, line, strlen(line));
    } else {
        translate_size_ptr(st, s, n);
    }
    append(st->out, st->len, "\n", 1);
    return 0;
}

int asm_translate(const char *text, char **out, size_t *len, char *err, size_t err_cap)
{
    struct translate_state st = { out, len, err, err_cap };
    return for_each_statement(text, translate_statement, &st);
}

struct find_state {
    unsigned want, seen;
    char *buf;
    size_t cap;
};

static int find_statement(const char *s, size_t n, void *arg)
{
    struct find_state *f = arg;
    if (++f->seen != f->want)
        return 0;
    snprintf(f->buf, f->cap, "%.*s", (int)n, s);
    return 1;
}

void asm_statement(const char *text, unsigned n, char *buf, size_t cap)
{
    struct find_state f = { n, 0, buf, cap };
    if (cap)
        buf[0] = '\0';
    for_each_statement(text, find_statement, &f);
}
