/*
 * test_mica_capture.c — the image's single-step records for -mica
 * (kernel/mica/mica_capture.h), fed with the frames the #DB stub would pass, and
 * checked byte for byte against lib/nb_trace_format.h; the refusals, the
 * PUSHF fix-up, the limits and QEMU's extra REP step.
 */
#include <string.h>

#include "mica_capture.h"
#include "nb_crc32.h"
#include "nb_test.h"

static uint8_t code[64];
static uint8_t records[4096];
static struct mica_seen seen[64];
static struct mica_capture cap;

static void start_capture(const uint8_t *bytes, size_t n, size_t region, uint64_t max)
{
    memset(code, 0x90, sizeof(code));
    memcpy(code, bytes, n);
    memset(seen, 0, sizeof(seen));
    mica_capture_begin(&cap, records, sizeof(records), seen, 64, (uintptr_t)code, (uintptr_t)code + region, max);
    mica_capture_current = &cap;
}

/* One #DB: RIP at code + offset, the given registers, TF set as while tracing. */
static uint64_t step(size_t offset, uint64_t rax, uint64_t rbx, uint64_t rcx, uint64_t rsp, uint64_t rflags)
{
    uint64_t frame[MICA_FRAME_SLOTS] = { 0 };
    frame[0] = rax;
    frame[1] = rcx;
    frame[3] = rbx;
    frame[4] = 0xDEAD; /* the stub's placeholder: the frame's RSP is the real one */
    frame[MICA_FRAME_RIP] = (uintptr_t)code + offset;
    frame[MICA_FRAME_RSP] = rsp;
    frame[MICA_FRAME_RFLAGS] = rflags | MICA_RFLAGS_TF;
    mica_capture_step(frame);
    return frame[MICA_FRAME_RFLAGS];
}

