/*
 * debug_code.c — -debug's breakpoint slot and stop handler (see debug_code.h).
 *
 * Encodings written as bytes carry their mnemonic (SDM vol. 2);
 * tests/unit/test_debug.c (debug_handler_decodes) checks them with objdump.
 */
#include "debug_code.h"
#include "timer_code.h"

#include <stddef.h>

#define DATA(buf, field) ((uintptr_t)(buf) + offsetof(struct codegen_data, field))
#define SLOT(buf, s) (DATA(buf, debug_regs) + 8u * (unsigned)(s))

/* IA32_EFER (SDM vol. 4 table 2-2). */
#define MSR_IA32_EFER 0xC0000080u

uintptr_t debug_code_slot(struct x86_emitter *e)
{
    uintptr_t at = x86_here(e);
    x86_u8(e, DEBUG_SLOT_NOP);
    return at;
}

/* The frame the processor pushed on the IST stack (no error code for #BP and #DB). */
static const struct {
    enum debug_slot slot;
    uint8_t disp;
} FRAME[] = { { DBG_RIP, 0 }, { DBG_CS, 8 }, { DBG_RFLAGS, 16 }, { (enum debug_slot)RSP, 24 }, { DBG_SS, 32 } };

static void rax_to_slot(struct x86_emitter *e, uint8_t *buf, enum debug_slot s)
{
    x86_mov_rip_from_reg64(e, SLOT(buf, s), RAX);
}

/* RAX = RDX:RAX's 64-bit value (after RDTSC, RDMSR, XGETBV). */
static void join_edx_eax(struct x86_emitter *e)
{
    x86_shl_reg64_imm8(e, RDX, 32);
    x86_or_reg64(e, RAX, RDX);
}

static void save_system_state(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    static const struct {
        enum debug_slot slot;
        const char *bytes;
        size_t len;
    } READS[] = {
        { DBG_DS, "\x48\x8C\xD8", 3 },     /* mov rax, ds */
        { DBG_ES, "\x48\x8C\xC0", 3 },     /* mov rax, es */
        { DBG_FS, "\x48\x8C\xE0", 3 },     /* mov rax, fs */
        { DBG_GS, "\x48\x8C\xE8", 3 },     /* mov rax, gs */
        { DBG_CR0, "\x0F\x20\xC0", 3 },    /* mov rax, cr0 */
        { DBG_CR2, "\x0F\x20\xD0", 3 },    /* mov rax, cr2 */
        { DBG_CR3, "\x0F\x20\xD8", 3 },    /* mov rax, cr3 */
        { DBG_CR4, "\x0F\x20\xE0", 3 },    /* mov rax, cr4 */
        { DBG_CR8, "\x44\x0F\x20\xC0", 4 }, /* mov rax, cr8 */
        { DBG_DR6, "\x0F\x21\xF0", 3 },    /* mov rax, dr6 */
        { DBG_DR7, "\x0F\x21\xF8", 3 },    /* mov rax, dr7 */
    };
    for (size_t i = 0; i < sizeof(READS) / sizeof(READS[0]); i++) {
        x86_bytes(e, READS[i].bytes, READS[i].len);
        rax_to_slot(e, buf, READS[i].slot);
    }
    x86_mov_reg32_imm32(e, RCX, MSR_IA32_EFER);
    x86_rdmsr(e);
    join_edx_eax(e);
    rax_to_slot(e, buf, DBG_EFER);
    if (p->xsave_mask) {
        x86_xor_reg32(e, RCX);
        x86_bytes(e, "\x0F\x01\xD0", 3); /* xgetbv (XCR0 with ECX = 0) */
        join_edx_eax(e);
    } else {
        x86_xor_reg32(e, RAX);
    }
    rax_to_slot(e, buf, DBG_XCR0);
}

/* Restarts the APIC timer with the count that was left: the deadline moves by the time stopped. */
static void resume_timer(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p)
{
    x86_mov_reg32_from_rip(e, RCX, DATA(buf, debug_timer_left));
    timer_code_set_initial(e, p->lapic_mmio_base);
}

