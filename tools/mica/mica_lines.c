/*
 * mica_lines.c — see mica_lines.h.
 */
#include "mica_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mica_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "nb_mica: out of memory (%zu x %zu bytes)\n", n, size);
        exit(1);
    }
    return p;
}

void mica_lines_push(struct mica_lines *l, const uint64_t *v, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->line = realloc(l->line, l->cap * sizeof(*l->line));
        if (!l->line) {
            fprintf(stderr, "nb_mica: out of memory\n");
            exit(1);
        }
    }
    struct mica_line *x = &l->line[l->n++];
    x->n = n;
    x->v = mica_xcalloc(n, sizeof(*v));
    memcpy(x->v, v, n * sizeof(*v));
}

void mica_lines_free(struct mica_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->line[i].v);
    free(l->line);
    memset(l, 0, sizeof(*l));
}
