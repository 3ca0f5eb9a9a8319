/*
 * nb_serial.c — turns a captured serial log of nanoBench-EFI back into the
 * results CSV (the same rows as nanobench/results/run-NNNN.csv) and reports
 * every damaged or missing line (kernel/serial_frame.h).
 *
 * usage: nb_serial LOG [-o OUT.csv]
 * Lines without a frame (the firmware's own output) are ignored; a new boot
 * (after a reset) restarts the line numbers. Exit status: 0 when every line
 * arrived intact, 1 when lines were damaged or lost (the CSV then lacks
 * their rows), 2 on usage or I/O errors.
 */
#define _GNU_SOURCE
#include "host_file.h"
#include "serial_frame.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    FILE *out;
    const char *log;
    char benchmark[128];
    bool in_benchmark;
    unsigned expect;  /* next sequence number */
    bool started;
    int problems;
    regex_t header, value;
};

/* RFC 4180 quoting, as the image writes its CSV. */
static void csv_field(FILE *f, const char *s, size_t n)
{
    bool quote = memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n);
    if (quote)
        fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    if (quote)
        fputc('"', f);
}

static void row(struct parser *p, const char *event, size_t event_len, const char *value,
                size_t value_len)
{
    csv_field(p->out, p->benchmark, strlen(p->benchmark));
    fputc(',', p->out);
    csv_field(p->out, event, event_len);
    fputc(',', p->out);
    csv_field(p->out, value, value_len);
    fputc('\n', p->out);
}

/* One intact line of the image's text. */
static void text_line(struct parser *p, char *text)
{
    regmatch_t m[3];
    if (strncmp(text, "nanoBench-EFI ", 14) == 0) {
        p->in_benchmark = false;
    } else if (regexec(&p->header, text, 2, m, 0) == 0) {
        snprintf(p->benchmark, sizeof(p->benchmark), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
                 text + m[1].rm_so);
        p->in_benchmark = true;
    } else if (p->in_benchmark && strncmp(text, "error: ", 7) == 0) {
        row(p, "error", 5, text + 7, strlen(text + 7));
    } else if (p->in_benchmark && regexec(&p->value, text, 3, m, 0) == 0) {
        row(p, text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), text + m[2].rm_so,
            (size_t)(m[2].rm_eo - m[2].rm_so));
    }
}

static void line(struct parser *p, char *s, size_t len, unsigned lineno)
{
    while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    size_t text_len;
    unsigned seq;
    bool ok;
    if (!serial_unframe(s, len, &text_len, &seq, &ok))
        return; /* firmware output, or a line damaged beyond recognition */
    if (!ok) {
        fprintf(stderr, "nb_serial: %s:%u: damaged line (serial #%04u): %.*s\n", p->log, lineno, seq,
                (int)text_len, s);
        p->problems++;
        if (p->started)
            p->expect = (p->expect + 1) % SERIAL_SEQ_MODULO;
        return;
    }
    if (seq == 0) {
        p->started = true; /* a (re)boot */
    } else if (p->started && seq != p->expect) {
        fprintf(stderr, "nb_serial: %s:%u: serial lines #%04u to #%04u are missing\n", p->log,
                lineno, p->expect, (seq + SERIAL_SEQ_MODULO - 1) % SERIAL_SEQ_MODULO);
        p->problems++;
    }
    p->expect = (seq + 1) % SERIAL_SEQ_MODULO;
    s[text_len] = '\0';
    text_line(p, s);
}

int main(int argc, char **argv)
{
    const char *log = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (!log && argv[i][0] != '-')
            log = argv[i];
        else {
            fprintf(stderr, "usage: nb_serial LOG [-o OUT.csv]\n");
            return 2;
        }
    }
    if (!log) {
        fprintf(stderr, "usage: nb_serial LOG [-o OUT.csv]\n");
        return 2;
    }
    size_t size;
    char *data = host_read_file(log, &size);
    if (!data) {
        perror(log);
        return 2;
    }
    struct parser p = { .out = out_path ? fopen(out_path, "w") : stdout, .log = log };
    if (!p.out) {
        perror(out_path);
        return 2;
    }
    regcomp(&p.header, "^\\[([A-Za-z0-9_.-]+)\\]$", REG_EXTENDED);
    regcomp(&p.value, "^([^:]+): (-?[0-9]+(\\.[0-9][0-9])?)$", REG_EXTENDED);
    fputs("benchmark,event,value\n", p.out);
    unsigned lineno = 0;
    for (char *s = data; s < data + size;) {
        char *eol = memchr(s, '\n', (size_t)(data + size - s));
        size_t len = eol ? (size_t)(eol - s) : (size_t)(data + size - s);
        line(&p, s, len, ++lineno);
        s += len + 1;
    }
    if (out_path && fclose(p.out) != 0)
        return 2;
    if (!p.started) {
        fprintf(stderr, "nb_serial: %s: no nanoBench-EFI lines found\n", log);
        return 1;
    }
    return p.problems ? 1 : 0;
}
