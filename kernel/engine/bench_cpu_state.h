/*
 * bench_cpu_state.h — what the generated code needs of its processor,
 * checked in the procedure that runs it (bench_run.c), not trusted from an
 * earlier call: CR4.OSXSAVE and XCR0 for its XSAVE/XRSTOR (xsave_state.h),
 * and AMD's DE_CFG[1] for a serialising LFENCE (lfence_serialise.h).
 *
 * A firmware that wakes an AP with INIT-SIPI-SIPI for every call (EDK II's
 * MpInitLib in HLT mode) resets it and then loads the control registers it
 * saved itself, which need not be the ones the session set on that AP. What
 * is missing is set for the measurement and put back after it, so the firmware
 * finds its own values again.
 */
#ifndef BENCH_CPU_STATE_H
#define BENCH_CPU_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

struct bench_cpu_state {
    bool cr4_changed, xcr0_changed, de_cfg_changed;
    uint64_t cr4, xcr0, de_cfg; /* as found */
};

/*
 * Makes CR4.OSXSAVE set and XCR0 equal `xcr0` (when not 0) and DE_CFG[1]
 * set (when `de_cfg_lfence`) on the processor `local` acts on.
 */
void bench_cpu_state_enter(struct bench_cpu_state *s, const struct nb_platform *local, uint64_t xcr0,
                           bool de_cfg_lfence);
/* Puts back what enter changed (XCR0 while CR4.OSXSAVE is still set, then CR4, then DE_CFG). */
void bench_cpu_state_leave(struct bench_cpu_state *s, const struct nb_platform *local);

#endif
