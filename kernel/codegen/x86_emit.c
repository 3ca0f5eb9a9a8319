/*
 * x86_emit.c — x86-64 instruction encoders (see x86_emit.h).
 */
#include "x86_emit.h"
#include "nb_text.h"

/* REX prefix bits (SDM vol. 2A 2.2.1). */
#define REX_BASE 0x40
#define REX_W 0x08
#define REX_R 0x04
#define REX_B 0x01

/* ModRM with mod=00, r/m=101 selects [RIP + disp32] in 64-bit mode (SDM vol. 2A 2.2.1.6). */
#define MODRM_RIP(reg) ((uint8_t)(((reg) & 7) << 3 | 5))
#define MODRM_REG(reg, rm) ((uint8_t)(0xC0 | ((reg) & 7) << 3 | ((rm) & 7)))

void x86_emitter_init_staged(struct x86_emitter *e, uint8_t *out, uint8_t *start, size_t capacity)
{
    e->start = start;
    e->out = out;
    e->pos = out;
    e->end = out + capacity;
    e->overflow = false;
    e->out_of_reach = false;
    e->length = 0;
}

void x86_emitter_init(struct x86_emitter *e, uint8_t *start, size_t capacity)
{
    x86_emitter_init_staged(e, start, start, capacity);
}

uintptr_t x86_here(const struct x86_emitter *e)
{
    return (uintptr_t)e->start + e->length;
}

void x86_bytes(struct x86_emitter *e, const void *bytes, size_t n)
{
    if (!e->overflow && (size_t)(e->end - e->pos) >= n) {
        nb_memcpy(e->pos, bytes, n);
        e->pos += n;
    } else {
        e->overflow = true;
    }
    e->length += n;
}

typedef uint64_t __attribute__((may_alias, aligned(1))) emit_word;

/* Forward copy of n bytes between regions that do not overlap. */
static void copy_words(uint8_t *d, const uint8_t *s, size_t n)
{
    for (; n >= 8; n -= 8, d += 8, s += 8)
        *(emit_word *)(void *)d = *(const emit_word *)(const void *)s;
    while (n--)
        *d++ = *s++;
}

void x86_repeat_last(struct x86_emitter *e, size_t n, uint64_t times)
{
    if (!n || !times)
        return;
    if (e->overflow || (size_t)(e->pos - e->out) < n || (size_t)(e->end - e->pos) / n < times) {
        e->overflow = true;
        e->length += (size_t)(times * n);
        return;
    }
    uint8_t *first = e->pos - n;
    uint64_t have = 1, want = times + 1;
    while (have < want) {
        uint64_t more = want - have < have ? want - have : have;
        copy_words(first + have * n, first, (size_t)(more * n));
        have += more;
    }
    e->pos += times * n;
    e->length += times * n;
}

void x86_u8(struct x86_emitter *e, uint8_t b)
{
    x86_bytes(e, &b, 1);
}

static void emit_u32(struct x86_emitter *e, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    x86_bytes(e, b, 4);
}

static void emit_u64(struct x86_emitter *e, uint64_t v)
{
    emit_u32(e, (uint32_t)v);
    emit_u32(e, (uint32_t)(v >> 32));
}

/* disp32 from the end of the instruction (whose remaining length is `tail`) to target. */
static void emit_rip_disp(struct x86_emitter *e, uintptr_t target, size_t tail)
{
    uintptr_t next = x86_here(e) + 4 + tail;
    /* The CPU sign-extends the 32-bit displacement (SDM vol. 2A 2.2.1.6). */
    int64_t disp = (int64_t)(target - next);
    if (disp < INT32_MIN || disp > INT32_MAX) {
        e->out_of_reach = true;
        e->overflow = true;
    }
    emit_u32(e, (uint32_t)(int32_t)disp);
}

/* Recommended multi-byte NOPs, SDM vol. 2B "NOP" table; 10..15 add 66h prefixes and a CS override. */
static const uint8_t NOPS[10][9] = {
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

void x86_nop_bytes(uint8_t *out, unsigned n)
{
    if (n <= 9) {
        nb_memcpy(out, NOPS[n], n);
        return;
    }
    unsigned prefixes = n - 9;
    nb_memset(out, 0x66, prefixes);
    out[prefixes] = 0x2E;
    nb_memcpy(out + prefixes + 1, NOPS[8], 8);
}

void x86_nop_fill(struct x86_emitter *e, size_t n)
{
    uint8_t nop[X86_NOP_MAX];
    while (n > 0) {
        /* 9 bytes is the longest NOP without redundant prefixes, which some cores decode slowly. */
        unsigned chunk = n > 9 ? 9 : (unsigned)n;
        x86_nop_bytes(nop, chunk);
        x86_bytes(e, nop, chunk);
        n -= chunk;
    }
}

static void rex_w_reg(struct x86_emitter *e, enum x86_reg reg)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_R : 0)));
}

