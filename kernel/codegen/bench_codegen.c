/*
 * bench_codegen.c — the measuring code generator (layout in bench_codegen.h).
 */
#include "bench_codegen.h"
#include "debug_code.h"
#include "nb_text.h"
#include "nmi_code.h"
#include "pmu_msrs.h"
#include "timer_code.h"
#include "trace_code.h"
#include "watchdog.h"
#include "x86_emit.h"

#include <stddef.h>

#define DRAIN_SHORT_NOPS 64
#define DRAIN_LONG_NOPS 128
#define CODE_ALIGNMENT 64

/* Fixed overheads (prologue, epilogue, exception stubs) are bounded generously. */
#define PROLOGUE_EPILOGUE_MAX 2048
#define READ_MAX_PER_COUNTER 32
/* -debug's stop handler (debug_code.c), bounded generously too. */
#define DEBUG_HANDLER_MAX 1024

static uintptr_t data_field(uint8_t *buf, size_t offset)
{
    return (uintptr_t)buf + offset;
}

_Static_assert(sizeof(struct codegen_data) <= CODEGEN_IST_STACK_TOP - 4096, "data pages overflow");

#define DATA(buf, field) data_field((buf), offsetof(struct codegen_data, field))
#define DATA_GPR(buf, reg) (DATA(buf, saved_gpr) + 8u * (unsigned)(reg))

size_t codegen_drain_length(void)
{
    return 3 + DRAIN_SHORT_NOPS + DRAIN_LONG_NOPS * X86_NOP_MAX;
}

/*
 * Front-end drain (-df): an LFENCE, then one-byte NOPs, then 15-byte NOPs,
 * long enough to flush the decoded-instruction queues of current cores.
 */
static void emit_drain(struct x86_emitter *e)
{
    uint8_t nop15[X86_NOP_MAX];
    x86_nop_bytes(nop15, X86_NOP_MAX);
    x86_lfence(e);
    for (int i = 0; i < DRAIN_SHORT_NOPS; i++)
        x86_u8(e, 0x90);
    for (int i = 0; i < DRAIN_LONG_NOPS; i++)
        x86_bytes(e, nop15, X86_NOP_MAX);
}

/* Vectors whose exceptions push an error code (SDM vol. 3A table 6-1). */
static bool pushes_error_code(unsigned vector)
{
    return vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 ||
           vector == 29 || vector == 30;
}

/*
 * NMI and machine checks are not the benchmark's doing: the firmware keeps
 * them, except the NMI when it is our watchdog's (nmi_watchdog.h).
 */
static bool firmware_vector(unsigned vector, const struct codegen_params *p)
{
    return (vector == 2 && !p->nmi_state) || vector == 18;
}

/*
 * While the benchmark runs, our IDT sends every exception to a stub that
 * records it and resumes at the epilogue, which restores all registers from
 * the data page: a fault ends the run cleanly whatever state the code left.
 * The code selector is copied from CS at run time (it may differ per processor).
 */
static unsigned spurious_vector(const struct codegen_params *p)
{
    return p->spurious_vector ? p->spurious_vector : WATCHDOG_SPURIOUS_DEFAULT;
}

static void emit_install_idt(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    x86_sidt_rip(e, DATA(buf, firmware_idtr));
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, firmware_idtr) + 2); /* firmware IDT base */
    for (unsigned v = 0; v < CODEGEN_IDT_VECTORS; v++) {
        uintptr_t gate = DATA(buf, idt) + IDT_GATE_SIZE * v;
        if (!firmware_vector(v, p))
            continue;
        x86_mov_reg64_from_base_disp32(e, RCX, RAX, (int32_t)(IDT_GATE_SIZE * v));
        x86_mov_rip_from_reg64(e, gate, RCX);
        x86_mov_reg64_from_base_disp32(e, RCX, RAX, (int32_t)(IDT_GATE_SIZE * v + 8));
        x86_mov_rip_from_reg64(e, gate + 8, RCX);
    }
    x86_mov_rax_cs(e);
    for (unsigned v = 0; v < CODEGEN_IDT_VECTORS; v++) {
        if (!firmware_vector(v, p))
            x86_mov_rip_from_reg16(e, DATA(buf, idt) + IDT_GATE_SIZE * v + 2, RAX);
    }
    if (p->watchdog) {
        x86_mov_rip_from_reg16(e, DATA(buf, idt) + IDT_GATE_SIZE * WATCHDOG_VECTOR + 2, RAX);
        x86_mov_rip_from_reg16(e, DATA(buf, idt) + IDT_GATE_SIZE * spurious_vector(p) + 2, RAX);
    }
    x86_lidt_rip(e, DATA(buf, idtr));
    x86_mov_rip_simm32(e, DATA(buf, fault_happened), 0);
}

