/*
 * suite.c — suite file parser (format in suite.h).
 */
#include "suite.h"
#include "nb_platform.h"
#include "nb_text.h"

bool suite_name_valid(const char *name)
{
    size_t n = 0;
    for (; name[n]; n++) {
        char c = name[n];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return false;
    }
    return n > 0 && n <= SUITE_NAME_MAX;
}

/* One logical line: physical lines joined at trailing backslashes. */
struct logical_line {
    char *text; /* NUL-terminated, in the arena */
    unsigned first_line;
};

/*
 * Splits `s` into words in place (quotes removed, escapes resolved) and stops
 * at a '#' outside quotes. Single quotes keep everything literal up to the
 * next single quote; double quotes resolve \" and \\. Returns the number of
 * words, or -1 with *error set for an unterminated quote.
 */
static int split_words(char *s, char **words, int max_words, const char **error)
{
    int n = 0;
    char *r = s;
    while (*r) {
        while (nb_is_space(*r))
            r++;
        if (!*r || *r == '#')
            break;
        char *w = r; /* write cursor: words shrink when quotes are removed */
        char *start = w;
        bool in_quotes = false;
        while (*r && (in_quotes || (!nb_is_space(*r) && *r != '#'))) {
            if (!in_quotes && *r == '\'') {
                /* As in a shell: up to the next ' everything is literal. */
                char *close = r + 1;
                while (*close && *close != '\'')
                    close++;
                if (!*close) {
                    *error = "unterminated single quote";
                    return -1;
                }
                for (r++; r < close;)
                    *w++ = *r++;
                r++;
            } else if (*r == '"') {
                in_quotes = !in_quotes;
                r++;
            } else if (in_quotes && *r == '\\' && (r[1] == '"' || r[1] == '\\')) {
                *w++ = r[1];
                r += 2;
            } else {
                *w++ = *r++;
            }
        }
        if (in_quotes) {
            *error = "unterminated double quote";
            return -1;
        }
        bool at_comment = (*r == '#');
        if (*r)
            r++;
        *w = '\0';
        if (n < max_words)
            words[n] = start;
        n++;
        if (at_comment)
            break;
    }
    return n;
}

static int count_lines(const char *text, size_t len)
{
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += (text[i] == '\n');
    return n;
}

/* Joins continuation lines; returns the number of logical lines. */
static int join_lines(char *copy, size_t len, struct logical_line *lines)
{
    int n = 0;
    unsigned line_no = 1;
    size_t i = 0;
    while (i <= len) {
        struct logical_line *l = &lines[n++];
        l->text = copy + i;
        l->first_line = line_no;
        char *w = copy + i;
        while (i < len) {
            char c = copy[i];
            if (c == '\n') {
                line_no++;
                /*
                 * A backslash before the newline (spaces allowed) continues,
                 * except on a comment line: a comment never swallows the next line.
                 */
                char *end = w;
                while (end > l->text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                    end--;
                const char *first = l->text;
                while (first < end && (*first == ' ' || *first == '\t'))
                    first++;
                bool comment = first < end && *first == '#';
                if (!comment && end > l->text && end[-1] == '\\') {
                    w = end - 1;
                    *w++ = ' ';
                    i++;
                    continue;
                }
                break;
            }
            *w++ = c;
            i++;
        }
        *w = '\0';
        i++; /* skip the newline (or step past the end) */
        /* "#line N": the next line is line N of the suite the host compiled (suite.h). */
        int64_t next;
        if (nb_starts_with(l->text, "#line ") && nb_parse_i64(l->text + 6, &next) && next > 0 &&
            next < 0x7FFFFFFF)
            line_no = (unsigned)next;
    }
    return n;
}

size_t suite_arena_estimate(const char *text, size_t len)
{
    size_t lines = (size_t)count_lines(text, len);
    return 4 * len + lines * (sizeof(struct logical_line) + sizeof(struct suite_entry) + 64) + 65536;
}

int suite_parse(const char *text, size_t len, struct nb_arena *arena, struct suite *out)
{
    out->entries = NULL;
    out->count = 0;
    /* A UTF-8 byte order mark (Windows editors write one) is not part of the first line. */
    if (len >= 3 && (uint8_t)text[0] == 0xEF && (uint8_t)text[1] == 0xBB &&
        (uint8_t)text[2] == 0xBF) {
        text += 3;
        len -= 3;
    }
    char *copy = nb_arena_strndup(arena, text, len);
    int max_lines = count_lines(text, len);
    struct logical_line *lines = nb_arena_alloc(arena, sizeof(*lines) * (size_t)max_lines);
    out->entries = nb_arena_alloc(arena, sizeof(*out->entries) * (size_t)max_lines);
    if (!copy || !lines || !out->entries)
        return NB_ENOMEM;
    int n_lines = join_lines(copy, len, lines);

    char **defaults = NULL;
    int n_defaults = 0;
    unsigned defaults_line = 0;
    for (int li = 0; li < n_lines; li++) {
        char *s = lines[li].text;
        while (nb_is_space(*s))
            s++;
        if (!*s || *s == '#')
            continue;

        struct suite_entry *e = &out->entries[out->count++];
        e->line = lines[li].first_line;
        e->name = "?";

        /* The name runs up to the first ':' (names cannot contain one). */
        char *colon = s;
        while (*colon && *colon != ':' && !nb_is_space(*colon) && *colon != '"' && *colon != '\'')
            colon++;
        if (*colon != ':') {
            /* Keep a recognisable name for the report: the first word. */
            char *end = s;
            while (*end && !nb_is_space(*end))
                end++;
            size_t n = (size_t)(end - s) < SUITE_NAME_MAX ? (size_t)(end - s) : SUITE_NAME_MAX;
            e->name = nb_arena_strndup(arena, s, n);
            e->error = "expected 'name: options' (a benchmark name followed by a colon)";
            if (!e->name)
                return NB_ENOMEM;
            continue;
        }
        *colon = '\0';
        e->name = s;
        if (!suite_name_valid(s)) {
            e->error = "invalid benchmark name (use letters, digits, '_', '.', '-'; at most 64)";
            continue;
        }

        /* Count, then split the words after the colon. */
        const char *error = NULL;
        char *rest = colon + 1;
        char *probe = nb_arena_strndup(arena, rest, nb_strlen(rest));
        if (!probe)
            return NB_ENOMEM;
        int n_words = split_words(probe, NULL, 0, &error);
        if (n_words < 0) {
            e->error = error;
            continue;
        }
        e->is_defaults = (nb_strcmp(s, "defaults") == 0);
        int base = e->is_defaults ? 0 : n_defaults;
        e->argv = nb_arena_alloc(arena, sizeof(char *) * (size_t)(base + n_words + 1));
        if (!e->argv)
            return NB_ENOMEM;
        for (int k = 0; k < base; k++)
            e->argv[k] = defaults[k];
        split_words(rest, e->argv + base, n_words, &error);
        e->argc = base + n_words;
        e->own_argc = n_words;
        e->defaults_line = e->is_defaults ? 0 : defaults_line;
        if (e->is_defaults) {
            defaults = e->argv;
            n_defaults = e->argc;
            defaults_line = e->line;
        }
    }
    return NB_OK;
}
