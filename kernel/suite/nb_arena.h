/*
 * nb_arena.h — bump allocator for everything that lives as long as one suite
 * run (parsed benchmarks, option strings). The engine has no malloc; an arena
 * is carved from one platform allocation and released in one piece.
 */
#ifndef NB_ARENA_H
#define NB_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct nb_arena {
    uint8_t *base;
    size_t used;
    size_t cap;
};

void nb_arena_init(struct nb_arena *a, void *memory, size_t cap);
/* 16-byte aligned, zeroed; NULL when the arena is exhausted. */
void *nb_arena_alloc(struct nb_arena *a, size_t size);
/* Copies n bytes of s and terminates the copy; NULL when exhausted. */
char *nb_arena_strndup(struct nb_arena *a, const char *s, size_t n);

#endif