void x86_mov_rip_from_reg64(struct x86_emitter *e, uintptr_t target, enum x86_reg reg)
{
    rex_w_reg(e, reg);
    x86_u8(e, 0x89); /* MOV r/m64, r64 */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

void x86_mov_reg64_from_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target)
{
    rex_w_reg(e, reg);
    x86_u8(e, 0x8B); /* MOV r64, r/m64 */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

void x86_mov_rip_from_reg32(struct x86_emitter *e, uintptr_t target, enum x86_reg reg)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_R);
    x86_u8(e, 0x89); /* MOV r/m32, r32 */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

void x86_mov_reg64_imm64(struct x86_emitter *e, enum x86_reg reg, uint64_t imm)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_B : 0)));
    x86_u8(e, (uint8_t)(0xB8 + (reg & 7))); /* MOV r64, imm64 */
    emit_u64(e, imm);
}

void x86_mov_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_B);
    x86_u8(e, (uint8_t)(0xB8 + (reg & 7))); /* MOV r32, imm32 (zero-extends) */
    emit_u32(e, imm);
}

void x86_mov_reg64_simm32(struct x86_emitter *e, enum x86_reg reg, int32_t imm)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_B : 0)));
    x86_u8(e, 0xC7); /* MOV r/m64, imm32 (sign-extended), /0 */
    x86_u8(e, MODRM_REG(0, reg));
    emit_u32(e, (uint32_t)imm);
}

void x86_xor_reg32(struct x86_emitter *e, enum x86_reg reg)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_R | REX_B);
    x86_u8(e, 0x31); /* XOR r/m32, r32: zeroes the whole 64-bit register */
    x86_u8(e, MODRM_REG(reg, reg));
}

void x86_mov_rip_simm32(struct x86_emitter *e, uintptr_t target, int32_t imm)
{
    x86_u8(e, REX_BASE | REX_W);
    x86_u8(e, 0xC7); /* MOV r/m64, imm32, /0 */
    x86_u8(e, MODRM_RIP(0));
    emit_rip_disp(e, target, 4);
    emit_u32(e, (uint32_t)imm);
}

void x86_shl_reg64_imm8(struct x86_emitter *e, enum x86_reg reg, uint8_t count)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_B : 0)));
    x86_u8(e, 0xC1); /* SHL r/m64, imm8, /4 */
    x86_u8(e, MODRM_REG(4, reg));
    x86_u8(e, count);
}

/* ALU r/m64, r64 forms (opcode 09 OR, 01 ADD, 29 SUB): dst in r/m, src in reg. */
static void alu_reg64(struct x86_emitter *e, uint8_t opcode, enum x86_reg dst, enum x86_reg src)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (src >= R8 ? REX_R : 0) | (dst >= R8 ? REX_B : 0)));
    x86_u8(e, opcode);
    x86_u8(e, MODRM_REG(src, dst));
}

void x86_or_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src) { alu_reg64(e, 0x09, dst, src); }
void x86_add_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src) { alu_reg64(e, 0x01, dst, src); }
void x86_sub_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src) { alu_reg64(e, 0x29, dst, src); }

void x86_dec_reg64(struct x86_emitter *e, enum x86_reg reg)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_B : 0)));
    x86_u8(e, 0xFF); /* DEC r/m64, /1 */
    x86_u8(e, MODRM_REG(1, reg));
}

void x86_jnz_rel32(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, 0x0F);
    x86_u8(e, 0x85);
    emit_rip_disp(e, target, 0);
}

void x86_fxsave64_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, REX_BASE | REX_W);
    x86_u8(e, 0x0F);
    x86_u8(e, 0xAE); /* FXSAVE64 m512, /0 */
    x86_u8(e, MODRM_RIP(0));
    emit_rip_disp(e, target, 0);
}

void x86_fxrstor64_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, REX_BASE | REX_W);
    x86_u8(e, 0x0F);
    x86_u8(e, 0xAE); /* FXRSTOR64 m512, /1 */
    x86_u8(e, MODRM_RIP(1));
    emit_rip_disp(e, target, 0);
}