/*
 * Our GDT and TSS, loaded before our IDT (whose gates use IST1): SGDT/STR
 * keep the firmware's, its descriptors are copied (at most
 * CODEGEN_GDT_COPY_BYTES, so CS, SS and the firmware's TSS keep their
 * selectors), and a TSS descriptor marked available is written again for
 * every run, because LTR marks it busy (SDM vol. 3A 8.2.2, 8.2.4).
 */
static void emit_install_gdt_tss(struct x86_emitter *e, uint8_t *buf)
{
    uintptr_t gdt = DATA(buf, gdt);
    x86_sgdt_rip(e, DATA(buf, firmware_gdtr));
    x86_str_rip(e, DATA(buf, firmware_tr));
    x86_movzx_reg32_from_rip16(e, RCX, DATA(buf, firmware_gdtr));
    x86_add_reg32_imm32(e, RCX, 1); /* limit + 1 = bytes */
    x86_mov_reg32_imm32(e, RDX, CODEGEN_GDT_COPY_BYTES);
    x86_cmp_reg32_imm32(e, RCX, CODEGEN_GDT_COPY_BYTES);
    x86_cmova_reg32(e, RCX, RDX);
    x86_mov_reg64_from_rip(e, RSI, DATA(buf, firmware_gdtr) + 2);
    x86_lea_reg64_rip(e, RDI, gdt);
    x86_cld(e);
    x86_rep_movsb(e);
    /* 64-bit TSS descriptor (SDM vol. 3A figure 8-4): present, DPL 0, type 9 (available). */
    uint64_t base = (uint64_t)DATA(buf, tss), limit = CODEGEN_TSS_SIZE - 1;
    uint64_t low = (limit & 0xFFFF) | (base & 0xFFFFFF) << 16 | 0x89ull << 40 |
                   ((limit >> 16) & 0xF) << 48 | ((base >> 24) & 0xFF) << 56;
    x86_mov_reg64_imm64(e, RAX, low);
    x86_mov_rip_from_reg64(e, gdt + CODEGEN_GDT_COPY_BYTES, RAX);
    x86_mov_reg64_imm64(e, RAX, base >> 32);
    x86_mov_rip_from_reg64(e, gdt + CODEGEN_GDT_COPY_BYTES + 8, RAX);
    x86_lgdt_rip(e, DATA(buf, gdtr));
    x86_mov_reg32_imm32(e, RAX, CODEGEN_TSS_SELECTOR);
    x86_ltr_reg16(e, RAX);
}

/* TSS descriptor type bit 1: busy (SDM vol. 3A 8.2.2, type 1011b vs 1001b). */
#define TSS_TYPE_BUSY 0x02u

/* Clears the busy bit of the firmware's TSS descriptor in our copy (RAX = its offset) and reloads TR. */
static void emit_reload_firmware_tr(struct x86_emitter *e, uint8_t *buf)
{
    x86_lea_reg64_rip(e, RCX, DATA(buf, gdt));
    x86_add_reg64(e, RCX, RAX);
    x86_and_mem8_base_disp8_imm8(e, RCX, 5, (uint8_t)~TSS_TYPE_BUSY);
    x86_mov_reg32_from_rip(e, RAX, DATA(buf, firmware_tr));
    x86_ltr_reg16(e, RAX);
}

/*
 * Puts the firmware's TR back when it had one (loaded from our copy of its
 * descriptor, so the firmware's GDT is not written), then its GDT. With no
 * firmware TSS (TR = 0, which LTR cannot load) TR keeps our TSS: ring 0 code
 * with IST-less gates never reads it.
 */
static void emit_restore_gdt_tss(struct x86_emitter *e, uint8_t *buf)
{
    struct x86_emitter dry;
    x86_emitter_init(&dry, e->start, 0);
    emit_reload_firmware_tr(&dry, buf);
    size_t reload = dry.length;
    x86_mov_reg32_from_rip(e, RAX, DATA(buf, firmware_tr));
    x86_and_reg32_imm32(e, RAX, 0xFFF8); /* selector -> descriptor offset */
    x86_jcc_rel8(e, X86_CC_E, (int8_t)(5 + 2 + reload));
    x86_cmp_reg32_imm32(e, RAX, CODEGEN_GDT_COPY_BYTES - 15); /* all 16 bytes in our copy */
    x86_jcc_rel8(e, X86_CC_AE, (int8_t)reload);
    emit_reload_firmware_tr(e, buf);
    x86_lgdt_rip(e, DATA(buf, firmware_gdtr));
}

