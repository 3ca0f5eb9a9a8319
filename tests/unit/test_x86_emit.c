/*
 * test_x86_emit.c — every encoder of x86_emit.h, byte for byte against
 * `nasm -f bin` of the same instruction, plus the SDM's recommended NOPs.
 *
 * A test emits a stream of instructions and writes the equivalent nasm lines
 * with `org` = the emitter's start, so RIP-relative operands written as
 * `$$ + delta` name the same absolute targets. One nasm run per test.
 */
#include "host_nasm.h"
#include "nb_test.h"
#include "x86_emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const REG64[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                       "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };
static const char *const REG16[16] = { "ax",  "cx",  "dx",   "bx",   "sp",   "bp",   "si",   "di",
                                       "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w" };
static const char *const REG32[16] = { "eax",  "ecx",  "edx",  "ebx",  "esp",  "ebp",
                                       "esi",  "edi",  "r8d",  "r9d",  "r10d", "r11d",
                                       "r12d", "r13d", "r14d", "r15d" };

#define MAX_CASES 4096
#define STREAM_BYTES 65536

struct stream {
    uint8_t *buf;
    struct x86_emitter e;
    char *source;
    size_t source_len;
    size_t n;
    struct {
        size_t offset, length;
        char text[96];
    } cases[MAX_CASES];
};

static void stream_init(struct stream *s)
{
    memset(s, 0, sizeof(*s));
    s->buf = calloc(1, STREAM_BYTES);
    s->source = calloc(1, 1 << 20);
    x86_emitter_init(&s->e, s->buf, STREAM_BYTES);
}

static uintptr_t at(const struct stream *s, long delta)
{
    return (uintptr_t)s->buf + (uintptr_t)delta;
}

/* Records the nasm line for the instruction just emitted (which started at `offset`). */
static void line(struct stream *s, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char text[96];
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (s->n == MAX_CASES) {
        fprintf(stderr, "test_x86_emit: more than %d cases in one stream\n", MAX_CASES);
        abort();
    }
    s->source_len += (size_t)sprintf(s->source + s->source_len, "%s\n", text);
    s->cases[s->n].offset = offset;
    s->cases[s->n].length = s->e.length - offset;
    strcpy(s->cases[s->n].text, text);
    s->n++;
}

/* Emits with `call` and records the nasm text for it. */
#define CASE(s, call, ...)                                                                   \
    do {                                                                                     \
        size_t off_ = (s)->e.length;                                                         \
        call;                                                                                \
        line((s), off_, __VA_ARGS__);                                                        \
    } while (0)

/* Assembles the recorded lines and compares them instruction by instruction. */
static void stream_check(struct stream *s)
{
    size_t len = 0;
    uint8_t *ref = host_nasm(&len, "org 0x%llx\n%s", (unsigned long long)(uintptr_t)s->buf,
                             s->source);
    if (CHECK(ref != NULL)) {
        CHECK(!s->e.overflow);
        CHECK_EQ_INT(s->e.length, len);
        for (size_t i = 0; i < s->n; i++) {
            size_t off = s->cases[i].offset, n = s->cases[i].length;
            if (off + n > len || memcmp(s->buf + off, ref + off, n) != 0) {
                CHECK_EQ_BYTES(s->buf + off, ref + off, off + n > len ? 0 : n);
                nb_test_note("first mismatch: `%s` at offset %zu (%zu bytes emitted)",
                             s->cases[i].text, off, n);
                CHECK(off + n <= len);
                break;
            }
        }
    }
    free(ref);
    free(s->buf);
    free(s->source);
}

static struct stream stream;

NB_TEST(x86_emit_rip_relative_moves)
{
    static const long deltas[] = { 0x100, -0x1000, 0, 0x7ff00000, -0x7ff00000 };
    struct stream *s = &stream;
    stream_init(s);
    for (int r = RAX; r <= R15; r++) {
        for (size_t d = 0; d < NB_ARRAY_SIZE(deltas); d++) {
            long dl = deltas[d];
            CASE(s, x86_mov_rip_from_reg64(&s->e, at(s, dl), (enum x86_reg)r),
                 "mov [rel $$ + %ld], %s", dl, REG64[r]);
            CASE(s, x86_mov_reg64_from_rip(&s->e, (enum x86_reg)r, at(s, dl)),
                 "mov %s, [rel $$ + %ld]", REG64[r], dl);
            CASE(s, x86_mov_rip_from_reg32(&s->e, at(s, dl), (enum x86_reg)r),
                 "mov [rel $$ + %ld], %s", dl, REG32[r]);
        }
    }
    stream_check(s);
}

