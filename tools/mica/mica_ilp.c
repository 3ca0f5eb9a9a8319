/*
 * mica_ilp.c — see mica_ilp.h. Follows MICA-SPEC §2.3 step by step; the
 * numbers in the comments are those steps.
 */
#include "mica_ilp.h"

#include <stdlib.h>
#include <string.h>

#include "mica_map.h"

#define MAX_WINDOWS 4
/* MICA queues records and runs the window model in batches of 200
 * (ILP_BUFFER_SIZE); the interval check inside a batch is why interval lines
 * are one batch late (§2.4, quirk Q7). */
#define BATCH 200

struct window {
    unsigned size;
    uint64_t *slot;
    unsigned head, tail;
    uint64_t clock;
    uint64_t cycles;        /* clock ticks since the last interval line */
};

struct mica_ilp {
    unsigned n;
    struct window w[MAX_WINDOWS];
    /* Ready time of register r in window i at reg_ready[r * n + i]: the
     * windows' values of one register share a cache line. */
    uint64_t *reg_ready;
    unsigned block_bits;
    uint64_t interval;
    bool one;
    /* block -> row of n ready times in mem_ready; dropped at interval lines */
    struct mica_map mem;
    uint64_t *mem_ready;
    size_t mem_rows;
    uint64_t int_all, int_hpc;
    struct mica_rec buf[BATCH];
    unsigned n_buf;
};

struct mica_ilp *mica_ilp_new(const unsigned *windows, unsigned n_windows, unsigned block_bits,
                              uint64_t interval, bool one)
{
    struct mica_ilp *s = mica_xcalloc(1, sizeof(*s));
    s->n = n_windows > MAX_WINDOWS ? MAX_WINDOWS : n_windows;
    for (unsigned i = 0; i < s->n; i++) {
        s->w[i].size = windows[i];
        s->w[i].slot = mica_xcalloc(windows[i], sizeof(uint64_t));
    }
    s->reg_ready = mica_xcalloc((size_t)MICA_MAX_REG_ID * s->n, sizeof(uint64_t));
    s->block_bits = block_bits;
    s->interval = interval;
    s->one = one;
    return s;
}

/* Row of ready times of block b, created (all 0) when absent. */
static uint64_t *mem_row(struct mica_ilp *s, uint64_t b)
{
    bool fresh;
    uint32_t *v = mica_map_put(&s->mem, b, &fresh);
    if (fresh) {
        if (s->mem.n > s->mem_rows) {
            size_t rows = s->mem_rows ? 2 * s->mem_rows : 256;
            uint64_t *p = realloc(s->mem_ready, rows * s->n * sizeof(uint64_t));
            if (!p)
                abort();
            s->mem_ready = p;
            s->mem_rows = rows;
        }
        *v = (uint32_t)(s->mem.n - 1);
        memset(&s->mem_ready[(size_t)*v * s->n], 0, s->n * sizeof(uint64_t));
    }
    return &s->mem_ready[(size_t)*v * s->n];
}

/* Latest ready time over the blocks of one read, per window, into t[]. */
static void read_blocks(struct mica_ilp *s, uint64_t ea, uint32_t size, uint64_t *t)
{
    if (size == 0)
        return;
    uint64_t last = (ea + size - 1) >> s->block_bits;
    for (uint64_t b = ea >> s->block_bits; b <= last; b++) {
        /* A block never written is ready at 0 (quirk Q2). */
        const uint32_t *v = mica_map_get(&s->mem, b);
        if (!v)
            continue;
        const uint64_t *row = &s->mem_ready[(size_t)*v * s->n];
        for (unsigned i = 0; i < s->n; i++)
            if (row[i] > t[i])
                t[i] = row[i];
    }
}