/* Writes `count` (from the data page, or 0) to the APIC timer's initial count. */
static void emit_timer_count(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p,
                             bool stop)
{
    if (stop)
        x86_xor_reg32(e, RCX);
    else
        x86_mov_reg32_from_rip(e, RCX, DATA(buf, watchdog_count));
    timer_code_set_initial(e, p->lapic_mmio_base);
}

/* The save area is page-aligned, which XSAVE (64 bytes) and FXSAVE (16) need. */
#define PAGE_SIZE 4096u

size_t codegen_code_offset(const struct codegen_params *p)
{
    size_t save = p->xsave_mask ? p->xsave_size : 512;
    return CODEGEN_SAVE_OFFSET + (save + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
}

/* EDX:EAX = the requested-feature bitmap of XSAVE/XRSTOR (SDM vol. 1 13.6). */
static void emit_xsave_mask(struct x86_emitter *e, const struct codegen_params *p)
{
    x86_mov_reg32_imm32(e, RAX, (uint32_t)p->xsave_mask);
    x86_mov_reg32_imm32(e, RDX, (uint32_t)(p->xsave_mask >> 32));
}

/* Saves the firmware's x87/SSE/AVX/... state (after the GPRs: it clobbers RAX and RDX). */
static void emit_save_state(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    if (p->xsave_mask) {
        emit_xsave_mask(e, p);
        x86_xsave64_rip(e, (uintptr_t)buf + CODEGEN_SAVE_OFFSET);
    } else {
        x86_fxsave64_rip(e, (uintptr_t)buf + CODEGEN_SAVE_OFFSET);
    }
}

static void emit_restore_state(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    if (p->xsave_mask) {
        emit_xsave_mask(e, p);
        x86_xrstor64_rip(e, (uintptr_t)buf + CODEGEN_SAVE_OFFSET);
    } else {
        x86_fxrstor64_rip(e, (uintptr_t)buf + CODEGEN_SAVE_OFFSET);
    }
}

/*
 * XRSTOR of a standard-form area faults (#GP) unless bytes 8..63 of its
 * header are zero (SDM vol. 1 13.8.1); XSAVE writes only XSTATE_BV, so clear
 * the header once when the function is written.
 */
#define XSAVE_HEADER_OFFSET 512u
#define XSAVE_HEADER_SIZE 64u

static bool prepare_save_area(uint8_t *buf, size_t cap, const struct codegen_params *p)
{
    if (p->xsave_mask && (p->xsave_size < XSAVE_HEADER_OFFSET + XSAVE_HEADER_SIZE ||
                          p->xsave_size > CODEGEN_SAVE_MAX))
        return false;
    if (cap < codegen_code_offset(p))
        return false;
    if (p->xsave_mask)
        nb_memset(buf + CODEGEN_SAVE_OFFSET + XSAVE_HEADER_OFFSET, 0, XSAVE_HEADER_SIZE);
    return true;
}

static void emit_prologue(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    x86_pushfq(e);
    if (p->mask_interrupts)
        x86_cli(e);
    for (int r = RAX; r <= R15; r++)
        x86_mov_rip_from_reg64(e, DATA_GPR(buf, r), (enum x86_reg)r);
    emit_save_state(e, buf, p);
    if (p->catch_faults) {
        emit_install_gdt_tss(e, buf);
        emit_install_idt(e, buf, p);
    }
    if (p->catch_faults && p->watchdog) {
        /* Only the watchdog's vector can arrive now (watchdog_arm), and only into our IDT. */
        emit_timer_count(e, buf, p, false);
        x86_sti(e);
    }
    if (p->catch_faults && p->nmi_state)
        nmi_code_enter(e, buf, p->nmi_state);

    x86_mov_reg64_imm64(e, R14, p->areas.r14);
    x86_mov_reg64_imm64(e, RDI, p->areas.rdi);
    x86_mov_reg64_imm64(e, RSI, p->areas.rsi);
    x86_mov_reg64_imm64(e, RBP, p->areas.rbp);
    x86_mov_reg64_imm64(e, RSP, p->areas.rsp);
    static const enum x86_reg zeroed[] = { RAX, RBX, RCX, RDX, R8, R9, R10, R11, R12, R13, R15 };
    for (size_t i = 0; i < sizeof(zeroed) / sizeof(zeroed[0]); i++)
        x86_xor_reg32(e, zeroed[i]);
}

/* Returns the epilogue's address: where the exception stubs resume. */
static uintptr_t emit_epilogue(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    uintptr_t start = x86_here(e);
    if (p->catch_faults && p->nmi_state)
        nmi_code_leave(e, buf, p->nmi_state);
    if (p->catch_faults && p->watchdog) {
        x86_cli(e);
        emit_timer_count(e, buf, p, true);
    }
    if (p->catch_faults) {
        x86_lidt_rip(e, DATA(buf, firmware_idtr));
        emit_restore_gdt_tss(e, buf);
    }
    emit_restore_state(e, buf, p);
    for (int r = RAX; r <= R15; r++) {
        if (r != RSP)
            x86_mov_reg64_from_rip(e, (enum x86_reg)r, DATA_GPR(buf, r));
    }
    /* RSP last: the saved flags sit on the caller's stack. */
    x86_mov_reg64_from_rip(e, RSP, DATA_GPR(buf, RSP));
    x86_popfq(e);
    x86_ret(e);
    return start;
}

/* 64-bit interrupt gate: present, DPL 0, type 0xE (SDM vol. 3A figure 6-8). */
#define IDT_GATE_INTERRUPT 0x8E

static void write_gate(uint8_t *gate, uintptr_t handler, unsigned ist)
{
    nb_memset(gate, 0, IDT_GATE_SIZE);
    gate[0] = (uint8_t)handler;
    gate[1] = (uint8_t)(handler >> 8);
    /* bytes 2-3: code selector, stored by the prologue from CS */
    gate[4] = (uint8_t)ist; /* bits 2:0: the TSS's IST entry to switch to, 0 for none */
    gate[5] = IDT_GATE_INTERRUPT;
    for (int b = 2; b < 8; b++)
        gate[4 + b] = (uint8_t)(handler >> (8 * b));
}

/* TSS fields (SDM vol. 3A figure 8-11). */
#define TSS_IST1 36
#define TSS_IST_COUNT 7
#define TSS_IOMAP_BASE 102

/*
 * The TSS: IST1 is the stack page below CODEGEN_IST_STACK_TOP. IST2-7 name
 * the same stack, for a firmware NMI or #MC gate (copied into our IDT) that
 * uses one of them. The I/O map base is past the limit: no I/O bitmap.
 */
static void write_tss_and_gdtr(uint8_t *buf)
{
    struct codegen_data *data = (struct codegen_data *)buf;
    uint64_t top = (uint64_t)(uintptr_t)buf + CODEGEN_IST_STACK_TOP;
    nb_memset(data->tss, 0, sizeof(data->tss));
    for (int i = 0; i < TSS_IST_COUNT; i++)
        for (int b = 0; b < 8; b++)
            data->tss[TSS_IST1 + 8 * i + b] = (uint8_t)(top >> (8 * b));
    data->tss[TSS_IOMAP_BASE] = CODEGEN_TSS_SIZE;
    uint16_t limit = CODEGEN_GDT_COPY_BYTES + 16 - 1;
    uint64_t base = (uint64_t)(uintptr_t)data->gdt;
    data->gdtr[0] = (uint8_t)limit;
    data->gdtr[1] = (uint8_t)(limit >> 8);
    for (int b = 0; b < 8; b++)
        data->gdtr[2 + b] = (uint8_t)(base >> (8 * b));
}

/*
 * One stub per vector (push a 0 error code where the CPU pushes none, push
 * the vector) and a common part that records vector, error code, faulting
 * RIP and CR2, then jumps to the epilogue.
 */
static void emit_fault_stubs(struct x86_emitter *e, uint8_t *buf, uintptr_t recovery,
                             const struct codegen_params *p)
{
    uintptr_t common = x86_here(e);
    x86_pop_reg64(e, RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, fault_vector), RAX);
    x86_pop_reg64(e, RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, fault_error), RAX);
    x86_pop_reg64(e, RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, fault_rip), RAX);
    x86_mov_rax_cr2(e);
    x86_mov_rip_from_reg64(e, DATA(buf, fault_cr2), RAX);
    x86_mov_rip_simm32(e, DATA(buf, fault_happened), 1);
    x86_jmp_rel32(e, recovery);

    struct codegen_data *data = (struct codegen_data *)buf;
    /* Gates above 31 are not present (an interrupt there is a #NP fault)... */
    if (!e->overflow)
        nb_memset(data->idt + IDT_GATE_SIZE * CODEGEN_IDT_VECTORS, 0,
                  IDT_GATE_SIZE * (CODEGEN_IDT_ENTRIES - CODEGEN_IDT_VECTORS));
    /* ...but the watchdog's, which ends the run, and the spurious vector, which is ignored. */
    if (p->watchdog) {
        uintptr_t timeout = x86_here(e);
        x86_push_imm8(e, 0);
        x86_push_imm32(e, (int32_t)WATCHDOG_VECTOR);
        x86_jmp_rel32(e, common);
        uintptr_t spurious = x86_here(e);
        x86_iretq(e);
        /*
         * Both on the IST stack too: a benchmark that hangs with RSP unusable
         * (non-canonical, unmapped) must still end as a timeout, and the
         * spurious IRET restores the code's own RSP from the frame (SDM vol.
         * 3A 6.14.5: the processor switches to the IST stack unconditionally).
         */
        if (!e->overflow) {
            write_gate(data->idt + IDT_GATE_SIZE * WATCHDOG_VECTOR, timeout, CODEGEN_IST_INDEX);
            write_gate(data->idt + IDT_GATE_SIZE * spurious_vector(p), spurious, CODEGEN_IST_INDEX);
        }
    }
    if (p->trace) {
        /* #DB: every single step goes to the capture, on the IST stack (RSP may be anything). */
        uintptr_t step = trace_code_handler(e, p);
        if (!e->overflow)
            write_gate(data->idt + IDT_GATE_SIZE * 1, step, CODEGEN_IST_INDEX);
    }
    if (p->debug) {
        /* The breakpoint and single steps go to the stop function, on the IST stack. */
        uintptr_t bp, step;
        debug_code_handler(e, buf, p, &bp, &step);
        if (!e->overflow) {
            write_gate(data->idt + IDT_GATE_SIZE * 3, bp, CODEGEN_IST_INDEX);
            write_gate(data->idt + IDT_GATE_SIZE * 1, step, CODEGEN_IST_INDEX);
        }
    }
    if (p->nmi_state) {
        uintptr_t nmi = nmi_code_handler(e, buf, p->nmi_state, common);
        /* On the IST stack: the NMI may stop code whose RSP is unusable. */
        if (!e->overflow)
            write_gate(data->idt + IDT_GATE_SIZE * 2, nmi, CODEGEN_IST_INDEX);
    }
    for (unsigned v = 0; v < CODEGEN_IDT_VECTORS; v++) {
        if (firmware_vector(v, p) || (v == 2 && p->nmi_state) || (v == 1 && p->trace) ||
            ((v == 1 || v == 3) && p->debug))
            continue;
        uintptr_t stub = x86_here(e);
        if (!pushes_error_code(v))
            x86_push_imm8(e, 0);
        x86_push_imm8(e, (int8_t)v);
        x86_jmp_rel32(e, common);
        /*
         * Every exception switches to the IST stack: the stubs never return
         * to the code, and RSP may be anything (a #PF or #SS on a push, a
         * #DF), where pushing the frame would fault again and reset.
         */
        if (!e->overflow)
            write_gate(data->idt + IDT_GATE_SIZE * v, stub, CODEGEN_IST_INDEX);
    }
    if (!e->overflow)
        write_tss_and_gdtr(buf);
    uint16_t limit = CODEGEN_IDT_ENTRIES * IDT_GATE_SIZE - 1;
    uint64_t base = (uint64_t)(uintptr_t)data->idt;
    data->idtr[0] = (uint8_t)limit;
    data->idtr[1] = (uint8_t)(limit >> 8);
    for (int b = 0; b < 8; b++)
        data->idtr[2 + b] = (uint8_t)(base >> (8 * b));
}

