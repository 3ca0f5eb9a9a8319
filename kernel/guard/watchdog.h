/*
 * watchdog.h — bounds a benchmark that never ends (`jmp $`) without ever
 * interrupting a normal measurement.
 *
 * While a benchmark runs on its processor, the local APIC is set so that only
 * our timer can interrupt: every other LVT entry masked (lapic_quiet.h:
 * thermal, performance counter, LINT0/LINT1 with the 8259's ExtINT path and
 * NMI, error, CMCI; IA32_TSC_DEADLINE zeroed), the task priority raised to
 * 0xE0 so every vector below 0xF0 stays pending, and the APIC timer in
 * one-shot mode on vector WATCHDOG_VECTOR. The
 * generated code arms the timer with the remaining budget and enables
 * interrupts only after loading its own IDT, whose gate WATCHDOG_VECTOR ends
 * the run like an exception; its epilogue disables interrupts and stops the
 * timer. Everything is restored afterwards. A run that finishes before the
 * deadline sees no interrupt at all, so -icount results stay exact.
 * (SDM vol. 3A 11.5.4 APIC timer, 11.8.3.1 task priority.)
 */
#ifndef WATCHDOG_H
#define WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "lapic_quiet.h"
#include "nb_platform.h"

#define WATCHDOG_VECTOR 0xF0u
/* The spurious vector when the SVR names none we can use (SDM vol. 3A 11.9: 0xFF after reset). */
#define WATCHDOG_SPURIOUS_DEFAULT 0xFFu

struct watchdog {
    bool available;
    uint64_t apic_hz;      /* APIC timer ticks per second at our divider */
    uint64_t mmio_base;    /* for the generated code; 0 means x2APIC (MSRs) */
    /*
     * The spurious-interrupt vector the firmware programmed (SVR bits 7:0,
     * SDM vol. 3A 11.9): an interrupt withdrawn at delivery arrives there,
     * unaffected by the TPR, so our IDT must have an IRET gate at it.
     */
    uint8_t spurious_vector;
    /* The firmware's settings, restored by watchdog_disarm. */
    struct lapic_quiet quiet;
    uint32_t saved_divide;
};

/* Measures the APIC timer against the firmware's Stall; false without a usable local APIC. */
bool watchdog_init(struct watchdog *w, const struct nb_platform *p);
/*
 * Masks the other interrupt sources and points the timer at WATCHDOG_VECTOR
 * (stopped). p must act on the benchmark's processor, in the same procedure
 * that runs the code (lapic_quiet.h says why).
 */
void watchdog_arm(struct watchdog *w, const struct nb_platform *p);
/* Stops the timer, acknowledges a delivered watchdog interrupt, restores the firmware's settings. */
void watchdog_disarm(struct watchdog *w, const struct nb_platform *p, bool fired);
/* APIC timer ticks for `tsc_ticks` of TSC time at `tsc_hz`, capped to 32 bits. */
uint32_t watchdog_ticks(const struct watchdog *w, uint64_t tsc_ticks, uint64_t tsc_hz);

#endif
