/*
 * test_mica_trace.c — the trace reader (tools/mica/mica_trace.c) against
 * files written by the test-only writer: round trip of RIPs, registers and
 * instruction bytes, and one clear error for every kind of damage.
 */
#include "nb_test.h"

#include "host_trace_writer.h"
#include "mica_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t ADD_RAX_1[] = { 0x48, 0x83, 0xc0, 0x01 };
static const uint8_t JNZ_BACK[] = { 0x75, 0xfa };

/* Three records: add (0x1000), jnz (0x1004) taken back to add (bytes not repeated). */
static void small_trace(struct trace_writer *w)
{
    uint64_t regs[NB_TRACE_NREGS] = { 0 };
    regs[NB_TRACE_RAX] = 5;
    regs[NB_TRACE_RSP] = 0x7fff0000;
    regs[NB_TRACE_RFLAGS] = 0x202;
    tw_begin(w, 0x1111, 0x2222, 0x1000);
    tw_insn(w, 0x1000, ADD_RAX_1, 4, regs);
    regs[NB_TRACE_RAX] = 6;
    regs[NB_TRACE_RFLAGS] = 0x206;
    tw_insn(w, 0x1004, JNZ_BACK, 2, regs);
    tw_insn(w, 0x1000, NULL, 0, regs);
    regs[NB_TRACE_RAX] = 0xffffffffffffffffull; /* a 10-byte uleb delta */
    tw_end(w, 0x1004);
}

NB_TEST(mica_trace_round_trip)
{
    struct trace_writer w;
    small_trace(&w);
    struct mica_trace t;
    REQUIRE(mica_trace_open(&t, "small.trace", w.buf, w.n) == 0);
    CHECK_EQ_U64(t.h.n_records, 3);
    CHECK_EQ_U64(t.h.fs_base, 0x1111);
    CHECK_EQ_U64(t.h.gs_base, 0x2222);
    CHECK_EQ_U64(t.h.start_rip, 0x1000);
    struct mica_trace_insn in;
    REQUIRE(mica_trace_next(&t, &in) == 1);
    CHECK_EQ_U64(in.rip, 0x1000);
    CHECK_EQ_U64(in.regs[NB_TRACE_RAX], 5);
    CHECK_EQ_U64(in.regs[NB_TRACE_RSP], 0x7fff0000);
    CHECK_EQ_U64(in.regs[NB_TRACE_RFLAGS], 0x202);
    CHECK_EQ_INT(in.n_bytes, 4);
    CHECK(in.bytes_changed);
    CHECK_EQ_BYTES(in.bytes, ADD_RAX_1, 4);
    REQUIRE(mica_trace_next(&t, &in) == 1);
    CHECK_EQ_U64(in.rip, 0x1004);
    CHECK_EQ_U64(in.regs[NB_TRACE_RAX], 6);
    CHECK_EQ_U64(in.regs[NB_TRACE_RSP], 0x7fff0000);
    CHECK_EQ_U64(in.regs[NB_TRACE_RFLAGS], 0x206);
    CHECK_EQ_BYTES(in.bytes, JNZ_BACK, 2);
    REQUIRE(mica_trace_next(&t, &in) == 1);
    CHECK_EQ_U64(in.rip, 0x1000);
    CHECK(!in.bytes_changed);
    REQUIRE(in.bytes != NULL);
    CHECK_EQ_BYTES(in.bytes, ADD_RAX_1, 4);
    CHECK_EQ_INT(mica_trace_next(&t, &in), 0);
    CHECK_EQ_U64(t.end_rip, 0x1004);
    mica_trace_close(&t);
    tw_free(&w);
}

/* Opens (and reads to the end) a damaged copy; returns the error text. */
static const char *damage(size_t at, int value, size_t truncate_to, const uint8_t *extra,
                          size_t n_extra)
{
    static char err[256];
    struct trace_writer w;
    small_trace(&w);
    size_t n = truncate_to ? truncate_to : w.n;
    uint8_t *b = malloc(n + n_extra);
    memcpy(b, w.buf, n);
    if (n_extra)
        memcpy(b + n, extra, n_extra);
    if (value >= 0)
        b[at] = (uint8_t)value;
    struct mica_trace t;
    int rc = mica_trace_open(&t, "bad.trace", b, n + n_extra);
    if (rc == 0) {
        struct mica_trace_insn in;
        while ((rc = mica_trace_next(&t, &in)) > 0)
            ;
    }
    snprintf(err, sizeof(err), "%s", rc < 0 ? t.err : "(no error)");
    mica_trace_close(&t); /* safe after a failed open too */
    free(b);
    tw_free(&w);
    return err;
}

#define CHECK_HAS(text, part)                                                                \
    do {                                                                                     \
        const char *t_ = (text);                                                             \
        if (!CHECK(strstr(t_, part) != NULL))                                                \
            nb_test_note("error was: %s", t_);                                               \
    } while (0)

NB_TEST(mica_trace_errors)
{
    CHECK_HAS(damage(0, 'X', 0, NULL, 0), "bad.trace: byte offset 0: not a trace");
    CHECK_HAS(damage(8, 2, 0, NULL, 0), "byte offset 8: version 2");
    CHECK_HAS(damage(0, -1, 40, NULL, 0), "truncated header");
    CHECK_HAS(damage(12, 8, 0, NULL, 0), "header size 8");
    /* Cut inside the second record. */
    CHECK_HAS(damage(0, -1, 64 + 28, NULL, 0), "truncated");
    /* Record count in the header does not match. */
    CHECK_HAS(damage(16, 7, 0, NULL, 0), "header says 7 records, the file has 3");
    /* Something after the end record. */
    uint8_t junk = 0;
    CHECK_HAS(damage(0, -1, 0, &junk, 1), "after the end record");
    /* Unknown tag bits in the first record. */
    CHECK_HAS(damage(64, 0x41, 0, NULL, 0), "byte offset 64: unknown record tag 0x41");
    /* Instruction length 0 (the first record: tag, 2-byte sleb of 0x1000, n). */
    CHECK_HAS(damage(67, 0, 0, NULL, 0), "byte offset 67: instruction length 0");
    CHECK_HAS(damage(67, 16, 0, NULL, 0), "instruction length 16");
    /* First record without every register. */
    CHECK_HAS(damage(64, NB_TRACE_TAG_INSN | NB_TRACE_HAS_BYTES, 0, NULL, 0),
              "first record must carry every register");
}
