/*
 * lapic_quiet.h — no local interrupt on the benchmark's processor while it
 * measures, as nanoBench's kernel module does since 2021 (it masks the LVT
 * instead of relying on CLI alone: an interrupt held pending by IF=0 can
 * lower the retirement rate, 4 uops/cycle on Ice Lake in its note).
 *
 * lapic_quiet_enter saves and masks every local vector table entry (timer,
 * thermal sensor, performance counter, LINT0, LINT1, error, and CMCI where
 * the APIC has it), disarms IA32_TSC_DEADLINE where the timer has
 * TSC-deadline mode, and sets the task priority; lapic_quiet_leave puts
 * everything back, the deadline after the timer entry (changing the timer
 * mode disarms the deadline, SDM vol. 3A 11.5.4.1). The APIC-timer watchdog
 * (watchdog.h) then takes the masked timer entry for its own vector.
 *
 * Both run on the benchmark's processor inside the one procedure that also
 * generates and runs the measurement's stages (bench_run.c): a firmware that wakes that processor with
 * INIT-SIPI-SIPI for every call (EDK II's MpInitLib in HLT mode) resets its
 * local APIC between calls (SDM vol. 3A 11.4.7.3), so nothing set in an
 * earlier call would still hold.
 */
#ifndef LAPIC_QUIET_H
#define LAPIC_QUIET_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

/* The task priority to keep: lapic_quiet_enter leaves the TPR as it is. */
#define LAPIC_QUIET_KEEP_TPR 0xFFFFFFFFu

struct lapic_quiet {
    bool active;          /* entered, not yet left */
    bool deadline_mode;   /* CPUID.01H:ECX[24]: IA32_TSC_DEADLINE exists */
    uint32_t max_lvt;     /* version register bits 23:16 */
    uint32_t tpr;
    uint32_t timer, thermal, perfmon, lint0, lint1, error, cmci;
    uint32_t timer_initial, timer_current;
    uint64_t tsc_deadline; /* as read before it was zeroed */
};

/*
 * Saves and masks the LVT, zeroes IA32_TSC_DEADLINE, sets the TPR to `tpr`
 * (or keeps it: LAPIC_QUIET_KEEP_TPR). p must act on the current processor.
 * False (and nothing changed) without an enabled local APIC.
 */
bool lapic_quiet_enter(struct lapic_quiet *q, const struct nb_platform *p, uint32_t tpr);
/* Restores what lapic_quiet_enter saved; nothing when it was not entered. */
void lapic_quiet_leave(struct lapic_quiet *q, const struct nb_platform *p);

#endif