static void emit_tail(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p,
                      struct codegen_layout *layout)
{
    uintptr_t recovery = emit_epilogue(e, buf, p);
    if (!e->overflow)
        ((struct codegen_data *)buf)->recovery = recovery;
    if (p->catch_faults)
        emit_fault_stubs(e, buf, recovery, p);
    if (layout)
        layout->code_end = x86_here(e);
}

/* LFENCE; RDTSC / RDPMC / RDMSR (ECX = index) into EDX:EAX; LFENCE. */
static void emit_counter_read(struct x86_emitter *e, const struct counter_read *r)
{
    x86_lfence(e);
    if (r->kind == READ_TSC) {
        x86_rdtsc(e);
    } else {
        x86_mov_reg32_imm32(e, RCX, r->ecx);
        if (r->kind == READ_PMC)
            x86_rdpmc(e);
        else
            x86_rdmsr(e);
    }
    x86_lfence(e);
}

/*
 * Reads every counter into m1 or m2 without changing any GPR or flag:
 * RAX/RCX/RDX are parked in scratch slots, and the halves of EDX:EAX are
 * stored with MOVs, which leave RFLAGS alone. m2 reads in reverse order so
 * that the TSC (read first in m1) brackets the other counters.
 */
#define TOPDOWN_RESET_BYTES (4 * (3 * 5 + 2))

