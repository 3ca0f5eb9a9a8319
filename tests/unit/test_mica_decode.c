/*
 * test_mica_decode.c — the Zydis mapping of tools/mica/mica_decode.c: for
 * a table of instructions, the register lists after the Pin-style filter,
 * the register-operand count, the XED category and iclass, and the memory
 * accesses computed from known register values.
 */
#include "nb_test.h"

#include "mica_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PC 0x400000ull
#define FS 0x100000ull
#define GS 0x200000ull

struct row {
    const char *what;
    uint8_t bytes[15];
    unsigned n;
    const char *category, *iclass;
    const char *reads, *writes; /* register names, sorted, space-separated */
    unsigned ops;
    uint64_t read1, read2;      /* EA, 0 = none */
    uint32_t read_size;
    uint64_t write;
    uint32_t write_size;
};

/* Register values before every instruction of the table. */
static void regs_init(uint64_t *r)
{
    memset(r, 0, NB_TRACE_NREGS * sizeof(*r));
    r[NB_TRACE_RAX] = 0x1000;
    r[NB_TRACE_RBX] = 0x100002000ull;
    r[NB_TRACE_RCX] = 3;
    r[NB_TRACE_RSP] = 0x7000;
    r[NB_TRACE_RBP] = 0x8000;
    r[NB_TRACE_RSI] = 0x20000000;
    r[NB_TRACE_RDI] = 0x30000000;
}

