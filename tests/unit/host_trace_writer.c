/*
 * host_trace_writer.c — see host_trace_writer.h.
 */
#include "host_trace_writer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void put(struct trace_writer *w, const void *p, size_t n)
{
    if (w->n + n > w->cap) {
        while (w->n + n > w->cap)
            w->cap = w->cap ? 2 * w->cap : 4096;
        w->buf = realloc(w->buf, w->cap);
        if (!w->buf)
            abort();
    }
    memcpy(w->buf + w->n, p, n);
    w->n += n;
}

static void put_le(struct trace_writer *w, uint64_t v, unsigned n)
{
    uint8_t b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, n);
}

static void put_uleb(struct trace_writer *w, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        put(w, &b, 1);
    } while (v);
}

static void put_sleb(struct trace_writer *w, int64_t v)
{
    for (;;) {
        uint8_t b = v & 0x7f;
        v >>= 7; /* arithmetic shift (gcc) */
        bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
        if (!done)
            b |= 0x80;
        put(w, &b, 1);
        if (done)
            return;
    }
}

void tw_begin(struct trace_writer *w, uint64_t fs_base, uint64_t gs_base, uint64_t start_rip)
{
    memset(w, 0, sizeof(*w));
    put(w, NB_TRACE_MAGIC, 8);
    put_le(w, NB_TRACE_VERSION, 4);
    put_le(w, NB_TRACE_HEADER_SIZE, 4);
    put_le(w, 0, 8); /* count, patched */
    put_le(w, fs_base, 8);
    put_le(w, gs_base, 8);
    put_le(w, NB_TRACE_END_DONE, 4);
    put_le(w, 0, 4);
    put_le(w, start_rip, 8);
    put_le(w, 0, 8);
}

void tw_insn(struct trace_writer *w, uint64_t rip, const uint8_t *bytes, unsigned n_bytes,
             const uint64_t regs[NB_TRACE_NREGS])
{
    uint64_t mask = 0;
    for (unsigned i = 0; i < NB_TRACE_NREGS; i++)
        if (w->count == 0 || regs[i] != w->regs[i])
            mask |= 1ull << i;
    uint8_t tag = NB_TRACE_TAG_INSN | (bytes ? NB_TRACE_HAS_BYTES : 0) |
                  (mask ? NB_TRACE_HAS_REGS : 0);
    put(w, &tag, 1);
    put_sleb(w, (int64_t)(rip - w->prev_rip));
    w->prev_rip = rip;
    if (bytes) {
        uint8_t n = (uint8_t)n_bytes;
        put(w, &n, 1);
        put(w, bytes, n_bytes);
    }
    if (mask) {
        put_uleb(w, mask);
        for (unsigned i = 0; i < NB_TRACE_NREGS; i++)
            if (mask & (1ull << i)) {
                put_uleb(w, regs[i] ^ w->regs[i]);
                w->regs[i] = regs[i];
            }
    }
    w->count++;
}

void tw_end(struct trace_writer *w, uint64_t end_rip)
{
    uint8_t tag = NB_TRACE_TAG_END;
    put(w, &tag, 1);
    put_le(w, end_rip, 8);
    for (unsigned i = 0; i < 8; i++)
        w->buf[16 + i] = (uint8_t)(w->count >> (8 * i));
}

void tw_free(struct trace_writer *w)
{
    free(w->buf);
    memset(w, 0, sizeof(*w));
}
