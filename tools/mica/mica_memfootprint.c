/*
 * mica_memfootprint.c — see mica_memfootprint.h.
 */
#include "mica_memfootprint.h"

#include <stdlib.h>

#include "mica_lines.h"
#include "mica_map.h"

enum { DATA_BLOCKS, DATA_PAGES, INSTR_BLOCKS, INSTR_PAGES, N_SETS };

struct mica_memfootprint {
    unsigned bits[N_SETS];
    struct mica_map set[N_SETS];
    /* The last range added to each set: straight-line code and loops add the
     * same block over and over, and a set only needs it once. */
    uint64_t last_first[N_SETS], last_last[N_SETS];
};

static void reset_cache(struct mica_memfootprint *s)
{
    for (unsigned i = 0; i < N_SETS; i++) {
        s->last_first[i] = 1;
        s->last_last[i] = 0; /* an empty range: nothing cached */
    }
}

struct mica_memfootprint *mica_memfootprint_new(unsigned block_bits, unsigned page_bits)
{
    struct mica_memfootprint *s = mica_xcalloc(1, sizeof(*s));
    s->bits[DATA_BLOCKS] = s->bits[INSTR_BLOCKS] = block_bits;
    s->bits[DATA_PAGES] = s->bits[INSTR_PAGES] = page_bits;
    reset_cache(s);
    return s;
}

static void add(struct mica_memfootprint *s, unsigned set, uint64_t ea, uint64_t size)
{
    if (size == 0)
        return;
    uint64_t first = ea >> s->bits[set], last = (ea + size - 1) >> s->bits[set];
    if (first >= s->last_first[set] && last <= s->last_last[set])
        return;
    bool fresh;
    for (uint64_t b = first; b <= last; b++)
        mica_map_put(&s->set[set], b, &fresh);
    s->last_first[set] = first;
    s->last_last[set] = last;
}

static void add_data(struct mica_memfootprint *s, uint64_t ea, uint64_t size)
{
    add(s, DATA_BLOCKS, ea, size);
    add(s, DATA_PAGES, ea, size);
}

void mica_memfootprint_record(struct mica_memfootprint *s, const struct mica_rec *r)
{
    if (r->mem_read) {
        add_data(s, r->read1_ea, r->read_size);
        if (r->has_read2)
            add_data(s, r->read2_ea, r->read_size);
    }
    if (r->mem_write)
        add_data(s, r->write_ea, r->write_size);
    add(s, INSTR_BLOCKS, r->pc, r->len);
    add(s, INSTR_PAGES, r->pc, r->len);
}

void mica_memfootprint_line(const struct mica_memfootprint *s, uint64_t *v)
{
    for (unsigned i = 0; i < N_SETS; i++)
        v[i] = mica_map_size(&s->set[i]);
}

void mica_memfootprint_reset(struct mica_memfootprint *s)
{
    for (unsigned i = 0; i < N_SETS; i++)
        mica_map_clear(&s->set[i]);
    reset_cache(s);
}

void mica_memfootprint_free(struct mica_memfootprint *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < N_SETS; i++)
        mica_map_free(&s->set[i]);
    free(s);
}