/* ECX = msr, EDX:EAX = value, WRMSR; MOVs only, so RFLAGS stays as it was. */
static void emit_wrmsr(struct x86_emitter *e, uint32_t msr, uint64_t value)
{
    x86_mov_reg32_imm32(e, RCX, msr);
    x86_mov_reg32_imm32(e, RAX, (uint32_t)value);
    x86_mov_reg32_imm32(e, RDX, (uint32_t)(value >> 32));
    x86_wrmsr(e);
}

/*
 * Intel top-down (codegen_params.topdown_global_ctrl): FIXED_CTR3 and
 * IA32_PERF_METRICS start from 0 together, with the counters stopped, in
 * Linux's order (FIXED_CTR3 first).
 */
static void emit_topdown_reset(struct x86_emitter *e, uint64_t global_ctrl)
{
    emit_wrmsr(e, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    emit_wrmsr(e, MSR_IA32_FIXED_CTR3, 0);
    emit_wrmsr(e, MSR_IA32_PERF_METRICS, 0);
    emit_wrmsr(e, MSR_IA32_PERF_GLOBAL_CTRL, global_ctrl);
}

/* -cycle_by_cycle's start and end (codegen_params.cycles_global_ctrl). */
static void emit_cycles_switch(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p, bool end)
{
    if (end)
        x86_lfence(e);
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rax), RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rcx), RCX);
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rdx), RDX);
    emit_wrmsr(e, MSR_IA32_PERF_GLOBAL_CTRL, end ? 0 : p->cycles_global_ctrl);
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, scratch_rax));
    x86_mov_reg64_from_rip(e, RCX, DATA(buf, scratch_rcx));
    x86_mov_reg64_from_rip(e, RDX, DATA(buf, scratch_rdx));
    if (!end)
        x86_lfence(e);
}