static const struct row rows[] = {
    { "push rax", { 0x50 }, 1, "PUSH", "PUSH", "rax rsp", "rsp", 1, 0, 0, 0, 0x6ff8, 8 },
    { "pop rax", { 0x58 }, 1, "POP", "POP", "rsp", "rax rsp", 1, 0x7000, 0, 8, 0, 0 },
    { "push qword [rax]", { 0xff, 0x30 }, 2, "PUSH", "PUSH", "rax rsp", "rsp", 0,
      0x1000, 0, 8, 0x6ff8, 8 },
    { "pushfq", { 0x9c }, 1, "PUSH", "PUSHFQ", "rsp", "rsp", 1, 0, 0, 0, 0x6ff8, 8 },
    { "call rel32", { 0xe8, 0, 0, 0, 0 }, 5, "CALL", "CALL_NEAR", "rsp", "rsp", 1,
      0, 0, 0, 0x6ff8, 8 },
    { "ret", { 0xc3 }, 1, "RET", "RET_NEAR", "rsp", "rsp", 1, 0x7000, 0, 8, 0, 0 },
    { "leave", { 0xc9 }, 1, "MISC", "LEAVE", "rbp rsp", "rbp rsp", 1, 0x8000, 0, 8, 0, 0 },
    { "rep movsb", { 0xf3, 0xa4 }, 2, "STRINGOP", "MOVSB", "rcx rdi rsi", "rcx rdi rsi", 2,
      0x20000000, 0, 1, 0x30000000, 1 },
    { "repe cmpsb", { 0xf3, 0xa6 }, 2, "STRINGOP", "CMPSB", "rcx rdi rsi", "rcx rdi rsi", 2,
      0x20000000, 0x30000000, 1, 0, 0 },
    { "stosq", { 0x48, 0xab }, 2, "STRINGOP", "STOSQ", "rax rdi", "rdi", 2, 0, 0, 0,
      0x30000000, 8 },
    { "cmovz rax, rbx", { 0x48, 0x0f, 0x44, 0xc3 }, 4, "CMOV", "CMOVZ", "rbx", "rax", 3,
      0, 0, 0, 0, 0 },
    { "cmovz rax, [rax]", { 0x48, 0x0f, 0x44, 0x00 }, 4, "CMOV", "CMOVZ", "rax", "rax", 2,
      0x1000, 0, 8, 0, 0 },
    { "lea rax, [rbx+rcx*8]", { 0x48, 0x8d, 0x04, 0xcb }, 4, "MISC", "LEA", "rbx rcx", "rax", 1,
      0, 0, 0, 0, 0 },
    { "mov rax, [rbx+rcx*8+0x10]", { 0x48, 0x8b, 0x44, 0xcb, 0x10 }, 5, "DATAXFER", "MOV",
      "rbx rcx", "rax", 1, 0x100002000ull + 24 + 0x10, 0, 8, 0, 0 },
    { "mov rax, [rip+0x10]", { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7, "DATAXFER", "MOV", "",
      "rax", 1, PC + 7 + 0x10, 0, 8, 0, 0 },
    { "mov eax, fs:[rbx+8]", { 0x64, 0x8b, 0x43, 0x08 }, 4, "DATAXFER", "MOV", "rbx", "eax", 1,
      FS + 0x100002008ull, 0, 4, 0, 0 },
    { "mov [gs:0x10], ecx", { 0x65, 0x89, 0x0c, 0x25, 0x10, 0, 0, 0 }, 8, "DATAXFER", "MOV",
      "ecx", "", 1, 0, 0, 0, GS + 0x10, 4 },
    { "mov eax, [ebx] (32-bit address)", { 0x67, 0x8b, 0x03 }, 3, "DATAXFER", "MOV", "ebx",
      "eax", 1, 0x2000, 0, 4, 0, 0 },
    { "mov al, ah", { 0x88, 0xe0 }, 2, "DATAXFER", "MOV", "ah", "al", 2, 0, 0, 0, 0, 0 },
    { "add qword [rbx], 1", { 0x48, 0x83, 0x03, 0x01 }, 4, "BINARY", "ADD", "rbx", "", 1,
      0x100002000ull, 0, 8, 0x100002000ull, 8 },
    { "add rax, 1", { 0x48, 0x83, 0xc0, 0x01 }, 4, "BINARY", "ADD", "rax", "rax", 2,
      0, 0, 0, 0, 0 },
    { "xor eax, eax", { 0x31, 0xc0 }, 2, "LOGICAL", "XOR", "eax", "eax", 3, 0, 0, 0, 0, 0 },
    { "shl rax, cl", { 0x48, 0xd3, 0xe0 }, 3, "SHIFT", "SHL", "cl rax", "rax", 3, 0, 0, 0, 0, 0 },
    { "addsd xmm0, xmm1", { 0xf2, 0x0f, 0x58, 0xc1 }, 4, "SSE", "ADDSD", "xmm0 xmm1", "xmm0", 2,
      0, 0, 0, 0, 0 },
    { "movsd xmm0, [rax]", { 0xf2, 0x0f, 0x10, 0x00 }, 4, "DATAXFER", "MOVSD_XMM", "rax", "xmm0",
      1, 0x1000, 0, 8, 0, 0 },
    { "vaddps ymm0, ymm1, ymm2", { 0xc5, 0xf4, 0x58, 0xc2 }, 4, "AVX", "VADDPS", "ymm1 ymm2",
      "ymm0", 3, 0, 0, 0, 0, 0 },
    { "paddd mm0, mm1", { 0x0f, 0xfe, 0xc1 }, 3, "MMX", "PADDD", "mm0 mm1", "mm0", 2,
      0, 0, 0, 0, 0 },
    { "fadd st0, st1", { 0xd8, 0xc1 }, 2, "X87_ALU", "FADD", "st0 st1", "st0 x87status", 3,
      0, 0, 0, 0, 0 },
    { "fld qword [rax]", { 0xdd, 0x00 }, 2, "X87_ALU", "FLD", "rax", "st0 x87status", 2,
      0x1000, 0, 8, 0, 0 },
    { "nop", { 0x90 }, 1, "NOP", "NOP", "", "", 0, 0, 0, 0, 0, 0 },
    { "rdtsc", { 0x0f, 0x31 }, 2, "SYSTEM", "RDTSC", "", "eax edx", 2, 0, 0, 0, 0, 0 },
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *names(const uint16_t *ids, unsigned n, char *buf, size_t len)
{
    const char *v[MICA_MAX_REGS];
    for (unsigned i = 0; i < n; i++)
        v[i] = mica_decode_reg_name(ids[i]);
    qsort(v, n, sizeof(v[0]), cmp_str);
    size_t k = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", v[i]);
    return buf;
}

NB_TEST(mica_decode_table)
{
    uint64_t regs[NB_TRACE_NREGS];
    regs_init(regs);
    for (size_t i = 0; i < NB_ARRAY_SIZE(rows); i++) {
        const struct row *w = &rows[i];
        struct mica_decoder d;
        mica_decoder_init(&d, FS, GS);
        struct mica_rec r;
        char err[200], b1[200], b2[200];
        int rc = mica_decode(&d, PC, w->bytes, w->n, true, regs, PC + w->n, &r, err, sizeof(err));
        if (!CHECK_EQ_INT(rc, 0)) {
            nb_test_note("%s: %s", w->what, err);
            mica_decoder_free(&d);
            continue;
        }
        int before = 0;
        before += !CHECK_EQ_INT(r.len, w->n);
        before += !CHECK_EQ_STR(mica_category_name(r.category), w->category);
        before += !CHECK_EQ_STR(r.iclass, w->iclass);
        before += !CHECK_EQ_STR(names(r.regs_read, r.n_regs_read, b1, sizeof(b1)), w->reads);
        before += !CHECK_EQ_STR(names(r.regs_written, r.n_regs_written, b2, sizeof(b2)), w->writes);
        before += !CHECK_EQ_INT(r.n_reg_operands, w->ops);
        before += !CHECK_EQ_INT(r.mem_read, w->read1 != 0);
        before += !CHECK_EQ_U64(r.read1_ea, w->read1);
        before += !CHECK_EQ_INT(r.has_read2, w->read2 != 0);
        before += !CHECK_EQ_U64(r.read2_ea, w->read2);
        before += !CHECK_EQ_INT(r.read_size, w->read_size);
        before += !CHECK_EQ_INT(r.mem_write, w->write != 0);
        before += !CHECK_EQ_U64(r.write_ea, w->write);
        before += !CHECK_EQ_INT(r.write_size, w->write_size);
        if (before)
            nb_test_note("in row `%s`", w->what);
        mica_decoder_free(&d);
    }
}

NB_TEST(mica_decode_branch_and_rep)
{
    uint64_t regs[NB_TRACE_NREGS];
    regs_init(regs);
    struct mica_decoder d;
    mica_decoder_init(&d, 0, 0);
    struct mica_rec r;
    char err[200];
    static const uint8_t jnz[] = { 0x75, 0xfe };
    REQUIRE(mica_decode(&d, PC, jnz, 2, true, regs, PC, &r, err, sizeof(err)) == 0);
    CHECK_EQ_STR(mica_category_name(r.category), "COND_BR");
    CHECK_EQ_STR(r.iclass, "JNZ");
    CHECK_EQ_INT(r.n_reg_operands, 2);
    CHECK(r.taken);
    CHECK(r.counts_hpc);
    REQUIRE(mica_decode(&d, PC, jnz, 2, false, regs, PC + 2, &r, err, sizeof(err)) == 0);
    CHECK(!r.taken);

    /* rep movsb, RCX = 3: three iterations at one address, counted once by N_hpc. */
    static const uint8_t rep_movsb[] = { 0xf3, 0xa4 };
    uint64_t pc = 0x500000;
    for (unsigned i = 0; i < 3; i++) {
        REQUIRE(mica_decode(&d, pc, rep_movsb, 2, i == 0, regs, i < 2 ? pc : pc + 2, &r, err,
                            sizeof(err)) == 0);
        CHECK_EQ_INT(r.counts_hpc, i == 0);
        CHECK_EQ_U64(r.read1_ea, 0x20000000 + i);
        CHECK_EQ_U64(r.write_ea, 0x30000000 + i);
        regs[NB_TRACE_RSI]++;
        regs[NB_TRACE_RDI]++;
        regs[NB_TRACE_RCX]--;
    }
    /* A REP with RCX = 0 is one record, counted zero times (§1.2), EAs still given. */
    REQUIRE(mica_decode(&d, PC + 0x100, rep_movsb, 2, true, regs, PC + 0x102, &r, err,
                        sizeof(err)) == 0);
    CHECK(!r.counts_hpc);
    CHECK_EQ_U64(r.read1_ea, 0x20000003);
    /* Undecodable bytes: a clear error naming the address. */
    static const uint8_t bad[] = { 0x0f, 0xff };
    CHECK(mica_decode(&d, 0x1234, bad, 2, true, regs, 0x1236, &r, err, sizeof(err)) < 0);
    CHECK(strstr(err, "0x1234") != NULL);
    mica_decoder_free(&d);
}

/* A NOP's memory operand (nop dword [rax+0]): a read of 4 bytes at RAX by
 * default, as Pin reports it to MICA; none with nop_mem off (-mica_nop_mem off). */
NB_TEST(mica_decode_nop_mem)
{
    uint64_t regs[NB_TRACE_NREGS];
    regs_init(regs);
    static const uint8_t nop_mem[] = { 0x0f, 0x1f, 0x40, 0x00 };
    struct mica_rec r;
    char err[200];
    struct mica_decoder d;
    mica_decoder_init(&d, 0, 0);
    REQUIRE(mica_decode(&d, PC, nop_mem, 4, true, regs, PC + 4, &r, err, sizeof(err)) == 0);
    CHECK_EQ_STR(mica_category_name(r.category), "WIDENOP");
    CHECK(r.mem_read);
    CHECK_EQ_U64(r.read1_ea, 0x1000);
    CHECK_EQ_INT(r.read_size, 4);
    unsigned regs_read = r.n_regs_read;
    mica_decoder_free(&d);

    mica_decoder_init(&d, 0, 0);
    d.nop_mem = false;
    REQUIRE(mica_decode(&d, PC, nop_mem, 4, true, regs, PC + 4, &r, err, sizeof(err)) == 0);
    CHECK(!r.mem_read);
    CHECK_EQ_U64(r.read1_ea, 0);
    CHECK_EQ_INT(r.read_size, 0);
    /* The registers are unchanged (RAX, the address register, is still read). */
    CHECK_EQ_INT(r.n_regs_read, regs_read);
    mica_decoder_free(&d);
}

/* The DBT capture: addresses from the accesses QEMU reported, no registers. */
NB_TEST(mica_decode_from_accesses)
{
    struct mica_decoder d;
    mica_decoder_init(&d, 0, 0);
    struct mica_rec r;
    char err[200];
    /* add qword [rbx], 1: QEMU loads then stores the same address. */
    static const uint8_t add_mem[] = { 0x48, 0x83, 0x03, 0x01 };
    const struct mica_access rmw[] = { { 0x601040, false }, { 0x601040, true } };
    REQUIRE(mica_decode_accesses(&d, PC, add_mem, 4, true, rmw, 2, PC + 4, &r, err, sizeof(err)) == 0);
    CHECK(r.mem_read && r.mem_write && !r.has_read2);
    CHECK_EQ_U64(r.read1_ea, 0x601040);
    CHECK_EQ_U64(r.write_ea, 0x601040);
    CHECK_EQ_INT(r.read_size, 8);
    CHECK_EQ_INT(r.write_size, 8);
    /* push qword [rax]: load of the operand, store below RSP. */
    static const uint8_t push_mem[] = { 0xff, 0x30 };
    const struct mica_access push[] = { { 0x1000, false }, { 0x6ff8, true } };
    REQUIRE(mica_decode_accesses(&d, PC + 8, push_mem, 2, true, push, 2, PC + 10, &r, err,
                                 sizeof(err)) == 0);
    CHECK_EQ_U64(r.read1_ea, 0x1000);
    CHECK_EQ_U64(r.write_ea, 0x6ff8);
    /* cmpsb: QEMU loads [RDI] first; MICA's read1 is [RSI], read2 [RDI]. */
    static const uint8_t cmpsb[] = { 0xa6 };
    const struct mica_access cmp[] = { { 0x30000000, false }, { 0x20000000, false } };
    REQUIRE(mica_decode_accesses(&d, PC + 16, cmpsb, 1, true, cmp, 2, PC + 17, &r, err,
                                 sizeof(err)) == 0);
    CHECK(r.has_read2);
    CHECK_EQ_U64(r.read1_ea, 0x20000000);
    CHECK_EQ_U64(r.read2_ea, 0x30000000);
    /* xchg [rbx], rax (locked): one store callback only still gives the read its address. */
    static const uint8_t xchg[] = { 0x48, 0x87, 0x03 };
    const struct mica_access locked[] = { { 0x601080, true } };
    REQUIRE(mica_decode_accesses(&d, PC + 24, xchg, 3, true, locked, 1, PC + 27, &r, err,
                                 sizeof(err)) == 0);
    CHECK_EQ_U64(r.read1_ea, 0x601080);
    CHECK_EQ_U64(r.write_ea, 0x601080);
    /* rep movsb: counted once (first iteration); with no access (RCX = 0) not at all,
     * and then no memory operand either. */
    static const uint8_t rep_movsb[] = { 0xf3, 0xa4 };
    const struct mica_access mv[] = { { 0x20000000, false }, { 0x30000000, true } };
    uint64_t pc = 0x500000;
    REQUIRE(mica_decode_accesses(&d, pc, rep_movsb, 2, true, mv, 2, pc, &r, err, sizeof(err)) == 0);
    CHECK(r.counts_hpc);
    REQUIRE(mica_decode_accesses(&d, pc, rep_movsb, 2, false, mv, 2, pc + 2, &r, err, sizeof(err)) == 0);
    CHECK(!r.counts_hpc);
    REQUIRE(mica_decode_accesses(&d, pc + 0x10, rep_movsb, 2, true, NULL, 0, pc + 0x12, &r, err,
                                 sizeof(err)) == 0);
    CHECK(!r.counts_hpc);
    CHECK(!r.mem_read && !r.mem_write);
    CHECK_EQ_U64(r.read1_ea, 0);
    /* A NOP's memory operand: QEMU makes no access, so none here. */
    static const uint8_t nop_mem[] = { 0x0f, 0x1f, 0x40, 0x00 };
    REQUIRE(mica_decode_accesses(&d, PC + 32, nop_mem, 4, true, NULL, 0, PC + 36, &r, err,
                                 sizeof(err)) == 0);
    CHECK(!r.mem_read);
    /* A conditional branch: taken when the next instruction is not the fall-through. */
    static const uint8_t jnz[] = { 0x75, 0xfe };
    REQUIRE(mica_decode_accesses(&d, PC + 40, jnz, 2, true, NULL, 0, PC + 40, &r, err, sizeof(err)) == 0);
    CHECK(r.taken);
    mica_decoder_free(&d);
}
