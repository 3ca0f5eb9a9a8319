/*
 * mica_capture.c — single-step records for -mica (see mica_capture.h and
 * lib/nb_trace_format.h for the encoding).
 */
#include "mica_capture.h"
#include "nb_text.h"

struct mica_capture *mica_capture_current;

#define RECORD_MAX MICA_CAPTURE_RECORD_MAX
#define END_RECORD_SIZE MICA_CAPTURE_END_RECORD_SIZE

void mica_capture_begin(struct mica_capture *c, uint8_t *buf, size_t cap, struct mica_seen *seen,
                        size_t seen_cap, uint64_t start, uint64_t stop, uint64_t max_instructions)
{
    nb_memset(c, 0, sizeof(*c));
    c->buf = buf;
    c->cap = cap;
    c->seen = seen;
    c->seen_cap = seen_cap;
    c->start = start;
    c->stop = stop;
    c->max_instructions = max_instructions;
}

static void put_u8(struct mica_capture *c, uint8_t v)
{
    c->buf[c->len++] = v;
}

static void put_uleb(struct mica_capture *c, uint64_t v)
{
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        put_u8(c, (uint8_t)(b | (v ? 0x80 : 0)));
    } while (v);
}

static void put_sleb(struct mica_capture *c, int64_t v)
{
    for (;;) {
        uint8_t b = v & 0x7F;
        v >>= 7; /* arithmetic shift: GCC and Clang define it for signed values */
        bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
        put_u8(c, (uint8_t)(b | (done ? 0 : 0x80)));
        if (done)
            return;
    }
}

/*
 * True when the bytes at `rip` must go into the record: the first time the
 * address runs, or when they changed. A full table answers true (a reader
 * keeps the last bytes per address, so a repeat costs only space).
 */