/* XSAVE64/FXSAVE64 (store) or XRSTOR64/FXRSTOR64 at the absolute address p->debug_save. */
static void vector_state(struct x86_emitter *e, const struct codegen_params *p, bool restore)
{
    x86_mov_reg64_imm64(e, RCX, p->debug_save);
    if (p->xsave_mask) {
        x86_mov_reg32_imm32(e, RAX, (uint32_t)p->xsave_mask);
        x86_mov_reg32_imm32(e, RDX, (uint32_t)(p->xsave_mask >> 32));
        x86_bytes(e, restore ? "\x48\x0F\xAE\x29" : "\x48\x0F\xAE\x21", 4); /* xrstor64 / xsave64 [rcx] */
    } else {
        x86_bytes(e, restore ? "\x48\x0F\xAE\x09" : "\x48\x0F\xAE\x01", 4); /* fxrstor64 / fxsave64 [rcx] */
    }
}

void debug_code_handler(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p, uintptr_t *gate3,
                        uintptr_t *gate1)
{
    /* Two entries: record the vector (a MOV to memory changes no register or flag), then the common part. */
    *gate1 = x86_here(e);
    x86_mov_rip_simm32(e, SLOT(buf, DBG_VECTOR), 1);
    x86_bytes(e, "\xEB", 1); /* jmp rel8 over the other entry's store */
    x86_u8(e, 11);            /* the length of x86_mov_rip_simm32 */
    *gate3 = x86_here(e);
    x86_mov_rip_simm32(e, SLOT(buf, DBG_VECTOR), 3);

    for (int r = RAX; r <= R15; r++)
        x86_mov_rip_from_reg64(e, SLOT(buf, r), (enum x86_reg)r);
    x86_rdtsc(e);
    join_edx_eax(e);
    x86_mov_rip_from_reg64(e, DATA(buf, debug_t0), RAX);
    for (size_t i = 0; i < sizeof(FRAME) / sizeof(FRAME[0]); i++) {
        x86_bytes(e, "\x48\x8B\x44\x24", 4); /* mov rax, [rsp + disp8] */
        x86_u8(e, FRAME[i].disp);
        rax_to_slot(e, buf, FRAME[i].slot);
    }
    save_system_state(e, buf, p);
    if (p->watchdog) /* stopped, its count kept in debug_timer_left */
        timer_code_pause(e, p->lapic_mmio_base, DATA(buf, debug_timer_left));
    vector_state(e, p, false);

    x86_bytes(e, "\x48\x89\xE3", 3); /* mov rbx, rsp: the frame, kept across the call */
    x86_u8(e, 0xFC);                 /* cld: the System V ABI wants DF clear at a call */
    x86_lea_reg64_rip(e, RDI, SLOT(buf, 0));
    x86_bytes(e, "\x48\x83\xE4\xF0", 4); /* and rsp, -16 */
    x86_mov_reg64_imm64(e, RAX, p->debug_stop);
    x86_bytes(e, "\xFF\xD0", 2); /* call rax */
    x86_bytes(e, "\x48\x89\xDC", 3); /* mov rsp, rbx */

    vector_state(e, p, true);
    if (p->watchdog)
        resume_timer(e, buf, p);
    /* debug_paused += TSC now - debug_t0 */
    x86_rdtsc(e);
    join_edx_eax(e);
    x86_mov_reg64_from_rip(e, RCX, DATA(buf, debug_t0));
    x86_sub_reg64(e, RAX, RCX);
    x86_mov_reg64_from_rip(e, RCX, DATA(buf, debug_paused));
    x86_add_reg64(e, RCX, RAX);
    x86_mov_rip_from_reg64(e, DATA(buf, debug_paused), RCX);
    /* RIP, RFLAGS and RSP as the stop function left them. */
    static const uint8_t back[] = { 0, 2, 3 }; /* FRAME entries */
    for (size_t i = 0; i < sizeof(back); i++) {
        x86_mov_reg64_from_rip(e, RAX, SLOT(buf, FRAME[back[i]].slot));
        x86_bytes(e, "\x48\x89\x44\x24", 4); /* mov [rsp + disp8], rax */
        x86_u8(e, FRAME[back[i]].disp);
    }
    for (int r = RAX; r <= R15; r++)
        if (r != RSP)
            x86_mov_reg64_from_rip(e, (enum x86_reg)r, SLOT(buf, r));
    x86_iretq(e);
}
