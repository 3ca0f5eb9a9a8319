/*
 * mica_stride.c — see mica_stride.h.
 */
#include "mica_stride.h"

#include <stdlib.h>
#include <string.h>

#include "mica_lines.h"
#include "mica_map.h"

const uint64_t mica_stride_bounds[MICA_STRIDE_BOUNDS] = { 0, 8, 64, 512, 4096, 32768, 262144 };

/* Histogram of "first bound >= stride", the overflow bin last; the
 * cumulative counts MICA prints come from it. (MICA clamps strides at
 * 2^19 - 1 first, which changes no bin.) */
#define BINS (MICA_STRIDE_BOUNDS + 1)

struct side {
    uint64_t count;
    uint64_t local[BINS], global[BINS];
    struct mica_map ids;    /* static id -> index into last[] */
    uint64_t *last;         /* per static id: last byte of its previous access */
    size_t n_last;
    uint64_t global_last;
};

struct mica_stride {
    struct side read, write;
};

struct mica_stride *mica_stride_new(void)
{
    return mica_xcalloc(1, sizeof(struct mica_stride));
}

static unsigned bin_of(uint64_t stride)
{
    unsigned b = 0;
    while (b < MICA_STRIDE_BOUNDS && stride > mica_stride_bounds[b])
        b++;
    return b;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static void access(struct side *s, uint64_t id, uint64_t ea, uint32_t size)
{
    bool fresh;
    uint32_t *v = mica_map_put(&s->ids, id, &fresh);
    if (fresh) {
        if (s->ids.n > s->n_last) {
            size_t n = s->n_last ? 2 * s->n_last : 256;
            uint64_t *p = realloc(s->last, n * sizeof(*p));
            if (!p)
                abort();
            s->last = p;
            s->n_last = n;
        }
        *v = (uint32_t)(s->ids.n - 1);
        s->last[*v] = 0; /* the first access is measured from address 0 */
    }
    s->count++;
    s->local[bin_of(distance(ea, s->last[*v]))]++;
    s->last[*v] = ea + size - 1;
    s->global[bin_of(distance(ea, s->global_last))]++;
    s->global_last = ea + size - 1;
}

void mica_stride_record(struct mica_stride *s, const struct mica_rec *r)
{
    /* Each static read operand is its own id (read1, read2); each static
     * writing instruction one id. */
    if (r->mem_read) {
        access(&s->read, r->pc << 1, r->read1_ea, r->read_size);
        if (r->has_read2)
            access(&s->read, (r->pc << 1) | 1, r->read2_ea, r->read_size);
    }
    if (r->mem_write)
        access(&s->write, r->pc, r->write_ea, r->write_size);
}

static uint64_t *side_line(const struct side *s, uint64_t *v)
{
    *v++ = s->count;
    const uint64_t *h[2] = { s->local, s->global };
    for (unsigned k = 0; k < 2; k++) {
        uint64_t cum = 0;
        for (unsigned b = 0; b < MICA_STRIDE_BOUNDS; b++) {
            cum += h[k][b];
            *v++ = cum;
        }
    }
    return v;
}

void mica_stride_line(const struct mica_stride *s, uint64_t *v)
{
    side_line(&s->write, side_line(&s->read, v));
}

static void side_reset(struct side *s)
{
    s->count = 0;
    memset(s->local, 0, sizeof(s->local));
    memset(s->global, 0, sizeof(s->global));
}

void mica_stride_reset(struct mica_stride *s)
{
    side_reset(&s->read);
    side_reset(&s->write);
}

void mica_stride_free(struct mica_stride *s)
{
    if (!s)
        return;
    mica_map_free(&s->read.ids);
    mica_map_free(&s->write.ids);
    free(s->read.last);
    free(s->write.last);
    free(s);
}