/* Steps 1-4 for every window; the issue time of each goes to t[]. */
static void dependences(struct mica_ilp *s, const struct mica_rec *r, uint64_t *t)
{
    const unsigned n = s->n;
    for (unsigned i = 0; i < n; i++)
        t[i] = 0;
    for (unsigned k = 0; k < r->n_regs_read; k++) {                        /* 1 */
        const uint64_t *ready = &s->reg_ready[(size_t)r->regs_read[k] * n];
        for (unsigned i = 0; i < n; i++)
            if (ready[i] > t[i])
                t[i] = ready[i];
    }
    if (r->read1_ea != 0) {                                                /* 2 */
        read_blocks(s, r->read1_ea, r->read_size, t);
        if (r->read2_ea != 0)
            read_blocks(s, r->read2_ea, r->read_size, t);
    }
    for (unsigned i = 0; i < n; i++)
        if (s->w[i].clock > t[i])                                          /* 3 */
            t[i] = s->w[i].clock;
    for (unsigned k = 0; k < r->n_regs_written; k++) {                     /* 4 */
        uint64_t *ready = &s->reg_ready[(size_t)r->regs_written[k] * n];
        for (unsigned i = 0; i < n; i++)
            ready[i] = t[i] + 1;
    }
    if (r->write_ea != 0 && r->write_size != 0) {
        uint64_t last = (r->write_ea + r->write_size - 1) >> s->block_bits;
        for (uint64_t b = r->write_ea >> s->block_bits; b <= last; b++) {
            uint64_t *row = mem_row(s, b);
            for (unsigned i = 0; i < s->n; i++)
                row[i] = t[i] + 1;
        }
    }
}

/* Steps 5-6. */
static void insert(struct mica_ilp *s, const uint64_t *t)
{
    for (unsigned i = 0; i < s->n; i++) {
        struct window *w = &s->w[i];
        w->slot[w->tail] = t[i];
        if (++w->tail == w->size)
            w->tail = 0;
        if (w->tail != w->head)
            continue;
        /* Full: one tick; the head is always ready by then, so at least one
         * entry leaves and no slot is overwritten before it retires. */
        w->clock++;
        w->cycles++;
        for (unsigned k = 0; k < w->size && w->slot[w->head] < w->clock; k++)
            if (++w->head == w->size)
                w->head = 0;
    }
}

static void emit(struct mica_ilp *s, uint64_t first, struct mica_lines *out)
{
    uint64_t v[1 + MAX_WINDOWS];
    v[0] = first;
    for (unsigned i = 0; i < s->n; i++) {
        v[1 + i] = s->w[i].cycles;
        s->w[i].cycles = 0;
    }
    mica_lines_push(out, v, 1 + s->n);
}

static void run_batch(struct mica_ilp *s, struct mica_lines *out)
{
    uint64_t t[MAX_WINDOWS];
    for (unsigned k = 0; k < s->n_buf; k++) {
        dependences(s, &s->buf[k], t);
        /* ilp checks before this record enters the window (§2.4), ilp_one after. */
        if (s->one)
            insert(s, t);
        if (s->int_hpc == s->interval) {
            emit(s, s->one ? s->interval : s->int_all, out);
            s->int_all = s->int_hpc = 0;
            mica_map_clear(&s->mem);
        }
        if (!s->one)
            insert(s, t);
    }
    s->n_buf = 0;
}

void mica_ilp_record(struct mica_ilp *s, const struct mica_rec *r, struct mica_lines *out)
{
    s->int_all++;
    s->int_hpc += r->counts_hpc;
    if (s->interval == 0) {
        /* Without intervals the batching changes nothing: run it directly. */
        uint64_t t[MAX_WINDOWS];
        dependences(s, r, t);
        insert(s, t);
        return;
    }
    s->buf[s->n_buf++] = *r;
    if (s->n_buf == BATCH || s->int_hpc == s->interval)
        run_batch(s, out);
}

void mica_ilp_finish(struct mica_ilp *s, struct mica_lines *out)
{
    if (s->interval)
        run_batch(s, out);
    emit(s, s->int_all, out);
}

void mica_ilp_free(struct mica_ilp *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->n; i++)
        free(s->w[i].slot);
    free(s->reg_ready);
    mica_map_free(&s->mem);
    free(s->mem_ready);
    free(s);
}
