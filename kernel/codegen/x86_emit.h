/*
 * x86_emit.h — byte-level x86-64 encoders for the handful of instructions the
 * code generator needs. Encodings follow the Intel SDM vol. 2 instruction
 * pages; tests/unit/test_x86_emit.c checks each one against `nasm -f bin`.
 *
 * An emitter writes at e->pos and advances it. It never writes past e->end:
 * on overflow it sets e->overflow and only counts, so a dry run with
 * end == start measures the size of a sequence.
 *
 * Every rel32/disp32 it computes is checked: a target beyond ±2 GiB of the
 * next instruction sets e->out_of_reach and e->overflow (a displacement
 * that wrapped would silently jump or store elsewhere).
 */
#ifndef X86_EMIT_H
#define X86_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* General-purpose register numbers as encoded in ModRM/REX (SDM vol. 2A 2.1.5). */
enum x86_reg {
    RAX = 0, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
    R8, R9, R10, R11, R12, R13, R14, R15,
};

/* Longest NOP the SDM recommends building from prefixes (vol. 2B, NOP). */
#define X86_NOP_MAX 15

struct x86_emitter {
    uint8_t *start; /* where the code will execute (RIP-relative targets need it) */
    uint8_t *out;   /* where its bytes are written: `start`, or a staging copy (x86_emitter_init_staged) */
    uint8_t *pos;
    uint8_t *end;
    bool overflow;
    bool out_of_reach; /* a rel32/disp32 target was not within ±2 GiB */
    size_t length; /* bytes emitted or counted so far */
};

void x86_emitter_init(struct x86_emitter *e, uint8_t *start, size_t capacity);
/* Code that will execute at `start`, written to `out` (capacity bytes there) for the caller to copy. */
void x86_emitter_init_staged(struct x86_emitter *e, uint8_t *out, uint8_t *start, size_t capacity);
/* Address the next byte will have. */
uintptr_t x86_here(const struct x86_emitter *e);

void x86_bytes(struct x86_emitter *e, const void *bytes, size_t n);
void x86_u8(struct x86_emitter *e, uint8_t b);
/*
 * Appends `times` more copies of the last n bytes emitted (the unrolled
 * copies of the benchmark code): the same bytes as `times` calls of
 * x86_bytes, written by doubling copies, eight bytes a store.
 */
void x86_repeat_last(struct x86_emitter *e, size_t n, uint64_t times);

/* The recommended n-byte NOP, 1 <= n <= 15; writes n bytes into out. */
void x86_nop_bytes(uint8_t *out, unsigned n);
/* Fills n bytes with as few NOP instructions as possible. */
void x86_nop_fill(struct x86_emitter *e, size_t n);

