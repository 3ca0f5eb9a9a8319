/*
 * probe_code.c — see probe_code.h. WRMSR/RDMSR take the MSR in ECX and the
 * value in EDX:EAX (SDM vol. 2B); CLI inside PUSHFQ/POPFQ leaves the
 * caller's IF as it was.
 */
#include "probe_code.h"

#include "x86_emit.h"

static void emit_wrmsr(struct x86_emitter *e, uint32_t msr, uint64_t value)
{
    x86_mov_reg32_imm32(e, RCX, msr);
    x86_mov_reg32_imm32(e, RAX, (uint32_t)value);
    x86_mov_reg32_imm32(e, RDX, (uint32_t)(value >> 32));
    x86_wrmsr(e);
}

probe_fn probe_code_emit(uint8_t *buf, size_t cap, const struct pmu_probe_sequence *s, uint32_t iterations)
{
    struct x86_emitter e;
    x86_emitter_init(&e, buf, cap);
    x86_pushfq(&e);
    x86_u8(&e, 0xFA); /* cli */
    if (s->global_msr)
        emit_wrmsr(&e, s->global_msr, 0);
    emit_wrmsr(&e, s->ctr_msr, 0);
    emit_wrmsr(&e, s->ctl_msr, s->ctl_value);
    if (s->global_msr)
        emit_wrmsr(&e, s->global_msr, s->global_value);
    /* iterations + 1 rounds, so that 0 iterations still runs the same instructions once. */
    x86_mov_reg32_imm32(&e, RCX, iterations + 1);
    uintptr_t loop = x86_here(&e);
    x86_bytes(&e, "\xFF\xC9", 2); /* dec ecx */
    x86_jnz_rel32(&e, loop);
    if (s->global_msr)
        emit_wrmsr(&e, s->global_msr, 0);
    emit_wrmsr(&e, s->ctl_msr, 0);
    x86_mov_reg32_imm32(&e, RCX, s->ctr_msr);
    x86_rdmsr(&e);
    x86_shl_reg64_imm8(&e, RDX, 32);
    x86_or_reg64(&e, RAX, RDX);
    x86_popfq(&e);
    x86_ret(&e);
    return e.overflow ? NULL : (probe_fn)(uintptr_t)buf;
}