NB_TEST(x86_emit_immediates)
{
    static const uint64_t imm64[] = { 0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                      0x123456789ABCDEF0ull, 0x8000000000000000ull, UINT64_MAX };
    static const uint32_t imm32[] = { 0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF };
    static const int32_t simm32[] = { 0, 1, -1, INT32_MAX, INT32_MIN, 1000 };
    struct stream *s = &stream;
    stream_init(s);
    for (int r = RAX; r <= R15; r++) {
        for (size_t i = 0; i < NB_ARRAY_SIZE(imm64); i++)
            CASE(s, x86_mov_reg64_imm64(&s->e, (enum x86_reg)r, imm64[i]),
                 "mov %s, strict qword 0x%llx", REG64[r], (unsigned long long)imm64[i]);
        for (size_t i = 0; i < NB_ARRAY_SIZE(imm32); i++)
            CASE(s, x86_mov_reg32_imm32(&s->e, (enum x86_reg)r, imm32[i]),
                 "mov %s, strict dword 0x%x", REG32[r], imm32[i]);
        for (size_t i = 0; i < NB_ARRAY_SIZE(simm32); i++)
            CASE(s, x86_mov_reg64_simm32(&s->e, (enum x86_reg)r, simm32[i]),
                 "mov %s, strict dword %d", REG64[r], simm32[i]);
    }
    stream_check(s);
}

NB_TEST(x86_emit_register_ops)
{
    struct stream *s = &stream;
    stream_init(s);
    for (int r = RAX; r <= R15; r++) {
        CASE(s, x86_xor_reg32(&s->e, (enum x86_reg)r), "xor %s, %s", REG32[r], REG32[r]);
        CASE(s, x86_dec_reg64(&s->e, (enum x86_reg)r), "dec %s", REG64[r]);
    }
    stream_check(s);
}

NB_TEST(x86_emit_jnz_and_fxsave)
{
    static const long deltas[] = { 0x100, -0x10, 0, 0x7ff00000, -0x7ff00000 };
    struct stream *s = &stream;
    stream_init(s);
    /* A backward loop as the code generator writes it: jnz to the start of the body. */
    CASE(s, x86_dec_reg64(&s->e, R15), "loop: dec r15");
    CASE(s, x86_jnz_rel32(&s->e, at(s, 0)), "jnz strict near loop");
    /* jnz to itself (rel32 = -6). */
    CASE(s, x86_jnz_rel32(&s->e, x86_here(&s->e)), "jnz strict near $");
    for (size_t d = 0; d < NB_ARRAY_SIZE(deltas); d++) {
        long dl = deltas[d];
        CASE(s, x86_jnz_rel32(&s->e, at(s, dl)), "jnz strict near $$ + %ld", dl);
        CASE(s, x86_fxsave64_rip(&s->e, at(s, dl)), "fxsave64 [rel $$ + %ld]", dl);
        CASE(s, x86_fxrstor64_rip(&s->e, at(s, dl)), "fxrstor64 [rel $$ + %ld]", dl);
        CASE(s, x86_xsave64_rip(&s->e, at(s, dl)), "xsave64 [rel $$ + %ld]", dl);
        CASE(s, x86_xrstor64_rip(&s->e, at(s, dl)), "xrstor64 [rel $$ + %ld]", dl);
    }
    stream_check(s);
}

