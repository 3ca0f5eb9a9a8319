/*
 * mica_map.c — see mica_map.h.
 */
#include "mica_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX

static inline size_t slot_of(uint64_t key, size_t cap)
{
    /* Fibonacci hashing: addresses differ in their low bits, spread them. */
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

uint32_t *mica_map_get(const struct mica_map *m, uint64_t key)
{
    if (key == EMPTY)
        return m->has_empty_key ? (uint32_t *)&m->empty_key_val : NULL;
    if (m->cap == 0)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key)
            return (uint32_t *)&m->slot[i].val;
        if (m->slot[i].key == EMPTY)
            return NULL;
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "nb_mica: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static void empty_all(struct mica_map_slot *slot, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        slot[i].key = EMPTY;
}

static void grow(struct mica_map *m)
{
    size_t old_cap = m->cap;
    struct mica_map_slot *old = m->slot;
    m->cap = old_cap ? old_cap * 2 : 64;
    m->slot = xmalloc(m->cap * sizeof(*m->slot));
    empty_all(m->slot, m->cap);
    for (size_t j = 0; j < old_cap; j++) {
        if (old[j].key == EMPTY)
            continue;
        size_t i = slot_of(old[j].key, m->cap);
        while (m->slot[i].key != EMPTY)
            i = (i + 1) & (m->cap - 1);
        m->slot[i] = old[j];
    }
    free(old);
}

uint32_t *mica_map_put(struct mica_map *m, uint64_t key, bool *fresh)
{
    if (key == EMPTY) {
        *fresh = !m->has_empty_key;
        if (*fresh) {
            m->has_empty_key = true;
            m->empty_key_val = 0;
            m->n++;
        }
        return &m->empty_key_val;
    }
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    size_t i = slot_of(key, m->cap);
    for (;; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key) {
            *fresh = false;
            return &m->slot[i].val;
        }
        if (m->slot[i].key == EMPTY)
            break;
    }
    m->slot[i].key = key;
    m->slot[i].val = 0;
    m->n++;
    *fresh = true;
    return &m->slot[i].val;
}

void mica_map_clear(struct mica_map *m)
{
    if (m->cap)
        empty_all(m->slot, m->cap);
    m->n = 0;
    m->has_empty_key = false;
}

void mica_map_free(struct mica_map *m)
{
    free(m->slot);
    memset(m, 0, sizeof(*m));
}
