/*
 * nmi_code.c — the generated code's side of the NMI watchdog (see nmi_code.h).
 *
 * The few encodings used only here are written as bytes with their
 * mnemonic (SDM vol. 2); tests/unit/test_nmi_watchdog.c disassembles them.
 */
#include "nmi_code.h"
#include "codegen_types.h"
#include "nmi_watchdog.h"
#include "watchdog.h"

#include <stddef.h>

#define DATA(buf, field) ((uintptr_t)(buf) + offsetof(struct codegen_data, field))

/* A Jcc rel8 whose target is set by patch_jump once known. */
static size_t jump_placeholder(struct x86_emitter *e, uint8_t cc)
{
    size_t at = e->length;
    x86_jcc_rel8(e, cc, 0);
    return at;
}

static void patch_jump(struct x86_emitter *e, size_t at)
{
    size_t rel = e->length - (at + 2);
    if (rel > 127)
        e->overflow = true; /* cannot happen with these short sequences; never emit a wrong jump */
    else if (!e->overflow)
        e->out[at + 1] = (uint8_t)rel;
}

#define CC_NE 0x5
#define CC_E 0x4

/* EAX = *state, EDX = its phase (RCX = state). */
static void load_state(struct x86_emitter *e)
{
    x86_bytes(e, "\x8B\x01", 2);         /* mov eax, [rcx] */
    x86_bytes(e, "\x89\xC2", 2);         /* mov edx, eax */
    x86_bytes(e, "\x83\xE2\x03", 3);     /* and edx, NMI_WATCH_PHASE_MASK */
}

_Static_assert(NMI_WATCH_PHASE_MASK == 3 && NMI_WATCH_IDLE == 0 && NMI_WATCH_RUNNING == 1 &&
                   NMI_WATCH_FIRED == 2,
               "the bytes below encode these phase values");

void nmi_code_enter(struct x86_emitter *e, uint8_t *buf, uint64_t state)
{
    x86_mov_rip_simm32(e, DATA(buf, nmi_arrived), 0);
    x86_mov_reg64_imm64(e, RCX, state);
    load_state(e);
    size_t not_idle = jump_placeholder(e, CC_NE); /* EXPIRED: the deadline has passed */
    x86_bytes(e, "\x8D\x50\x01", 3);              /* lea edx, [rax + RUNNING] */
    x86_bytes(e, "\xF0\x0F\xB1\x11", 4);          /* lock cmpxchg [rcx], edx */
    size_t entered = jump_placeholder(e, CC_E);
    /* The watcher expired it first: a timeout, recorded as the timer scheme's stub does. */
    patch_jump(e, not_idle);
    x86_mov_rip_simm32(e, DATA(buf, fault_vector), (int32_t)WATCHDOG_VECTOR);
    x86_mov_rip_simm32(e, DATA(buf, fault_error), 0);
    x86_mov_rip_simm32(e, DATA(buf, fault_rip), 0);
    x86_mov_rip_simm32(e, DATA(buf, fault_cr2), 0);
    x86_mov_rip_simm32(e, DATA(buf, fault_happened), 1);
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, recovery));
    x86_bytes(e, "\xFF\xE0", 2); /* jmp rax */
    patch_jump(e, entered);
}

void nmi_code_leave(struct x86_emitter *e, uint8_t *buf, uint64_t state)
{
    x86_mov_reg64_imm64(e, RCX, state);
    size_t again = e->length;
    load_state(e);
    x86_bytes(e, "\x83\xFA\x02", 3); /* cmp edx, FIRED */
    size_t fired = jump_placeholder(e, CC_E);
    x86_bytes(e, "\x83\xFA\x01", 3); /* cmp edx, RUNNING */
    size_t not_running = jump_placeholder(e, CC_NE); /* EXPIRED: the prologue did not enter */
    x86_bytes(e, "\x8D\x50\xFF", 3);                 /* lea edx, [rax - RUNNING]: IDLE */
    x86_bytes(e, "\xF0\x0F\xB1\x11", 4);             /* lock cmpxchg [rcx], edx */
    /* Lost the race to the watcher (now FIRED): look again. */
    x86_jcc_rel8(e, CC_NE, (int8_t)(int)(again - (e->length + 2)));
    size_t done = e->length;
    x86_jcc_rel8(e, 0xB, 0); /* placeholder, rewritten as JMP rel8 below */
    /* FIRED: the NMI is on its way; its handler comes back here with nmi_arrived set. */
    patch_jump(e, fired);
    size_t wait = e->length;
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, nmi_arrived));
    x86_bytes(e, "\x48\x85\xC0", 3); /* test rax, rax */
    size_t arrived = jump_placeholder(e, CC_NE);
    x86_bytes(e, "\xF3\x90", 2); /* pause */
    x86_u8(e, 0xEB);             /* jmp rel8 wait */
    x86_u8(e, (uint8_t)(int8_t)(int)(wait - (e->length + 1)));
    patch_jump(e, arrived);
    patch_jump(e, not_running);
    patch_jump(e, done);
    if (!e->overflow)
        e->out[done] = 0xEB; /* jmp rel8 */
}

uintptr_t nmi_code_handler(struct x86_emitter *e, uint8_t *buf, uint64_t state, uintptr_t common)
{
    /* Continues here after the IRET, on the IST stack, with NMIs unblocked. */
    uintptr_t resume = x86_here(e);
    x86_mov_rip_simm32(e, DATA(buf, nmi_arrived), 1);
    x86_mov_reg64_from_rip(e, RAX, DATA(buf, nmi_rip));
    x86_u8(e, 0x50);      /* push rax: the interrupted RIP, as a fault frame has it */
    x86_push_imm8(e, 0);  /* error code */
    x86_mov_reg64_imm64(e, RCX, state);
    load_state(e);
    x86_bytes(e, "\x83\xFA\x02", 3); /* cmp edx, FIRED */
    size_t foreign = jump_placeholder(e, CC_NE);
    x86_push_imm32(e, (int32_t)WATCHDOG_VECTOR);
    x86_jmp_rel32(e, common);
    patch_jump(e, foreign);
    x86_push_imm8(e, 2); /* an NMI the watcher did not send: reported as such */
    x86_jmp_rel32(e, common);

    /*
     * The gate: with RAX saved, the frame (SDM vol. 3A figure 6-9) is RIP at
     * +8, CS +16, RFLAGS +24, RSP +32, SS +40. Keep RIP for the report and
     * IRET to `resume` with IF=0 on the rest of the IST stack.
     */
    uintptr_t gate = x86_here(e);
    x86_u8(e, 0x50);                                   /* push rax */
    x86_bytes(e, "\x48\x8B\x44\x24\x08", 5);           /* mov rax, [rsp + 8] */
    x86_mov_rip_from_reg64(e, DATA(buf, nmi_rip), RAX);
    x86_lea_reg64_rip(e, RAX, resume);
    x86_bytes(e, "\x48\x89\x44\x24\x08", 5);           /* mov [rsp + 8], rax */
    x86_bytes(e, "\x48\xC7\x44\x24\x18\x02\0\0\0", 9); /* mov qword [rsp + 24], 2 (IF=0) */
    x86_bytes(e, "\x48\x8D\x44\x24\x30", 5);           /* lea rax, [rsp + 48] */
    x86_bytes(e, "\x48\x89\x44\x24\x20", 5);           /* mov [rsp + 32], rax */
    x86_u8(e, 0x58);                                   /* pop rax */
    x86_iretq(e);
    return gate;
}
