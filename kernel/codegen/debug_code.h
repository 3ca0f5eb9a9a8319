/*
 * debug_code.h — the generated code's side of -debug (debug_stop.h): the
 * breakpoint slot after the last copy, and the handler of gates 3 (#BP) and
 * 1 (#DB) that hands the benchmark's whole register state to the stop
 * function and puts back what it changed.
 *
 * The slot is one NOP (0x90) between the last copy (after -df's drain) and
 * the second counter read, in the base and the main run alike, so it adds
 * the same instruction to both and cancels out of every result. For the one
 * execution that stops, the harness writes INT3 (0xCC) there and back
 * (debug_stop.h); the #BP is a trap, so the handler resumes after the slot
 * (SDM vol. 3A 6.15, interrupt 3).
 *
 * The handler runs on the IST stack (the benchmark's RSP may be anything):
 * it stores the 16 GPRs, the frame (RIP, CS, RFLAGS, RSP, SS), the data
 * segment selectors, CR0/CR2/CR3/CR4/CR8, DR6/DR7, EFER and XCR0 into
 * codegen_data.debug_regs (RIP-relative MOVs, no register or flag used
 * before it is saved), stops the APIC-timer watchdog keeping its remaining
 * count, saves the vector state with XSAVE64 (or FXSAVE64) at
 * codegen_params.debug_save, calls codegen_params.debug_stop with the array
 * (System V: RDI), then restores the vector state, restarts the timer with
 * what was left, writes RIP, RFLAGS and RSP back into the frame (the stop
 * function may change them: a debugger's `set $rip`, stepi's TF) and the
 * GPRs, and IRETs. The TSC ticks spent inside are added to debug_paused,
 * so that the harness moves -timeout's budget by as much.
 */
#ifndef DEBUG_CODE_H
#define DEBUG_CODE_H

#include <stdint.h>

#include "codegen_types.h"
#include "x86_emit.h"

#define DEBUG_INT3 0xCCu
#define DEBUG_SLOT_NOP 0x90u

/* The slot: one NOP. Returns its address. */
uintptr_t debug_code_slot(struct x86_emitter *e);
/*
 * The handler (gate 3's and gate 1's entries, which differ only in the
 * vector they record). buf is the function's buffer (its data page).
 */
void debug_code_handler(struct x86_emitter *e, uint8_t *buf, const struct codegen_params *p, uintptr_t *gate3,
                        uintptr_t *gate1);

#endif
