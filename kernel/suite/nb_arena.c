/*
 * nb_arena.c — bump allocator (see nb_arena.h).
 */
#include "nb_arena.h"
#include "nb_text.h"

void nb_arena_init(struct nb_arena *a, void *memory, size_t cap)
{
    a->base = memory;
    a->used = 0;
    a->cap = memory ? cap : 0;
}

void *nb_arena_alloc(struct nb_arena *a, size_t size)
{
    size_t start = (a->used + 15) & ~(size_t)15;
    if (start > a->cap || size > a->cap - start)
        return NULL;
    a->used = start + size;
    void *p = a->base + start;
    nb_memset(p, 0, size);
    return p;
}

char *nb_arena_strndup(struct nb_arena *a, const char *s, size_t n)
{
    char *copy = nb_arena_alloc(a, n + 1);
    if (!copy)
        return NULL;
    nb_memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}