size_t codegen_cycles_tail(const struct codegen_params *p)
{
    size_t drain = p->drain_frontend ? 1 + DRAIN_SHORT_NOPS + DRAIN_LONG_NOPS : 0;
    return drain + 1 + 3 + 3;
}

static void emit_read(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p, bool end)
{
    if (p->cycles_global_ctrl) {
        emit_cycles_switch(e, buf, p, end);
        return;
    }
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rax), RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rcx), RCX);
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rdx), RDX);
    if (!end && p->topdown_global_ctrl)
        emit_topdown_reset(e, p->topdown_global_ctrl);
    for (size_t k = 0; k < p->n_reads; k++) {
        size_t i = end ? p->n_reads - 1 - k : k;
        const struct counter_read *r = &p->reads[i];
        uintptr_t slot = end ? DATA(buf, m2) + 8 * i : DATA(buf, m1) + 8 * i;
        emit_counter_read(e, r);
        x86_mov_rip_from_reg32(e, slot, RAX);
        x86_mov_rip_from_reg32(e, slot + 4, RDX);
    }
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, scratch_rax));
    x86_mov_reg64_from_rip(e, RCX, DATA(buf, scratch_rcx));
    x86_mov_reg64_from_rip(e, RDX, DATA(buf, scratch_rdx));
}

/*
 * -no_mem reads: each counter k adds to or subtracts from R8+k, so that
 * after "start" (subtract), any pause (add) / resume (subtract) pairs, and
 * "end" (add), R8+k holds the counted events of the unpaused stretches.
 * RAX, RCX, RDX and the flags are clobbered (as nanoBench documents).
 */
enum nomem_step { NOMEM_START, NOMEM_PAUSE, NOMEM_RESUME, NOMEM_END };

static void emit_read_nomem(struct x86_emitter *e, const struct codegen_params *p, enum nomem_step step)
{
    bool add = (step == NOMEM_PAUSE || step == NOMEM_END);
    for (size_t k = 0; k < p->n_reads; k++) {
        /* Stop in reverse order so the TSC brackets the other counters. */
        size_t i = add ? p->n_reads - 1 - k : k;
        const struct counter_read *r = &p->reads[i];
        enum x86_reg acc = (enum x86_reg)(R8 + i);
        emit_counter_read(e, r);
        x86_shl_reg64_imm8(e, RDX, 32);
        x86_or_reg64(e, RAX, RDX);
        if (add)
            x86_add_reg64(e, acc, RAX);
        else
            x86_sub_reg64(e, acc, RAX);
    }
}

static bool magic_at(const uint8_t *code, size_t len, size_t i, uint64_t magic)
{
    if (i + 8 > len)
        return false;
    uint64_t v = 0;
    for (int b = 7; b >= 0; b--)
        v = v << 8 | code[i + (size_t)b];
    return v == magic;
}

bool codegen_has_magic(const uint8_t *code, size_t len)
{
    for (size_t i = 0; i + 8 <= len; i++) {
        if (magic_at(code, len, i, MAGIC_PAUSE) || magic_at(code, len, i, MAGIC_RESUME))
            return true;
    }
    return false;
}