NB_TEST(x86_emit_alu_shift_stack_and_rip_stores)
{
    static const enum x86_reg pairs[][2] = { { RAX, RBX }, { RCX, R8 }, { R9, RDX }, { R15, R12 },
                                             { RSP, RBP }, { R13, R14 }, { RDI, RSI } };
    static const long deltas[] = { 0x80, -0x1000, 0x7ff00000 };
    static const int32_t imms[] = { 0, 1, -1, INT32_MIN, INT32_MAX };
    struct stream *s = &stream;
    stream_init(s);
    for (size_t i = 0; i < NB_ARRAY_SIZE(pairs); i++) {
        enum x86_reg d = pairs[i][0], r = pairs[i][1];
        CASE(s, x86_or_reg64(&s->e, d, r), "or %s, %s", REG64[d], REG64[r]);
        CASE(s, x86_add_reg64(&s->e, d, r), "add %s, %s", REG64[d], REG64[r]);
        CASE(s, x86_sub_reg64(&s->e, d, r), "sub %s, %s", REG64[d], REG64[r]);
    }
    for (int r = RAX; r <= R15; r++) {
        /* strict: nasm would pick the shorter D1 /4 form for a count of 1. */
        CASE(s, x86_shl_reg64_imm8(&s->e, (enum x86_reg)r, 1), "shl %s, strict byte 1", REG64[r]);
        CASE(s, x86_shl_reg64_imm8(&s->e, (enum x86_reg)r, 32), "shl %s, strict byte 32", REG64[r]);
        CASE(s, x86_pop_reg64(&s->e, (enum x86_reg)r), "pop %s", REG64[r]);
        CASE(s, x86_mov_rip_from_reg16(&s->e, at(s, -0x40), (enum x86_reg)r),
             "mov [rel $$ - 0x40], %s", REG16[r]);
    }
    for (size_t i = 0; i < NB_ARRAY_SIZE(imms); i++) {
        for (size_t d = 0; d < NB_ARRAY_SIZE(deltas); d++)
            CASE(s, x86_mov_rip_simm32(&s->e, at(s, deltas[d]), imms[i]),
                 "mov qword [rel $$ + %ld], strict dword %d", deltas[d], imms[i]);
    }
    static const int8_t imm8[] = { 0, 1, -1, 127, -128 };
    for (size_t i = 0; i < NB_ARRAY_SIZE(imm8); i++)
        CASE(s, x86_push_imm8(&s->e, imm8[i]), "push strict byte %d", imm8[i]);
    for (size_t d = 0; d < NB_ARRAY_SIZE(deltas); d++) {
        CASE(s, x86_jmp_rel32(&s->e, at(s, deltas[d])), "jmp strict near $$ + %ld", deltas[d]);
        CASE(s, x86_sidt_rip(&s->e, at(s, deltas[d])), "sidt [rel $$ + %ld]", deltas[d]);
        CASE(s, x86_lidt_rip(&s->e, at(s, deltas[d])), "lidt [rel $$ + %ld]", deltas[d]);
    }
    CASE(s, x86_jmp_rel32(&s->e, x86_here(&s->e)), "jmp strict near $");
    for (size_t d = 0; d < NB_ARRAY_SIZE(deltas); d++) {
        CASE(s, x86_sgdt_rip(&s->e, at(s, deltas[d])), "sgdt [rel $$ + %ld]", deltas[d]);
        CASE(s, x86_lgdt_rip(&s->e, at(s, deltas[d])), "lgdt [rel $$ + %ld]", deltas[d]);
        CASE(s, x86_str_rip(&s->e, at(s, deltas[d])), "str word [rel $$ + %ld]", deltas[d]);
    }
    static const uint32_t imms32[] = { 0, 7, 0x800, 0xFFFFFFFFu, 0x80000000u };
    for (int r = 0; r < 16; r++) {
        CASE(s, x86_ltr_reg16(&s->e, (enum x86_reg)r), "ltr %s", REG16[r]);
        CASE(s, x86_movzx_reg32_from_rip16(&s->e, (enum x86_reg)r, at(s, -0x20)),
             "movzx %s, word [rel $$ + %d]", REG32[r], -0x20);
        CASE(s, x86_lea_reg64_rip(&s->e, (enum x86_reg)r, at(s, 0x1000)), "lea %s, [rel $$ + %d]",
             REG64[r], 0x1000);
        for (size_t i = 0; i < NB_ARRAY_SIZE(imms32); i++) {
            CASE(s, x86_add_reg32_imm32(&s->e, (enum x86_reg)r, imms32[i]), "add %s, strict dword 0x%x",
                 REG32[r], imms32[i]);
            CASE(s, x86_and_reg32_imm32(&s->e, (enum x86_reg)r, imms32[i]), "and %s, strict dword 0x%x",
                 REG32[r], imms32[i]);
            CASE(s, x86_cmp_reg32_imm32(&s->e, (enum x86_reg)r, imms32[i]), "cmp %s, strict dword 0x%x",
                 REG32[r], imms32[i]);
        }
        for (int q = 0; q < 16; q += 5)
            CASE(s, x86_cmova_reg32(&s->e, (enum x86_reg)r, (enum x86_reg)q), "cmova %s, %s", REG32[r],
                 REG32[q]);
        if ((r & 7) != 4 && (r & 7) != 5)
            CASE(s, x86_and_mem8_base_disp8_imm8(&s->e, (enum x86_reg)r, 5, 0xFD),
                 "and byte [%s + 5], 0xFD", REG64[r]);
    }
    CASE(s, x86_jcc_rel8(&s->e, X86_CC_E, 0), "jz short $ + 2");
    CASE(s, x86_jcc_rel8(&s->e, X86_CC_AE, 0x20), "jae short $ + 0x22");
    CASE(s, x86_rep_movsb(&s->e), "rep movsb");
    CASE(s, x86_cld(&s->e), "cld");
    CASE(s, x86_mov_rax_cr2(&s->e), "mov rax, cr2");
    /* nasm writes `mov rax, cs` without REX.W; the SDM's zero-extending form is REX.W + 8C /r. */
    CASE(s, x86_mov_rax_cs(&s->e), "db 0x48\nmov eax, cs");
    stream_check(s);
}

