/*
 * mica_trace.c — see mica_trace.h and lib/nb_trace_format.h.
 */
#include "mica_trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_at(struct mica_trace *t, size_t offset, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(t->err, sizeof(t->err), "%s: byte offset %zu: ", t->name, offset);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof(t->err))
        vsnprintf(t->err + n, sizeof(t->err) - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int mica_trace_open(struct mica_trace *t, const char *name, const uint8_t *buf, size_t size)
{
    memset(t, 0, sizeof(*t));
    t->name = name;
    t->buf = buf;
    t->size = size;
    if (size < 12 || memcmp(buf, NB_TRACE_MAGIC, 8) != 0)
        return fail_at(t, 0, "not a trace file (no \"NBTRACE\" magic)");
    t->h.version = (uint32_t)le(buf + 8, 4);
    if (t->h.version != NB_TRACE_VERSION)
        return fail_at(t, 8, "version %u, this reader knows version %u", t->h.version,
                       NB_TRACE_VERSION);
    if (size < NB_TRACE_HEADER_SIZE)
        return fail_at(t, size, "truncated header (%zu of %u bytes)", size, NB_TRACE_HEADER_SIZE);
    t->h.header_size = (uint32_t)le(buf + 12, 4);
    if (t->h.header_size < NB_TRACE_HEADER_SIZE)
        return fail_at(t, 12, "header size %u, at least %u expected", t->h.header_size,
                       NB_TRACE_HEADER_SIZE);
    if (t->h.header_size > size)
        return fail_at(t, size, "truncated header (%zu of %u bytes)", size, t->h.header_size);
    t->h.n_records = le(buf + 16, 8);
    t->h.fs_base = le(buf + 24, 8);
    t->h.gs_base = le(buf + 32, 8);
    t->h.end_reason = (uint32_t)le(buf + 40, 4);
    t->h.vector = (uint32_t)le(buf + 44, 4);
    t->h.start_rip = le(buf + 48, 8);
    if (t->h.end_reason > NB_TRACE_END_FAULT)
        return fail_at(t, 40, "unknown end reason %u", t->h.end_reason);
    /* A later version's longer header is skipped. */
    t->pos = t->h.header_size;
    return 0;
}

static int truncated(struct mica_trace *t)
{
    return fail_at(t, t->size, "truncated inside record %llu (no end record)",
                   (unsigned long long)t->n_read + 1);
}

static int uleb(struct mica_trace *t, uint64_t *v)
{
    size_t start = t->pos;
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (t->pos >= t->size)
            return truncated(t);
        uint8_t b = t->buf[t->pos++];
        if (shift == 63 && (b & 0x7e))
            return fail_at(t, start, "LEB128 number larger than 64 bits");
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        if (shift == 63)
            return fail_at(t, start, "LEB128 number longer than 10 bytes");
    }
    *v = x;
    return 0;
}

static int sleb(struct mica_trace *t, int64_t *v)
{
    size_t start = t->pos;
    uint64_t x = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        if (t->pos >= t->size)
            return truncated(t);
        if (shift > 63)
            return fail_at(t, start, "LEB128 number longer than 10 bytes");
        b = t->buf[t->pos++];
        x |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        x |= ~0ull << shift;
    *v = (int64_t)x;
    return 0;
}

static uint8_t *code_slot(struct mica_trace *t, uint64_t rip, bool create)
{
    if (!create) {
        uint32_t *v = mica_map_get(&t->addr, rip);
        return v ? t->code[*v] : NULL;
    }
    bool fresh;
    uint32_t *v = mica_map_put(&t->addr, rip, &fresh);
    if (fresh) {
        if (t->n_code == t->cap_code) {
            t->cap_code = t->cap_code ? 2 * t->cap_code : 1024;
            t->code = realloc(t->code, t->cap_code * sizeof(*t->code));
            if (!t->code)
                abort();
        }
        *v = (uint32_t)t->n_code++;
        t->code[*v][0] = 0;
    }
    return t->code[*v];
}

static int end_record(struct mica_trace *t)
{
    size_t at = t->pos - 1;
    if (t->size - t->pos < 8)
        return fail_at(t, at, "truncated end record");
    t->end_rip = le(t->buf + t->pos, 8);
    t->pos += 8;
    if (t->pos != t->size)
        return fail_at(t, t->pos, "%zu bytes after the end record", t->size - t->pos);
    if (t->n_read != t->h.n_records)
        return fail_at(t, 16, "header says %llu records, the file has %llu",
                       (unsigned long long)t->h.n_records, (unsigned long long)t->n_read);
    t->done = true;
    return 0;
}

int mica_trace_next(struct mica_trace *t, struct mica_trace_insn *out)
{
    if (t->done)
        return 0;
    if (t->pos >= t->size)
        return truncated(t);
    size_t at = t->pos;
    uint8_t tag = t->buf[t->pos++];
    if (tag == NB_TRACE_TAG_END)
        return end_record(t);
    if (!(tag & NB_TRACE_TAG_INSN) ||
        (tag & ~(NB_TRACE_TAG_INSN | NB_TRACE_HAS_BYTES | NB_TRACE_HAS_REGS)))
        return fail_at(t, at, "unknown record tag 0x%02x", tag);
    if (t->n_read == 0 && !(tag & NB_TRACE_HAS_REGS))
        return fail_at(t, at, "the first record must carry every register");
    int64_t delta = 0;
    if (sleb(t, &delta) < 0)
        return -1;
    t->rip += (uint64_t)delta;
    out->bytes_changed = false;
    if (tag & NB_TRACE_HAS_BYTES) {
        if (t->pos >= t->size)
            return truncated(t);
        size_t n_at = t->pos;
        uint8_t n = t->buf[t->pos++];
        if (n == 0 || n > NB_TRACE_MAX_INSN_BYTES)
            return fail_at(t, n_at, "instruction length %u (1 ... %u)", n,
                           NB_TRACE_MAX_INSN_BYTES);
        if (t->size - t->pos < n)
            return truncated(t);
        uint8_t *slot = code_slot(t, t->rip, true);
        if (slot[0] != n || memcmp(slot + 1, t->buf + t->pos, n) != 0) {
            slot[0] = n;
            memcpy(slot + 1, t->buf + t->pos, n);
            out->bytes_changed = true;
        }
        t->pos += n;
    }
    if (tag & NB_TRACE_HAS_REGS) {
        size_t mask_at = t->pos;
        uint64_t mask;
        if (uleb(t, &mask) < 0)
            return -1;
        if (mask >> NB_TRACE_NREGS)
            return fail_at(t, mask_at, "register mask 0x%llx names registers past RFLAGS",
                           (unsigned long long)mask);
        if (t->n_read == 0 && mask != (1u << NB_TRACE_NREGS) - 1)
            return fail_at(t, mask_at, "the first record must carry every register");
        for (unsigned i = 0; i < NB_TRACE_NREGS; i++) {
            if (!(mask & (1ull << i)))
                continue;
            uint64_t x;
            if (uleb(t, &x) < 0)
                return -1;
            t->regs[i] ^= x;
        }
    }
    t->n_read++;
    out->rip = t->rip;
    out->regs = t->regs;
    const uint8_t *slot = code_slot(t, t->rip, false);
    out->bytes = slot ? slot + 1 : NULL;
    out->n_bytes = slot ? slot[0] : 0;
    return 1;
}

void mica_trace_close(struct mica_trace *t)
{
    mica_map_free(&t->addr);
    free(t->code);
    t->code = NULL;
    t->n_code = t->cap_code = 0;
}