/* One copy of the main code with the magic sequences replaced by counter reads. */
static void emit_main_nomem(struct x86_emitter *e, const struct codegen_params *p)
{
    const uint8_t *code = p->part[PART_MAIN];
    size_t len = p->part_len[PART_MAIN], start = 0;
    for (size_t i = 0; i < len;) {
        bool pause = magic_at(code, len, i, MAGIC_PAUSE);
        if (pause || magic_at(code, len, i, MAGIC_RESUME)) {
            x86_bytes(e, code + start, i - start);
            emit_read_nomem(e, p, pause ? NOMEM_PAUSE : NOMEM_RESUME);
            i += 8;
            start = i;
        } else {
            i++;
        }
    }
    x86_bytes(e, code + start, len - start);
}

static void emit_part(struct x86_emitter *e, const struct codegen_params *p, enum code_part part)
{
    if (p->part_len[part])
        x86_bytes(e, p->part[part], p->part_len[part]);
}

/* Everything between the alignment padding and the first copy. */
static void emit_start(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    if (p->trace) {
        /* -mica: no counters; single-stepping starts with the late-init code (-debug_trace: it has started). */
        if (!p->trace_init)
            trace_code_enable(e, buf);
    } else if (p->no_mem) {
        /* The init code may have used R8..R13: the accumulators start at 0 here. */
        for (size_t k = 0; k < p->n_reads; k++)
            x86_xor_reg32(e, (enum x86_reg)(R8 + k));
        emit_read_nomem(e, p, NOMEM_START);
    } else
        emit_read(e, buf, p, false);
}

static size_t length_before_copies(uint8_t *buf, const struct codegen_params *p)
{
    struct x86_emitter dry;
    x86_emitter_init(&dry, buf + codegen_code_offset(p), 0);
    emit_start(&dry, buf, p);
    emit_part(&dry, p, PART_LATE_INIT);
    if (p->drain_frontend)
        emit_drain(&dry);
    return dry.length;
}

/* A -no_mem read sequence replaces each 8-byte magic sequence: at most this much per byte. */
#define NOMEM_READ_MAX_BYTES 32

size_t codegen_run_size(const struct codegen_params *p)
{
    size_t drains = p->drain_frontend ? 3 * codegen_drain_length() : 0;
    size_t per_copy = p->part_len[PART_MAIN];
    if (p->no_mem)
        per_copy += (p->part_len[PART_MAIN] / 8) * NOMEM_READ_MAX_BYTES * NOMEM_MAX_READS;
    size_t copies = (size_t)p->copies * per_copy;
    /* The top-down reset: four WRMSRs of 3 MOV r32, imm32 (5 bytes) and WRMSR (2). */
    size_t topdown = p->topdown_global_ctrl || p->cycles_global_ctrl ? TOPDOWN_RESET_BYTES : 0;
    return codegen_code_offset(p) + PROLOGUE_EPILOGUE_MAX + (p->debug ? DEBUG_HANDLER_MAX : 0) + 2 * READ_MAX_PER_COUNTER * (p->n_reads + 3) + topdown +
           p->part_len[PART_INIT] + p->part_len[PART_LATE_INIT] + drains + CODE_ALIGNMENT +
           (size_t)p->alignment_offset + copies + 16;
}

/*
 * The emitter for the code at buf + offset: into p->stage when it holds
 * cap - offset bytes, else straight into buf.
 */
static void code_emitter(struct x86_emitter *e, uint8_t *buf, size_t cap, size_t offset,
                         const struct codegen_params *p)
{
    if (p->stage && p->stage_cap >= cap - offset)
        x86_emitter_init_staged(e, p->stage, buf + offset, cap - offset);
    else
        x86_emitter_init(e, buf + offset, cap - offset);
}

/*
 * Copies the staged code into place, writing only the 8-byte words that
 * differ: a code page that is not written keeps its translations (TCG
 * invalidates every translated block of a page on any store to it).
 */
typedef uint64_t __attribute__((may_alias, aligned(1))) code_word;

void codegen_sync(uint8_t *code, const uint8_t *staged, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        code_word *have = (code_word *)(void *)(code + i);
        code_word want = *(const code_word *)(const void *)(staged + i);
        if (*have != want)
            *have = want;
    }
    for (; i < len; i++)
        if (code[i] != staged[i])
            code[i] = staged[i];
}

static void code_commit(const struct x86_emitter *e)
{
    if (e->out != e->start && !e->overflow)
        codegen_sync(e->start, e->out, e->length);
}

size_t codegen_one_time_size(const struct codegen_params *p)
{
    return codegen_code_offset(p) + PROLOGUE_EPILOGUE_MAX + (p->debug ? DEBUG_HANDLER_MAX : 0) +
           p->part_len[PART_ONE_TIME_INIT];
}