/* XSAVE64 / XRSTOR64 m, REX.W 0F AE /4 and /5: the components in EDX:EAX & XCR0 (SDM vol. 2C). */
void x86_xsave64_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_bytes(e, "\x48\x0F\xAE", 3);
    x86_u8(e, MODRM_RIP(4));
    emit_rip_disp(e, target, 0);
}

void x86_xrstor64_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_bytes(e, "\x48\x0F\xAE", 3);
    x86_u8(e, MODRM_RIP(5));
    emit_rip_disp(e, target, 0);
}

/* r/m = 100b means "SIB follows": RSP and R12 as a base need SIB 24h (no index). */
static void emit_base_sib(struct x86_emitter *e, enum x86_reg base)
{
    if ((base & 7) == 4)
        x86_u8(e, 0x24);
}

void x86_mov_reg64_from_base_disp8(struct x86_emitter *e, enum x86_reg reg, enum x86_reg base, int8_t disp)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_R : 0) | (base >= R8 ? REX_B : 0)));
    x86_u8(e, 0x8B); /* MOV r64, r/m64 with mod=01 (disp8) */
    x86_u8(e, (uint8_t)(0x40 | (reg & 7) << 3 | (base & 7)));
    emit_base_sib(e, base);
    x86_u8(e, (uint8_t)disp);
}

void x86_mov_rip_from_reg16(struct x86_emitter *e, uintptr_t target, enum x86_reg reg)
{
    x86_u8(e, 0x66); /* operand-size override: 16-bit store */
    x86_mov_rip_from_reg32(e, target, reg);
}

void x86_mov_reg64_from_base_disp32(struct x86_emitter *e, enum x86_reg reg, enum x86_reg base, int32_t disp)
{
    x86_u8(e, (uint8_t)(REX_BASE | REX_W | (reg >= R8 ? REX_R : 0) | (base >= R8 ? REX_B : 0)));
    x86_u8(e, 0x8B); /* MOV r64, r/m64 with mod=10 (disp32) */
    x86_u8(e, (uint8_t)(0x80 | (reg & 7) << 3 | (base & 7)));
    emit_base_sib(e, base);
    emit_u32(e, (uint32_t)disp);
}

void x86_push_imm8(struct x86_emitter *e, int8_t imm)
{
    x86_u8(e, 0x6A);
    x86_u8(e, (uint8_t)imm);
}

void x86_pop_reg64(struct x86_emitter *e, enum x86_reg reg)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_B);
    x86_u8(e, (uint8_t)(0x58 + (reg & 7)));
}

void x86_jmp_rel32(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, 0xE9);
    emit_rip_disp(e, target, 0);
}

void x86_sidt_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, 0x0F);
    x86_u8(e, 0x01); /* SIDT m, /1 */
    x86_u8(e, MODRM_RIP(1));
    emit_rip_disp(e, target, 0);
}

void x86_lidt_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_u8(e, 0x0F);
    x86_u8(e, 0x01); /* LIDT m, /3 */
    x86_u8(e, MODRM_RIP(3));
    emit_rip_disp(e, target, 0);
}

void x86_sgdt_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_bytes(e, "\x0F\x01", 2); /* SGDT m, /0 */
    x86_u8(e, MODRM_RIP(0));
    emit_rip_disp(e, target, 0);
}

void x86_lgdt_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_bytes(e, "\x0F\x01", 2); /* LGDT m, /2 */
    x86_u8(e, MODRM_RIP(2));
    emit_rip_disp(e, target, 0);
}

void x86_str_rip(struct x86_emitter *e, uintptr_t target)
{
    x86_bytes(e, "\x0F\x00", 2); /* STR m16, /1 */
    x86_u8(e, MODRM_RIP(1));
    emit_rip_disp(e, target, 0);
}

void x86_ltr_reg16(struct x86_emitter *e, enum x86_reg reg)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_B);
    x86_bytes(e, "\x0F\x00", 2); /* LTR r/m16, /3 */
    x86_u8(e, MODRM_REG(3, reg));
}

void x86_movzx_reg32_from_rip16(struct x86_emitter *e, enum x86_reg reg, uintptr_t target)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_R);
    x86_bytes(e, "\x0F\xB7", 2); /* MOVZX r32, r/m16 */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

