/*
 * timer_code.h — the generated code's access to the local APIC timer, which
 * the watchdog's arming (bench_codegen.c, watchdog.h) and -debug's stop
 * handler (debug_code.h) both use: xAPIC MMIO when the register block's
 * address is known (lapic_mmio_base), the x2APIC MSRs when it is 0.
 */
#ifndef TIMER_CODE_H
#define TIMER_CODE_H

#include <stdint.h>

#include "x86_emit.h"

/* Writes ECX to the timer's initial count (clobbers RAX, RCX, RDX). */
void timer_code_set_initial(struct x86_emitter *e, uint64_t lapic_mmio_base);
/*
 * Stores the timer's current count at the address `left` (a RIP-relative
 * 64-bit store) and stops the timer by writing 0 to its initial count
 * (clobbers RAX, RCX, RDX).
 */
void timer_code_pause(struct x86_emitter *e, uint64_t lapic_mmio_base, uintptr_t left);

#endif