/* An independent LEB128 writer for the expected bytes. */
static size_t uleb(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    do {
        out[n] = (uint8_t)(v & 0x7F);
        v >>= 7;
        if (v)
            out[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

static size_t sleb(uint8_t *out, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t b = (uint8_t)(v & 0x7F);
        int64_t rest = v >> 7;
        bool last = (rest == 0 && !(b & 0x40)) || (rest == -1 && (b & 0x40));
        out[n++] = (uint8_t)(last ? b : b | 0x80);
        if (last)
            return n;
        v = rest;
    }
}

static const uint8_t ADD_PAIR[] = { 0x48, 0x01, 0xD8, 0x48, 0x01, 0xC3 }; /* add rax, rbx; add rbx, rax */

NB_TEST(mica_records_are_the_documented_bytes)
{
    start_capture(ADD_PAIR, sizeof(ADD_PAIR), 6, 100);
    CHECK(step(0, 1, 2, 0, 0x1000, 0x202) & MICA_RFLAGS_TF);
    CHECK(step(3, 3, 2, 0, 0x1000, 0x206) & MICA_RFLAGS_TF);
    CHECK(!(step(6, 3, 5, 0, 0x1000, 0x206) & MICA_RFLAGS_TF)); /* the stop: TF cleared */
    REQUIRE(mica_capture_finish(&cap));

    uint8_t want[512];
    size_t n = 0;
    /* Record 1: everything (previous values 0), RFLAGS without TF. */
    want[n++] = NB_TRACE_TAG_INSN | NB_TRACE_HAS_BYTES | NB_TRACE_HAS_REGS;
    n += sleb(want + n, (int64_t)(uintptr_t)code);
    want[n++] = 15;
    memcpy(want + n, code, 15);
    n += 15;
    n += uleb(want + n, 0x1FFFF);
    uint64_t regs[NB_TRACE_NREGS] = { [NB_TRACE_RAX] = 1, [NB_TRACE_RBX] = 2, [NB_TRACE_RSP] = 0x1000,
                                      [NB_TRACE_RFLAGS] = 0x202 };
    for (int r = 0; r < NB_TRACE_NREGS; r++)
        n += uleb(want + n, regs[r]);
    /* Record 2: a new address (bytes again), RAX and RFLAGS changed (XOR deltas). */
    want[n++] = NB_TRACE_TAG_INSN | NB_TRACE_HAS_BYTES | NB_TRACE_HAS_REGS;
    n += sleb(want + n, 3);
    want[n++] = 15;
    memcpy(want + n, code + 3, 15);
    n += 15;
    n += uleb(want + n, 1u << NB_TRACE_RAX | 1u << NB_TRACE_RFLAGS);
    n += uleb(want + n, 1 ^ 3);
    n += uleb(want + n, 0x202 ^ 0x206);
    /* End: where execution went on. */
    want[n++] = NB_TRACE_TAG_END;
    uint64_t stop = (uintptr_t)code + 6;
    for (int b = 0; b < 8; b++)
        want[n++] = (uint8_t)(stop >> (8 * b));
    CHECK_EQ_U64(cap.len, n);
    CHECK(memcmp(records, want, n) == 0);
    CHECK_EQ_U64(cap.count, 2);
    CHECK_EQ_INT(cap.stopped, MICA_STOPPED);

    uint8_t header[NB_TRACE_HEADER_SIZE];
    mica_capture_file_header(&cap, header, 0x1111, 0x2222, false, 0);
    CHECK(memcmp(header, "NBTRACE\0", 8) == 0);
    CHECK_EQ_U64(header[8], NB_TRACE_VERSION);
    CHECK_EQ_U64(header[12], NB_TRACE_HEADER_SIZE);
    CHECK_EQ_U64(header[16], 2);
    CHECK_EQ_U64(header[24] | header[25] << 8, 0x1111);
    CHECK_EQ_U64(header[32] | header[33] << 8, 0x2222);
    CHECK_EQ_U64(header[40], NB_TRACE_END_DONE);
    uint64_t first = 0;
    memcpy(&first, header + 48, 8);
    CHECK_EQ_U64(first, (uintptr_t)code);
}

NB_TEST(mica_bytes_only_the_first_time_an_address_runs)
{
    start_capture(ADD_PAIR, sizeof(ADD_PAIR), 6, 100);
    step(0, 0, 0, 0, 0x1000, 0x246);
    step(3, 0, 0, 0, 0x1000, 0x246);
    size_t before = cap.len;
    step(0, 0, 0, 0, 0x1000, 0x246); /* a loop back: same bytes, same registers */
    CHECK_EQ_U64(cap.len - before, 2);
    CHECK_EQ_U64(records[before], NB_TRACE_TAG_INSN);
    CHECK_EQ_U64(records[before + 1], 0x7D); /* sleb -3 */
    /* Bytes that changed at a known address are recorded again. */
    code[0] = 0x90;
    before = cap.len;
    step(0, 0, 0, 0, 0x1000, 0x246);
    CHECK_EQ_U64(records[before], NB_TRACE_TAG_INSN | NB_TRACE_HAS_BYTES);
}

NB_TEST(mica_harness_instructions_before_the_region_are_not_records)
{
    start_capture(ADD_PAIR, sizeof(ADD_PAIR), 6, 100);
    uint64_t frame[MICA_FRAME_SLOTS] = { 0 };
    frame[MICA_FRAME_RIP] = (uintptr_t)code - 5;
    frame[MICA_FRAME_RFLAGS] = MICA_RFLAGS_TF | 2;
    mica_capture_step(frame);
    CHECK_EQ_U64(cap.len, 0);
    CHECK(frame[MICA_FRAME_RFLAGS] & MICA_RFLAGS_TF);
}

NB_TEST(mica_refuses_popf_and_friends_and_keeps_the_trace)
{
    static const uint8_t NOP_POPF[] = { 0x90, 0x48, 0x9D };
    start_capture(NOP_POPF, sizeof(NOP_POPF), 3, 100);
    step(0, 0, 0, 0, 0x1000, 0x246);
    uint64_t flags = step(1, 0, 0, 0, 0x1000, 0x246);
    CHECK(!(flags & MICA_RFLAGS_TF));
    CHECK_EQ_INT(cap.stopped, MICA_REFUSED);
    CHECK_EQ_STR(cap.refused, "POPF (it may clear RFLAGS.TF)");
    CHECK_EQ_U64(cap.count, 1);
    CHECK_EQ_U64(cap.end_rip, (uintptr_t)code + 1);

    bool pushf;
    static const struct {
        uint8_t bytes[4];
        const char *name;
    } refused[] = {
        { { 0x48, 0xCF }, "IRET (it loads RFLAGS.TF)" }, { { 0xCC }, "INT3" }, { { 0xCD, 0x80 }, "INT n" },
        { { 0x8E, 0xD0 }, "MOV SS (it suppresses the next single-step)" }, { { 0x0F, 0x05 }, "SYSCALL" },
        { { 0x0F, 0x01, 0x18 }, "LIDT (the #DB gate would be lost)" }, { { 0x0F, 0x23, 0xF8 }, "MOV to a debug register" },
        { { 0x66, 0x9D }, "POPF (it may clear RFLAGS.TF)" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(refused); i++) {
        const char *name = mica_untraceable(refused[i].bytes, &pushf);
        CHECK(name && strcmp(name, refused[i].name) == 0);
    }
    static const uint8_t fine[][4] = { { 0x8E, 0xD8 } /* mov ds, ax */, { 0x0F, 0x01, 0xD0 } /* xgetbv */,
                                       { 0xFA } /* cli */, { 0x48, 0x01, 0xD8 } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(fine); i++)
        CHECK(mica_untraceable(fine[i], &pushf) == NULL);
}

NB_TEST(mica_pushf_leaves_tf_out_of_the_pushed_flags)
{
    static const uint8_t PUSHF_POP[] = { 0x9C, 0x58 };
    start_capture(PUSHF_POP, sizeof(PUSHF_POP), 2, 100);
    uint64_t stack[2] = { 0, 0 };
    step(0, 0, 0, 0, (uintptr_t)&stack[1], 0x246);
    /* The CPU pushed RFLAGS with TF set; the next step clears it before POP reads it. */
    stack[0] = 0x346;
    step(1, 0, 0, 0, (uintptr_t)&stack[0], 0x246);
    CHECK_EQ_U64(stack[0], 0x246);
    CHECK_EQ_U64(cap.count, 2);
}

NB_TEST(mica_stops_at_max_instructions_and_when_full)
{
    static const uint8_t NOPS[] = { 0x90, 0x90, 0x90 };
    start_capture(NOPS, sizeof(NOPS), 3, 2);
    step(0, 0, 0, 0, 0x1000, 0x246);
    step(1, 0, 0, 0, 0x1000, 0x246);
    CHECK(!(step(2, 0, 0, 0, 0x1000, 0x246) & MICA_RFLAGS_TF));
    CHECK_EQ_INT(cap.stopped, MICA_TOO_LONG);
    CHECK_EQ_U64(cap.count, 2);
    CHECK_EQ_U64(cap.end_rip, (uintptr_t)code + 2);

    /* A buffer with room for one record and the end record only. */
    start_capture(NOPS, sizeof(NOPS), 3, 100);
    cap.cap = 220; /* one worst-case record (209 bytes with the end record) fits, not two */
    step(0, 0, 0, 0, 0x1000, 0x246);
    step(1, 0, 0, 0, 0x1000, 0x246);
    CHECK_EQ_INT(cap.stopped, MICA_BUFFER_FULL);
    CHECK_EQ_U64(cap.count, 1);
    CHECK(mica_capture_finish(&cap));
    CHECK(cap.len <= cap.cap);
}

NB_TEST(mica_rep_gives_one_record_per_iteration)
{
    static const uint8_t REP_STOSB[] = { 0xF3, 0xAA };
    start_capture(REP_STOSB, sizeof(REP_STOSB), 2, 100);
    step(0, 0, 0, 3, 0x1000, 0x246);
    step(0, 0, 0, 2, 0x1000, 0x246);
    step(0, 0, 0, 1, 0x1000, 0x246);
    step(0, 0, 0, 0, 0x1000, 0x246); /* QEMU's extra trap with the count at 0: not an iteration */
    CHECK_EQ_U64(cap.count, 3);
    /* A REP reached with a count of 0 is one record. */
    start_capture(REP_STOSB, sizeof(REP_STOSB), 2, 100);
    step(0, 0, 0, 0, 0x1000, 0x246);
    CHECK_EQ_U64(cap.count, 1);
}

NB_TEST(mica_crc32_is_zlibs)
{
    CHECK_EQ_U64(nb_crc32(0, "123456789", 9), 0xCBF43926u); /* the CRC-32/ISO-HDLC check value */
    CHECK_EQ_U64(nb_crc32(nb_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}