void x86_lea_reg64_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target)
{
    rex_w_reg(e, reg);
    x86_u8(e, 0x8D); /* LEA r64, m */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

static void alu_reg32_imm32(struct x86_emitter *e, unsigned digit, enum x86_reg reg, uint32_t imm)
{
    if (reg == RAX) {
        x86_u8(e, (uint8_t)(digit << 3 | 5)); /* the short EAX, imm32 form (as nasm picks) */
        emit_u32(e, imm);
        return;
    }
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_B);
    x86_u8(e, 0x81); /* ALU r/m32, imm32 */
    x86_u8(e, MODRM_REG(digit, reg));
    emit_u32(e, imm);
}

void x86_add_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm) { alu_reg32_imm32(e, 0, reg, imm); }
void x86_and_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm) { alu_reg32_imm32(e, 4, reg, imm); }
void x86_cmp_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm) { alu_reg32_imm32(e, 7, reg, imm); }

void x86_cmova_reg32(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src)
{
    if (dst >= R8 || src >= R8)
        x86_u8(e, (uint8_t)(REX_BASE | (dst >= R8 ? REX_R : 0) | (src >= R8 ? REX_B : 0)));
    x86_bytes(e, "\x0F\x47", 2); /* CMOVA r32, r/m32 */
    x86_u8(e, MODRM_REG(dst, src));
}

void x86_and_mem8_base_disp8_imm8(struct x86_emitter *e, enum x86_reg base, int8_t disp, uint8_t imm)
{
    if (base >= R8)
        x86_u8(e, REX_BASE | REX_B);
    x86_u8(e, 0x80); /* AND r/m8, imm8 (/4), mod=01 */
    x86_u8(e, (uint8_t)(0x40 | 4 << 3 | (base & 7)));
    x86_u8(e, (uint8_t)disp);
    x86_u8(e, imm);
}

void x86_jcc_rel8(struct x86_emitter *e, uint8_t cc, int8_t rel)
{
    x86_u8(e, (uint8_t)(0x70 | cc));
    x86_u8(e, (uint8_t)rel);
}

void x86_rep_movsb(struct x86_emitter *e) { x86_bytes(e, "\xF3\xA4", 2); }
void x86_cld(struct x86_emitter *e) { x86_u8(e, 0xFC); }

void x86_mov_rax_cr2(struct x86_emitter *e) { x86_bytes(e, "\x0F\x20\xD0", 3); }
void x86_mov_rax_cs(struct x86_emitter *e) { x86_bytes(e, "\x48\x8C\xC8", 3); }

void x86_mov_reg32_from_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_R);
    x86_u8(e, 0x8B); /* MOV r32, r/m32 */
    x86_u8(e, MODRM_RIP(reg));
    emit_rip_disp(e, target, 0);
}

void x86_mov_mem_rax_from_reg32(struct x86_emitter *e, enum x86_reg reg)
{
    if (reg >= R8)
        x86_u8(e, REX_BASE | REX_R);
    x86_u8(e, 0x89); /* MOV r/m32, r32 with mod=00, r/m=RAX */
    x86_u8(e, (uint8_t)((reg & 7) << 3));
}

void x86_push_imm32(struct x86_emitter *e, int32_t imm)
{
    x86_u8(e, 0x68);
    emit_u32(e, (uint32_t)imm);
}

void x86_wrmsr(struct x86_emitter *e) { x86_bytes(e, "\x0F\x30", 2); }
void x86_sti(struct x86_emitter *e) { x86_u8(e, 0xFB); }
void x86_iretq(struct x86_emitter *e) { x86_bytes(e, "\x48\xCF", 2); }

void x86_lfence(struct x86_emitter *e) { x86_bytes(e, "\x0F\xAE\xE8", 3); }
void x86_rdtsc(struct x86_emitter *e) { x86_bytes(e, "\x0F\x31", 2); }
void x86_rdpmc(struct x86_emitter *e) { x86_bytes(e, "\x0F\x33", 2); }
void x86_rdmsr(struct x86_emitter *e) { x86_bytes(e, "\x0F\x32", 2); }
void x86_pushfq(struct x86_emitter *e) { x86_u8(e, 0x9C); }
void x86_popfq(struct x86_emitter *e) { x86_u8(e, 0x9D); }
void x86_cli(struct x86_emitter *e) { x86_u8(e, 0xFA); }
void x86_ret(struct x86_emitter *e) { x86_u8(e, 0xC3); }