static bool bytes_needed(struct mica_capture *c, uint64_t rip, const uint8_t *bytes)
{
    if (!c->seen || !c->seen_cap)
        return true;
    size_t mask = c->seen_cap - 1, i = (size_t)((rip * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    for (size_t probes = 0; probes < c->seen_cap; probes++, i = (i + 1) & mask) {
        struct mica_seen *s = &c->seen[i];
        if (s->rip == rip) {
            if (nb_memcmp(s->bytes, bytes, NB_TRACE_MAX_INSN_BYTES) == 0)
                return false;
            nb_memcpy(s->bytes, bytes, NB_TRACE_MAX_INSN_BYTES);
            return true;
        }
        if (s->rip == 0) {
            s->rip = rip;
            nb_memcpy(s->bytes, bytes, NB_TRACE_MAX_INSN_BYTES);
            return true;
        }
    }
    return true;
}

static bool is_legacy_prefix(uint8_t b)
{
    return b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 ||
           b == 0x64 || b == 0x65 || b == 0x66 || b == 0x67;
}

bool mica_is_rep_string(const uint8_t *bytes)
{
    bool rep = false;
    size_t i = 0;
    while (i < 14 && is_legacy_prefix(bytes[i])) {
        rep = rep || bytes[i] == 0xF2 || bytes[i] == 0xF3;
        i++;
    }
    if (bytes[i] >= 0x40 && bytes[i] <= 0x4F)
        i++;
    uint8_t op = bytes[i];
    /* MOVS A4/A5, CMPS A6/A7, STOS AA/AB, LODS AC/AD, SCAS AE/AF (also INS/OUTS 6C-6F). */
    return rep && ((op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF) || (op >= 0x6C && op <= 0x6F));
}

const char *mica_untraceable(const uint8_t *bytes, bool *is_pushf)
{
    size_t i = 0;
    *is_pushf = false;
    while (i < 14 && is_legacy_prefix(bytes[i]))
        i++;
    if (bytes[i] >= 0x40 && bytes[i] <= 0x4F) /* REX */
        i++;
    uint8_t op = bytes[i];
    uint8_t modrm_reg = (uint8_t)((bytes[i + 1] >> 3) & 7);
    switch (op) {
    case 0x9C: *is_pushf = true; return NULL;
    case 0x9D: return "POPF (it may clear RFLAGS.TF)";
    case 0xCF: return "IRET (it loads RFLAGS.TF)";
    case 0xCC: return "INT3";
    case 0xCD: return "INT n";
    case 0xCE: return "INTO";
    case 0xF1: return "INT1";
    case 0x17: return "POP SS (it suppresses the next single-step)";
    case 0x8E: return modrm_reg == 2 ? "MOV SS (it suppresses the next single-step)" : NULL;
    case 0x0F:
        switch (bytes[i + 1]) {
        case 0x05: return "SYSCALL";
        case 0x07: return "SYSRET";
        case 0x34: return "SYSENTER";
        case 0x35: return "SYSEXIT";
        case 0x21: return "MOV from a debug register";
        case 0x23: return "MOV to a debug register";
        case 0x01: {
            uint8_t reg = (uint8_t)((bytes[i + 2] >> 3) & 7), mod = bytes[i + 2] >> 6;
            if (mod != 3 && reg == 2)
                return "LGDT";
            if (mod != 3 && reg == 3)
                return "LIDT (the #DB gate would be lost)";
            return NULL;
        }
        default: return NULL;
        }
    default: return NULL;
    }
}

/* Stops tracing here: the code goes on untraced from `rip`. */
static void stop_at(struct mica_capture *c, uint64_t *frame, enum mica_stop why, uint64_t rip)
{
    c->stopped = why;
    c->end_rip = rip;
    frame[MICA_FRAME_RFLAGS] &= ~MICA_RFLAGS_TF;
}

void mica_capture_step(uint64_t *frame)
{
    struct mica_capture *c = mica_capture_current;
    if (!c || c->stopped != MICA_RUNNING) {
        frame[MICA_FRAME_RFLAGS] &= ~MICA_RFLAGS_TF;
        return;
    }
    uint64_t rip = frame[MICA_FRAME_RIP];
    if (rip == c->stop) {
        stop_at(c, frame, MICA_STOPPED, rip);
        return;
    }
    /* The harness's own instructions between POPF and the region are not traced. */
    if (rip < c->start || rip > c->stop)
        return;
    uint64_t regs[NB_TRACE_NREGS];
    for (int r = 0; r < 16; r++)
        regs[r] = frame[r];
    regs[NB_TRACE_RSP] = frame[MICA_FRAME_RSP];
    /* As the code would see them without tracing: TF clear. */
    regs[NB_TRACE_RFLAGS] = frame[MICA_FRAME_RFLAGS] & ~MICA_RFLAGS_TF;
    if (c->pushf_before) {
        /* PUSHF (any operand size) put RFLAGS at [RSP]: bit 8 sits in its low byte pair. */
        *(volatile uint16_t *)(uintptr_t)regs[NB_TRACE_RSP] &= (uint16_t)~MICA_RFLAGS_TF;
        c->pushf_before = false;
    }
    const uint8_t *bytes = (const uint8_t *)(uintptr_t)rip;
    /*
     * A REP string instruction traps after each iteration with RIP still on
     * it; after the last one RIP has moved on (SDM vol. 3B 18.3.1.4). QEMU's
     * TCG traps once more with the count already 0: not an iteration.
     */
    if (c->count && rip == c->prev_rip && regs[NB_TRACE_RCX] == 0 && c->prev_regs[NB_TRACE_RCX] == 1 &&
        mica_is_rep_string(bytes))
        return;
    bool pushf;
    const char *refused = mica_untraceable(bytes, &pushf);
    if (refused) {
        c->refused = refused;
        stop_at(c, frame, MICA_REFUSED, rip);
        return;
    }
    if (c->count >= c->max_instructions) {
        stop_at(c, frame, MICA_TOO_LONG, rip);
        return;
    }
    if (c->cap - c->len < RECORD_MAX + END_RECORD_SIZE) {
        stop_at(c, frame, MICA_BUFFER_FULL, rip);
        return;
    }
    mica_capture_append(c, rip, regs, bytes);
    c->pushf_before = pushf;
}

void mica_capture_append(struct mica_capture *c, uint64_t rip, const uint64_t *regs, const uint8_t *bytes)
{
    bool with_bytes = bytes_needed(c, rip, bytes);
    uint32_t mask = 0;
    for (int r = 0; r < NB_TRACE_NREGS; r++)
        if (c->count == 0 || regs[r] != c->prev_regs[r])
            mask |= 1u << r;
    put_u8(c, (uint8_t)(NB_TRACE_TAG_INSN | (with_bytes ? NB_TRACE_HAS_BYTES : 0) |
                        (mask ? NB_TRACE_HAS_REGS : 0)));
    put_sleb(c, (int64_t)(rip - (c->count ? c->prev_rip : 0)));
    if (with_bytes) {
        put_u8(c, NB_TRACE_MAX_INSN_BYTES);
        for (unsigned b = 0; b < NB_TRACE_MAX_INSN_BYTES; b++)
            put_u8(c, bytes[b]);
    }
    if (mask) {
        put_uleb(c, mask);
        for (int r = 0; r < NB_TRACE_NREGS; r++)
            if (mask & (1u << r))
                put_uleb(c, regs[r] ^ (c->count ? c->prev_regs[r] : 0));
    }
    if (c->count == 0)
        c->first_rip = rip;
    for (int r = 0; r < NB_TRACE_NREGS; r++)
        c->prev_regs[r] = regs[r];
    c->prev_rip = rip;
    c->count++;
}

void mica_capture_end(struct mica_capture *c, uint64_t rip)
{
    if (c->stopped == MICA_RUNNING) {
        c->stopped = MICA_STOPPED;
        c->end_rip = rip;
    }
}

bool mica_capture_finish(struct mica_capture *c)
{
    if (c->cap - c->len < END_RECORD_SIZE)
        return false;
    put_u8(c, NB_TRACE_TAG_END);
    for (int b = 0; b < 8; b++)
        put_u8(c, (uint8_t)(c->end_rip >> (8 * b)));
    return true;
}

static void put_le(uint8_t *out, uint64_t v, int bytes)
{
    for (int b = 0; b < bytes; b++)
        out[b] = (uint8_t)(v >> (8 * b));
}

void mica_capture_file_header(const struct mica_capture *c, uint8_t out[NB_TRACE_HEADER_SIZE], uint64_t fs_base,
                              uint64_t gs_base, bool fault, uint32_t vector)
{
    nb_memset(out, 0, NB_TRACE_HEADER_SIZE);
    nb_memcpy(out, NB_TRACE_MAGIC, 8);
    put_le(out + 8, NB_TRACE_VERSION, 4);
    put_le(out + 12, NB_TRACE_HEADER_SIZE, 4);
    put_le(out + 16, c->count, 8);
    put_le(out + 24, fs_base, 8);
    put_le(out + 32, gs_base, 8);
    put_le(out + 40, fault ? NB_TRACE_END_FAULT : NB_TRACE_END_DONE, 4);
    put_le(out + 44, fault ? vector : 0, 4);
    put_le(out + 48, c->first_rip, 8);
}
