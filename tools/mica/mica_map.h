/*
 * mica_map.h — an open-addressing hash map from u64 keys (addresses, block
 * numbers) to u32 values, the one lookup structure every analysis needs per
 * record. Linear probing, power-of-two capacity, load factor <= 1/2.
 */
#ifndef MICA_MAP_H
#define MICA_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key and its value side by side: one cache line per lookup. */
struct mica_map_slot {
    uint64_t key;
    uint32_t val;
};

struct mica_map {
    struct mica_map_slot *slot;
    size_t cap;     /* power of two, 0 before the first insert */
    size_t n;
    /* The key used to mark empty slots has its own slot. */
    bool has_empty_key;
    uint32_t empty_key_val;
};

#define MICA_MAP_INIT { 0 }

/* The value of key, or NULL. */
uint32_t *mica_map_get(const struct mica_map *m, uint64_t key);
/* The value of key, inserted as 0 when absent (*fresh says which); exits on out of memory. */
uint32_t *mica_map_put(struct mica_map *m, uint64_t key, bool *fresh);
static inline size_t mica_map_size(const struct mica_map *m) { return m->n; }
/* Empties the map, keeps the memory. */
void mica_map_clear(struct mica_map *m);
void mica_map_free(struct mica_map *m);

#endif