void *codegen_emit_run(uint8_t *buf, size_t cap, const struct codegen_params *p,
                       struct codegen_layout *layout)
{
    struct codegen_layout unused;
    if (!layout)
        layout = &unused;
    nb_memset(layout, 0, sizeof(*layout));
    if (!prepare_save_area(buf, cap, p) || p->n_reads > NB_MAX_COUNTERS ||
        (p->no_mem && p->n_reads > NOMEM_MAX_READS) || codegen_run_size(p) > CODEGEN_MAX_SIZE)
        return NULL;
    size_t offset = codegen_code_offset(p);
    struct x86_emitter e;
    code_emitter(&e, buf, cap, offset, p);

    layout->code_start = x86_here(&e);
    emit_prologue(&e, buf, p);
    bool trace_init = p->trace && p->trace_init;
    if (trace_init)
        trace_code_enable(&e, buf);
    layout->start[PART_INIT] = x86_here(&e);
    layout->len[PART_INIT] = p->part_len[PART_INIT];
    emit_part(&e, p, PART_INIT);
    if (p->drain_frontend)
        emit_drain(&e);
    if (p->loop_count > 0)
        x86_mov_reg64_simm32(&e, R15, (int32_t)p->loop_count);

    /* Pad (outside the measured region) so the first copy starts at 64k + offset; not single-stepped. */
    size_t before = length_before_copies(buf, p);
    uintptr_t first_copy = x86_here(&e) + before;
    size_t pad = (CODE_ALIGNMENT - first_copy % CODE_ALIGNMENT) % CODE_ALIGNMENT;
    if (!trace_init)
        x86_nop_fill(&e, pad + (size_t)p->alignment_offset);

    emit_start(&e, buf, p);
    layout->start[PART_LATE_INIT] = x86_here(&e);
    layout->len[PART_LATE_INIT] = p->part_len[PART_LATE_INIT];
    emit_part(&e, p, PART_LATE_INIT);
    if (p->drain_frontend)
        emit_drain(&e);
    uintptr_t loop_start = x86_here(&e);
    bool expand = p->no_mem && codegen_has_magic(p->part[PART_MAIN], p->part_len[PART_MAIN]);
    if (expand) {
        for (int64_t i = 0; i < p->copies; i++)
            emit_main_nomem(&e, p);
    } else if (p->copies > 0) {
        emit_part(&e, p, PART_MAIN);
        x86_repeat_last(&e, p->part_len[PART_MAIN], (uint64_t)p->copies - 1);
    }
    layout->start[PART_MAIN] = loop_start;
    layout->copies = p->copies;
    layout->len[PART_MAIN] = p->copies ? (size_t)(x86_here(&e) - loop_start) / (size_t)p->copies : 0;
    if (p->loop_count > 0) {
        x86_dec_reg64(&e, R15);
        x86_jnz_rel32(&e, loop_start);
    }
    if (p->trace) {
        /* The first address after the region: the capture stops single-stepping here. */
        layout->trace_start = layout->start[trace_init ? PART_INIT : PART_LATE_INIT];
        layout->trace_stop = x86_here(&e);
        x86_u8(&e, 0x90);
        emit_tail(&e, buf, p, layout);
        code_commit(&e);
        return e.overflow ? NULL : buf + offset;
    }
    if (p->drain_frontend)
        emit_drain(&e);
    if (p->debug)
        layout->debug_slot = debug_code_slot(&e);
    if (p->no_mem) {
        /* Counting is over: now the values may go to memory (m2 - m1 = R8+k). */
        emit_read_nomem(&e, p, NOMEM_END);
        for (size_t k = 0; k < p->n_reads; k++) {
            x86_mov_rip_from_reg64(&e, DATA(buf, m2) + 8 * k, (enum x86_reg)(R8 + k));
            x86_mov_rip_simm32(&e, DATA(buf, m1) + 8 * k, 0);
        }
    } else {
        emit_read(&e, buf, p, true);
    }
    emit_tail(&e, buf, p, layout);
    code_commit(&e);
    return e.overflow ? NULL : buf + offset;
}

void *codegen_emit_one_time(uint8_t *buf, size_t cap, const struct codegen_params *p,
                            struct codegen_layout *layout)
{
    struct codegen_layout unused;
    if (!layout)
        layout = &unused;
    nb_memset(layout, 0, sizeof(*layout));
    if (!prepare_save_area(buf, cap, p))
        return NULL;
    size_t offset = codegen_code_offset(p);
    struct x86_emitter e;
    code_emitter(&e, buf, cap, offset, p);
    layout->code_start = x86_here(&e);
    emit_prologue(&e, buf, p);
    layout->start[PART_ONE_TIME_INIT] = x86_here(&e);
    layout->len[PART_ONE_TIME_INIT] = p->part_len[PART_ONE_TIME_INIT];
    emit_part(&e, p, PART_ONE_TIME_INIT);
    emit_tail(&e, buf, p, layout);
    code_commit(&e);
    return e.overflow ? NULL : buf + offset;
}