/* mov reg64, [base + disp] for every base: RSP and R12 need a SIB byte, RBP and R13 a displacement. */
NB_TEST(x86_emit_base_displacement_loads)
{
    static const int8_t d8[] = { 0, 8, -8, 127, -128 };
    static const int32_t d32[] = { 0, 0x100, -0x100, INT32_MAX, INT32_MIN };
    static const enum x86_reg regs[] = { RAX, RCX, R8, R15, RSP, RBP, R12, R13 };
    struct stream *s = &stream;
    stream_init(s);
    for (int b = RAX; b <= R15; b++) {
        for (size_t i = 0; i < NB_ARRAY_SIZE(regs); i++) {
            enum x86_reg r = regs[i];
            for (size_t k = 0; k < NB_ARRAY_SIZE(d8); k++)
                CASE(s, x86_mov_reg64_from_base_disp8(&s->e, r, (enum x86_reg)b, d8[k]),
                     "mov %s, [byte %s + %d]", REG64[r], REG64[b], d8[k]);
            for (size_t k = 0; k < NB_ARRAY_SIZE(d32); k++)
                CASE(s, x86_mov_reg64_from_base_disp32(&s->e, r, (enum x86_reg)b, d32[k]),
                     "mov %s, [dword %s + %d]", REG64[r], REG64[b], d32[k]);
        }
    }
    stream_check(s);
}

NB_TEST(x86_emit_fixed_instructions)
{
    struct stream *s = &stream;
    stream_init(s);
    CASE(s, x86_lfence(&s->e), "lfence");
    CASE(s, x86_rdtsc(&s->e), "rdtsc");
    CASE(s, x86_rdpmc(&s->e), "rdpmc");
    CASE(s, x86_rdmsr(&s->e), "rdmsr");
    CASE(s, x86_pushfq(&s->e), "pushfq");
    CASE(s, x86_popfq(&s->e), "popfq");
    CASE(s, x86_cli(&s->e), "cli");
    CASE(s, x86_ret(&s->e), "ret");
    CASE(s, x86_u8(&s->e, 0x90), "nop");
    CASE(s, x86_bytes(&s->e, "\x48\x01\xD8", 3), "add rax, rbx");
    stream_check(s);
}