void x86_mov_rip_from_reg64(struct x86_emitter *e, uintptr_t target, enum x86_reg reg);
void x86_mov_reg64_from_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target);
void x86_mov_rip_from_reg32(struct x86_emitter *e, uintptr_t target, enum x86_reg reg);
void x86_mov_reg64_imm64(struct x86_emitter *e, enum x86_reg reg, uint64_t imm);
void x86_mov_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm);
void x86_mov_reg64_simm32(struct x86_emitter *e, enum x86_reg reg, int32_t imm);
void x86_xor_reg32(struct x86_emitter *e, enum x86_reg reg);
/* mov qword [rip+target], imm32 (sign-extended) */
void x86_mov_rip_simm32(struct x86_emitter *e, uintptr_t target, int32_t imm);
/* shl reg64, imm8 */
void x86_shl_reg64_imm8(struct x86_emitter *e, enum x86_reg reg, uint8_t count);
/* or dst64, src64 / add dst64, src64 / sub dst64, src64 */
void x86_or_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src);
void x86_add_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src);
void x86_sub_reg64(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src);
void x86_dec_reg64(struct x86_emitter *e, enum x86_reg reg);
/* jnz to an absolute target address (rel32 form). */
void x86_jnz_rel32(struct x86_emitter *e, uintptr_t target);
void x86_fxsave64_rip(struct x86_emitter *e, uintptr_t target);
void x86_fxrstor64_rip(struct x86_emitter *e, uintptr_t target);
/* xsave64 / xrstor64 [rip+target]; EDX:EAX is the requested-feature bitmap */
void x86_xsave64_rip(struct x86_emitter *e, uintptr_t target);
void x86_xrstor64_rip(struct x86_emitter *e, uintptr_t target);
/* mov reg64, [base + disp8] (any base; RSP/R12 get the SIB byte they need) */
void x86_mov_reg64_from_base_disp8(struct x86_emitter *e, enum x86_reg reg, enum x86_reg base, int8_t disp);
/* mov [rip+target], r16 (operand-size prefix) */
void x86_mov_rip_from_reg16(struct x86_emitter *e, uintptr_t target, enum x86_reg reg);
/* mov reg64, [base + disp32] */
void x86_mov_reg64_from_base_disp32(struct x86_emitter *e, enum x86_reg reg, enum x86_reg base, int32_t disp);
/* push imm8 (sign-extended to 64 bits) */
void x86_push_imm8(struct x86_emitter *e, int8_t imm);
void x86_pop_reg64(struct x86_emitter *e, enum x86_reg reg);
/* jmp rel32 to an absolute target */
void x86_jmp_rel32(struct x86_emitter *e, uintptr_t target);
/* sidt / lidt [rip+target] (10-byte pseudo-descriptor) */
void x86_sidt_rip(struct x86_emitter *e, uintptr_t target);
void x86_lidt_rip(struct x86_emitter *e, uintptr_t target);
/* sgdt / lgdt [rip+target] (10-byte pseudo-descriptor) */
void x86_sgdt_rip(struct x86_emitter *e, uintptr_t target);
void x86_lgdt_rip(struct x86_emitter *e, uintptr_t target);
/* str word [rip+target]; ltr r16 */
void x86_str_rip(struct x86_emitter *e, uintptr_t target);
void x86_ltr_reg16(struct x86_emitter *e, enum x86_reg reg);
/* movzx r32, word [rip+target] */
void x86_movzx_reg32_from_rip16(struct x86_emitter *e, enum x86_reg reg, uintptr_t target);
/* lea r64, [rip+target] */
void x86_lea_reg64_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target);
/* add / and / cmp r32, imm32 (81 /0, /4, /7) */
void x86_add_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm);
void x86_and_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm);
void x86_cmp_reg32_imm32(struct x86_emitter *e, enum x86_reg reg, uint32_t imm);
/* cmova dst32, src32 */
void x86_cmova_reg32(struct x86_emitter *e, enum x86_reg dst, enum x86_reg src);
/* and byte [base + disp8], imm8 (base other than RSP/R12/RBP/R13) */
void x86_and_mem8_base_disp8_imm8(struct x86_emitter *e, enum x86_reg base, int8_t disp, uint8_t imm);
/* Jcc rel8 with a displacement counted from the next instruction (forward skips). */
#define X86_CC_AE 0x3
#define X86_CC_E 0x4
void x86_jcc_rel8(struct x86_emitter *e, uint8_t cc, int8_t rel);
void x86_rep_movsb(struct x86_emitter *e);
void x86_cld(struct x86_emitter *e);
/* mov rax, cr2 (the faulting linear address of a #PF) */
void x86_mov_rax_cr2(struct x86_emitter *e);
/* mov rax, cs (zero-extended selector) */
void x86_mov_rax_cs(struct x86_emitter *e);
/* mov r32, [rip+target] */
void x86_mov_reg32_from_rip(struct x86_emitter *e, enum x86_reg reg, uintptr_t target);
/* mov dword [rax], r32 */
void x86_mov_mem_rax_from_reg32(struct x86_emitter *e, enum x86_reg reg);
/* push imm32 (sign-extended) */
void x86_push_imm32(struct x86_emitter *e, int32_t imm);
void x86_wrmsr(struct x86_emitter *e);
void x86_sti(struct x86_emitter *e);
void x86_iretq(struct x86_emitter *e);
void x86_lfence(struct x86_emitter *e);
void x86_rdtsc(struct x86_emitter *e);
void x86_rdpmc(struct x86_emitter *e);
void x86_rdmsr(struct x86_emitter *e);
void x86_pushfq(struct x86_emitter *e);
void x86_popfq(struct x86_emitter *e);
void x86_cli(struct x86_emitter *e);
void x86_ret(struct x86_emitter *e);

#endif
