/*
 * timer_code.c — the local APIC timer's initial and current count from the
 * generated code (see timer_code.h).
 *
 * Encodings written as bytes carry their mnemonic (SDM vol. 2);
 * tests/unit/test_timer_code.c checks them with objdump.
 */
#include "timer_code.h"
#include "lapic_regs.h"

/* The x2APIC MSRs of the timer's initial and current count (SDM vol. 3A table 11-6). */
#define MSR_X2APIC_TIMER_INITIAL 0x838u
#define MSR_X2APIC_TIMER_CURRENT 0x839u

void timer_code_set_initial(struct x86_emitter *e, uint64_t lapic_mmio_base)
{
    if (lapic_mmio_base) {
        x86_mov_reg64_imm64(e, RAX, lapic_mmio_base + LAPIC_TIMER_INITIAL);
        x86_mov_mem_rax_from_reg32(e, RCX);
    } else {
        x86_bytes(e, "\x89\xC8", 2); /* mov eax, ecx */
        x86_xor_reg32(e, RDX);
        x86_mov_reg32_imm32(e, RCX, MSR_X2APIC_TIMER_INITIAL);
        x86_wrmsr(e);
    }
}

void timer_code_pause(struct x86_emitter *e, uint64_t lapic_mmio_base, uintptr_t left)
{
    if (lapic_mmio_base) {
        x86_mov_reg64_imm64(e, RAX, lapic_mmio_base + LAPIC_TIMER_CURRENT);
        x86_bytes(e, "\x8B\x00", 2); /* mov eax, [rax] */
        x86_mov_rip_from_reg64(e, left, RAX);
        x86_mov_reg64_imm64(e, RAX, lapic_mmio_base + LAPIC_TIMER_INITIAL);
        x86_bytes(e, "\xC7\x00\x00\x00\x00\x00", 6); /* mov dword [rax], 0 */
    } else {
        x86_mov_reg32_imm32(e, RCX, MSR_X2APIC_TIMER_CURRENT);
        x86_rdmsr(e);
        x86_mov_rip_from_reg64(e, left, RAX); /* EAX: upper half zero */
        x86_mov_reg32_imm32(e, RCX, MSR_X2APIC_TIMER_INITIAL);
        x86_xor_reg32(e, RAX);
        x86_xor_reg32(e, RDX);
        x86_wrmsr(e);
    }
}