/* SDM vol. 2B "NOP": the recommended multi-byte sequences (table 4-12). */
static const uint8_t SDM_NOPS[10][9] = {
    { 0 },
    { 0x90 },
    { 0x66, 0x90 },
    { 0x0F, 0x1F, 0x00 },
    { 0x0F, 0x1F, 0x40, 0x00 },
    { 0x0F, 0x1F, 0x44, 0x00, 0x00 },
    { 0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00 },
    { 0x0F, 0x1F, 0x80, 0x00, 0x00, 0x00, 0x00 },
    { 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
    { 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

/* Number of lines (instructions) ndisasm prints for the bytes; -1 on failure. */
static int count_instructions(const uint8_t *bytes, size_t n, bool *all_nops)
{
    char *text = host_ndisasm(bytes, n);
    if (!text)
        return -1;
    int lines = 0;
    *all_nops = true;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        if (l[0] == ' ')
            continue; /* ndisasm wraps long encodings onto "   -0000" lines */
        lines++;
        if (!strstr(l, "nop") && !strstr(l, "xchg ax,ax")) /* ndisasm's name for 66 90 */
            *all_nops = false;
    }
    free(text);
    return lines;
}

NB_TEST(x86_nop_bytes_match_sdm_and_decode_as_one_nop)
{
    for (unsigned n = 1; n <= 9; n++) {
        uint8_t out[16];
        memset(out, 0xCC, sizeof(out));
        x86_nop_bytes(out, n);
        if (!CHECK_EQ_BYTES(out, SDM_NOPS[n], n))
            nb_test_note("n = %u", n);
        CHECK_EQ_INT(out[n], 0xCC);
    }
    /* 10..15: 66h prefixes and a CS override on the 8-byte form (as binutils pads). */
    for (unsigned n = 10; n <= X86_NOP_MAX; n++) {
        uint8_t out[16], want[16];
        memset(out, 0xCC, sizeof(out));
        x86_nop_bytes(out, n);
        memset(want, 0x66, n - 9);
        want[n - 9] = 0x2E;
        memcpy(want + n - 8, SDM_NOPS[8], 8);
        if (!CHECK_EQ_BYTES(out, want, n))
            nb_test_note("n = %u", n);
        CHECK_EQ_INT(out[n], 0xCC);
    }
    for (unsigned n = 1; n <= X86_NOP_MAX; n++) {
        uint8_t out[16];
        x86_nop_bytes(out, n);
        bool nops;
        if (!CHECK_EQ_INT(count_instructions(out, n, &nops), 1) | !CHECK(nops))
            nb_test_note("n = %u", n);
    }
}

NB_TEST(x86_nop_fill_lengths)
{
    uint8_t buf[128];
    for (size_t n = 0; n <= 40; n++) {
        struct x86_emitter e;
        memset(buf, 0xCC, sizeof(buf));
        x86_emitter_init(&e, buf, sizeof(buf));
        x86_nop_fill(&e, n);
        CHECK_EQ_INT(e.length, n);
        CHECK(e.pos == buf + n);
        CHECK_EQ_INT(buf[n], 0xCC);
        /* As few NOPs as possible without redundant prefixes: 9-byte ones, then the rest. */
        size_t off = 0;
        while (off < n) {
            size_t chunk = n - off > 9 ? 9 : n - off;
            if (!CHECK_EQ_BYTES(buf + off, SDM_NOPS[chunk], chunk)) {
                nb_test_note("n = %zu, offset %zu", n, off);
                break;
            }
            off += chunk;
        }
        if (n == 1 || n == 9 || n == 10 || n == 27 || n == 40) {
            bool nops;
            CHECK_EQ_INT(count_instructions(buf, n, &nops), (int)((n + 8) / 9));
            CHECK(nops);
        }
    }
}

NB_TEST(x86_emit_overflow_keeps_counting)
{
    uint8_t buf[16];
    memset(buf, 0xCC, sizeof(buf));
    struct x86_emitter e;
    x86_emitter_init(&e, buf, 5);
    CHECK(x86_here(&e) == (uintptr_t)buf);
    x86_mov_reg64_imm64(&e, RAX, 0x1122334455667788ull); /* 10 bytes into 5 */
    CHECK(e.overflow);
    CHECK_EQ_INT(e.length, 10);
    CHECK(x86_here(&e) == (uintptr_t)buf + 10);
    for (int i = 5; i < 16; i++)
        CHECK_EQ_INT(buf[i], 0xCC); /* nothing past the end */
    x86_ret(&e); /* would fit in the room left, but overflow is sticky */
    CHECK_EQ_INT(e.length, 11);
    CHECK(e.pos <= buf + 5);
    for (int i = 5; i < 16; i++)
        CHECK_EQ_INT(buf[i], 0xCC);

    /* A dry run (capacity 0) measures a sequence without writing. */
    memset(buf, 0xCC, sizeof(buf));
    x86_emitter_init(&e, buf, 0);
    x86_pushfq(&e);
    x86_mov_rip_from_reg64(&e, (uintptr_t)buf + 4096, R12);
    x86_nop_fill(&e, 20);
    CHECK(e.overflow);
    CHECK_EQ_INT(e.length, 1 + 7 + 20);
    CHECK_EQ_INT(buf[0], 0xCC);

    /* Exactly full is not an overflow. */
    x86_emitter_init(&e, buf, 10);
    x86_mov_reg64_imm64(&e, R9, 1);
    CHECK(!e.overflow);
    CHECK_EQ_INT(e.length, 10);
    x86_ret(&e);
    CHECK(e.overflow);
}

/*
 * rel32/disp32 reach: a target exactly ±2 GiB (INT32_MAX / INT32_MIN from the
 * next instruction) is encoded; one byte further sets out_of_reach and
 * overflow, and nothing more is written.
 */
NB_TEST(x86_emit_displacement_reach)
{
    static uint8_t buf[32];
    struct x86_emitter e;
    uintptr_t base = (uintptr_t)buf;
    struct {
        size_t len; /* instruction length: the displacement counts from its end */
        int kind;
    } insns[] = { { 6, 0 }, { 5, 1 }, { 7, 2 }, { 8, 3 } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(insns); i++) {
        for (int side = 0; side < 2; side++) {
            for (int beyond = 0; beyond <= 1; beyond++) {
                int64_t disp = side ? (int64_t)INT32_MIN - beyond : (int64_t)INT32_MAX + beyond;
                uintptr_t target = base + insns[i].len + (uintptr_t)disp;
                memset(buf, 0xCC, sizeof(buf));
                x86_emitter_init(&e, buf, sizeof(buf));
                switch (insns[i].kind) {
                case 0: x86_jnz_rel32(&e, target); break;
                case 1: x86_jmp_rel32(&e, target); break;
                case 2: x86_mov_rip_from_reg64(&e, target, RAX); break;
                case 3: x86_xsave64_rip(&e, target); break;
                }
                CHECK_EQ_INT(e.length, insns[i].len);
                CHECK_EQ_INT(e.out_of_reach, beyond);
                CHECK_EQ_INT(e.overflow, beyond);
                if (!beyond) {
                    int32_t got;
                    memcpy(&got, buf + insns[i].len - 4, 4);
                    CHECK_EQ_INT(got, disp);
                }
            }
        }
    }
    /* Sticky: later instructions are not written either. */
    x86_emitter_init(&e, buf, sizeof(buf));
    x86_jmp_rel32(&e, base + 5 + (uintptr_t)INT32_MAX + 1);
    memset(buf, 0xCC, sizeof(buf));
    x86_ret(&e);
    CHECK_EQ_INT(buf[5], 0xCC);
}

/* x86_repeat_last writes what as many x86_bytes calls would, and overflows the same way. */
NB_TEST(x86_emit_repeat_last_is_repeated_bytes)
{
    static const uint8_t code[] = { 0x48, 0x01, 0xD8, 0x90, 0x0F, 0x1F, 0x40, 0x00, 0xC4, 0xE2, 0x7D };
    static const size_t lens[] = { 1, 3, 7, 8, 11 };
    static const uint64_t times[] = { 0, 1, 2, 5, 63, 64, 1000 };
    static uint8_t a[16384], b[16384];
    for (size_t l = 0; l < NB_ARRAY_SIZE(lens); l++) {
        for (size_t t = 0; t < NB_ARRAY_SIZE(times); t++) {
            for (size_t cap = 2000; cap <= sizeof(a); cap += sizeof(a) - 2000) {
                struct x86_emitter x, y;
                memset(a, 0xEE, sizeof(a));
                memset(b, 0xEE, sizeof(b));
                x86_emitter_init(&x, a, cap);
                x86_emitter_init(&y, b, cap);
                x86_u8(&x, 0x90);
                x86_u8(&y, 0x90);
                for (uint64_t i = 0; i <= times[t]; i++)
                    x86_bytes(&x, code, lens[l]);
                x86_bytes(&y, code, lens[l]);
                x86_repeat_last(&y, lens[l], times[t]);
                CHECK_EQ_INT(x.overflow, y.overflow);
                CHECK_EQ_U64(x.length, y.length);
                if (!x.overflow)
                    CHECK_EQ_BYTES(a, b, sizeof(a));
            }
        }
    }
}
