/*
 * mica_stackdist.c — see mica_stackdist.h.
 *
 * Times run 0, 1, 2, ...; mark[t] is set when t is the latest reference of
 * some block (owner[t]). For a reference to b last referenced at time p, the
 * stack distance is the number of marks after p. When the time reaches the
 * capacity, the live marks are renumbered 0..D-1 in order (D = distinct
 * blocks) and the capacity becomes a power of two >= 4D, so renumbering costs
 * O(1) per reference on average and memory follows the working set.
 */
#include "mica_stackdist.h"

#include <stdlib.h>
#include <string.h>

#include "mica_lines.h"
#include "mica_map.h"

#define MIN_CAP 1024

struct mica_stackdist {
    unsigned block_bits;
    bool with_writes;
    struct mica_map last;   /* block -> time of its latest reference */
    uint32_t *tree;         /* Fenwick tree over times, 1-based inside */
    uint8_t *mark;
    uint64_t *owner;
    size_t cap;
    size_t now;             /* next time to hand out */
    size_t marks;
    uint64_t top;           /* the block referenced last (distance 0 fast path) */
    bool have_top;
    uint64_t refs, cold;
    uint64_t bucket[MICA_STACKDIST_BUCKETS];
    uint64_t dist[MICA_STACKDIST_FULL_MAX + 1];
};

static void tree_add(struct mica_stackdist *s, size_t t, int delta)
{
    for (size_t i = t + 1; i <= s->cap; i += i & -i)
        s->tree[i - 1] += (uint32_t)delta;
}

/* Marks at times 0..t. */
static size_t tree_prefix(const struct mica_stackdist *s, size_t t)
{
    size_t sum = 0;
    for (size_t i = t + 1; i > 0; i -= i & -i)
        sum += s->tree[i - 1];
    return sum;
}

static void alloc_arrays(struct mica_stackdist *s, size_t cap)
{
    s->cap = cap;
    s->tree = mica_xcalloc(cap, sizeof(*s->tree));
    s->mark = mica_xcalloc(cap, sizeof(*s->mark));
    s->owner = mica_xcalloc(cap, sizeof(*s->owner));
}

struct mica_stackdist *mica_stackdist_new(unsigned block_bits, bool with_writes)
{
    struct mica_stackdist *s = mica_xcalloc(1, sizeof(*s));
    s->block_bits = block_bits;
    s->with_writes = with_writes;
    alloc_arrays(s, MIN_CAP);
    return s;
}

static void renumber(struct mica_stackdist *s)
{
    uint8_t *old_mark = s->mark;
    uint64_t *old_owner = s->owner;
    size_t old_cap = s->cap, cap = MIN_CAP;
    while (cap < 4 * s->marks)
        cap *= 2;
    free(s->tree);
    alloc_arrays(s, cap);
    size_t t = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old_mark[i])
            continue;
        s->mark[t] = 1;
        s->owner[t] = old_owner[i];
        *mica_map_get(&s->last, old_owner[i]) = (uint32_t)t;
        t++;
    }
    /* Linear Fenwick build: each node passes its sum to its parent. */
    for (size_t i = 1; i <= cap; i++) {
        s->tree[i - 1] += s->mark[i - 1];
        size_t parent = i + (i & -i);
        if (parent <= cap)
            s->tree[parent - 1] += s->tree[i - 1];
    }
    s->now = t;
    free(old_mark);
    free(old_owner);
}

int64_t mica_stackdist_reference(struct mica_stackdist *s, uint64_t block)
{
    if (s->have_top && block == s->top)
        return 0; /* already on top: nothing moves */
    if (s->now == s->cap)
        renumber(s);
    bool fresh;
    uint32_t *last = mica_map_put(&s->last, block, &fresh);
    int64_t d = -1;
    if (!fresh) {
        d = (int64_t)(s->marks - tree_prefix(s, *last));
        s->mark[*last] = 0;
        tree_add(s, *last, -1);
        s->marks--;
    }
    *last = (uint32_t)s->now;
    s->mark[s->now] = 1;
    s->owner[s->now] = block;
    tree_add(s, s->now, 1);
    s->marks++;
    s->now++;
    s->top = block;
    s->have_top = true;
    return d;
}

static unsigned bucket_of(int64_t d)
{
    if (d < 2)
        return 0;
    unsigned k = 63 - (unsigned)__builtin_clzll((uint64_t)d); /* floor(log2 d) */
    return k < MICA_STACKDIST_BUCKETS - 1 ? k : MICA_STACKDIST_BUCKETS - 1;
}

static void access(struct mica_stackdist *s, uint64_t ea, uint32_t size)
{
    if (size == 0)
        return;
    uint64_t last = (ea + size - 1) >> s->block_bits;
    for (uint64_t b = ea >> s->block_bits; b <= last; b++) {
        int64_t d = mica_stackdist_reference(s, b);
        s->refs++;
        if (d < 0) {
            s->cold++;
            continue;
        }
        s->bucket[bucket_of(d)]++;
        s->dist[d < MICA_STACKDIST_FULL_MAX ? d : MICA_STACKDIST_FULL_MAX]++;
    }
}

void mica_stackdist_record(struct mica_stackdist *s, const struct mica_rec *r)
{
    if (r->mem_read) {
        access(s, r->read1_ea, r->read_size);
        if (r->has_read2)
            access(s, r->read2_ea, r->read_size);
    }
    if (s->with_writes && r->mem_write)
        access(s, r->write_ea, r->write_size);
}

void mica_stackdist_line(const struct mica_stackdist *s, uint64_t *v)
{
    v[0] = s->refs;
    v[1] = s->cold;
    memcpy(v + 2, s->bucket, sizeof(s->bucket));
}

void mica_stackdist_full_line(const struct mica_stackdist *s, uint64_t *v)
{
    v[0] = s->refs;
    v[1] = s->cold;
    memcpy(v + 2, s->dist, sizeof(s->dist));
}

void mica_stackdist_reset(struct mica_stackdist *s)
{
    s->refs = s->cold = 0;
    memset(s->bucket, 0, sizeof(s->bucket));
    memset(s->dist, 0, sizeof(s->dist));
}

void mica_stackdist_free(struct mica_stackdist *s)
{
    if (!s)
        return;
    mica_map_free(&s->last);
    free(s->tree);
    free(s->mark);
    free(s->owner);
    free(s);
}
