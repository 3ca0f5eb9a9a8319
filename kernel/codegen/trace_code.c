/*
 * trace_code.c — -mica's single-step sequences (see trace_code.h).
 *
 * Encodings written as bytes carry their mnemonic (SDM vol. 2);
 * tests/unit/test_mica_capture.c runs them in user mode.
 */
#include "trace_code.h"

#include <stddef.h>

#define DATA(buf, field) ((uintptr_t)(buf) + offsetof(struct codegen_data, field))

void trace_code_enable(struct x86_emitter *e, uint8_t *buf)
{
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rax), RAX);
    x86_bytes(e, "\x48\x8B\x44\x24\xF8", 5); /* mov rax, [rsp - 8]: the word PUSHFQ overwrites */
    x86_mov_rip_from_reg64(e, DATA(buf, scratch_rcx), RAX);
    x86_pushfq(e);
    x86_bytes(e, "\x48\x81\x0C\x24\x00\x01\x00\x00", 8); /* or qword [rsp], 0x100 (TF) */
    x86_popfq(e);
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, scratch_rcx));
    x86_bytes(e, "\x48\x89\x44\x24\xF8", 5); /* mov [rsp - 8], rax */
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, scratch_rax));
}

/* EDX:EAX = the XSAVE feature mask. */
static void xsave_mask(struct x86_emitter *e, const struct codegen_params *p)
{
    x86_mov_reg32_imm32(e, RAX, (uint32_t)p->xsave_mask);
    x86_mov_reg32_imm32(e, RDX, (uint32_t)(p->xsave_mask >> 32));
}

uintptr_t trace_code_handler(struct x86_emitter *e, const struct codegen_params *p)
{
    uintptr_t gate = x86_here(e);
    /* R15 first, RAX last: then [rsp + 8 * r] is register r, the RSP slot a placeholder. */
    for (int r = R15; r >= RAX; r--) {
        if (r == RSP) {
            x86_push_imm8(e, 0);
            continue;
        }
        if (r >= R8)
            x86_u8(e, 0x41); /* REX.B */
        x86_u8(e, (uint8_t)(0x50 + (r & 7))); /* push r64 */
    }
    x86_bytes(e, "\x48\x89\xE3", 3); /* mov rbx, rsp: the array, kept across the call */
    x86_u8(e, 0xFC);                 /* cld: the System V ABI wants DF clear at a call */
    if (p->xsave_mask) {
        xsave_mask(e, p);
        x86_xsave64_rip(e, p->trace_save);
    } else {
        x86_fxsave64_rip(e, p->trace_save);
    }
    x86_bytes(e, "\x48\x89\xDF", 3);     /* mov rdi, rbx */
    x86_bytes(e, "\x48\x83\xE4\xF0", 4); /* and rsp, -16 */
    x86_mov_reg64_imm64(e, RAX, p->trace_step);
    x86_bytes(e, "\xFF\xD0", 2); /* call rax */
    if (p->xsave_mask) {
        xsave_mask(e, p);
        x86_xrstor64_rip(e, p->trace_save);
    } else {
        x86_fxrstor64_rip(e, p->trace_save);
    }
    x86_bytes(e, "\x48\x89\xDC", 3); /* mov rsp, rbx */
    for (int r = RAX; r <= R15; r++) {
        if (r == RSP) {
            x86_bytes(e, "\x48\x83\xC4\x08", 4); /* add rsp, 8 */
            continue;
        }
        x86_pop_reg64(e, (enum x86_reg)r);
    }
    x86_iretq(e);
    return gate;
}
