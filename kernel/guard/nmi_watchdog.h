/*
 * nmi_watchdog.h — a second logical processor as the hang watchdog, so that
 * benchmarks run with interrupts disabled (as nanoBench measures) and are
 * still stopped after -timeout, even `cli; jmp $`.
 *
 * The watcher is ONE long-lived procedure on an AP for the whole session:
 * the firmware notices that a non-blocking AP procedure has returned only
 * on its periodic poll (100 ms in EDK II), too slow per benchmark. It sleeps
 * in HLT with its own local APIC timer set to the benchmark's deadline
 * (spinning would add its instructions to QEMU's -icount clock, which all
 * processors share, and cost a hardware thread its sibling's resources).
 *
 * The benchmark's generated code and the watcher agree through one 32-bit
 * word, `state` = generation << 2 | phase:
 *   IDLE     the benchmark's processor is outside the generated code
 *   RUNNING  between the prologue's and the epilogue's LOCK CMPXCHG
 *   FIRED    the watcher found RUNNING at the deadline and sends an NMI
 *   EXPIRED  the watcher found IDLE at the deadline: no prologue enters again
 * Every change is a compare-and-exchange of the whole word, so a watcher
 * still acting on an earlier benchmark (an older generation) changes
 * nothing, and an epilogue that finds FIRED waits for the NMI before it
 * restores the firmware's IDT (where the NMI would enter the firmware's
 * handler). The NMI enters gate 2 of the code's IDT (bench_codegen.c), which
 * IRETs once to unblock NMIs (SDM vol. 3A 6.7.1) and ends the run as a
 * timeout, like the one-processor timer scheme (watchdog.h).
 */
#ifndef NMI_WATCHDOG_H
#define NMI_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

/* Phases in bits 1:0 of `state`. */
#define NMI_WATCH_IDLE 0u
#define NMI_WATCH_RUNNING 1u
#define NMI_WATCH_FIRED 2u
#define NMI_WATCH_EXPIRED 3u
#define NMI_WATCH_PHASE_MASK 3u

/* Commands besides a generation (1..2^30-1): nothing watched, or return. */
#define NMI_WATCH_DISARMED 0u
#define NMI_WATCH_QUIT 0xFFFFFFFFu

/*
 * The watcher's wake-up vector, for its APIC timer and the boot processor's
 * IPI: priority class 0xE, below the timer scheme's 0xF0 (unrelated: the
 * two never run on one processor at once).
 */
#define NMI_WATCH_WAKE_VECTOR 0xE1u

struct nmi_watchdog {
    const struct nb_platform *p;
    bool available;   /* there is a processor to watch from */
    bool running;     /* the watcher procedure is started on `cpu` */
    unsigned cpu;     /* the watcher's processor number */
    uint64_t apic_hz; /* APIC timer ticks per second after /128 (from watchdog_init) */
    uint64_t tsc_hz;
    uint32_t generation;
    /* Shared with the watcher and the generated code: aligned, one cache line. */
    struct {
        volatile uint32_t state;
        volatile uint32_t command;        /* a generation, DISARMED or QUIT */
        volatile uint32_t ack;            /* the last command the watcher took */
        volatile uint32_t watcher_apic_id;
        volatile uint32_t target_apic_id; /* who gets the NMI */
        volatile uint32_t nmis_sent;
        volatile uint64_t deadline;       /* TSC */
    } shared __attribute__((aligned(64)));
};

/*
 * Prepares the scheme on a platform with another processor and the calls it
 * needs (start_on_cpu, join_cpu, apic_id, send_ipi, halt_until_interrupt);
 * false means the one-processor timer scheme stays.
 */
bool nmi_watchdog_init(struct nmi_watchdog *w, const struct nb_platform *p, uint64_t apic_hz,
                       uint64_t tsc_hz);
/*
 * Arms the watcher for a benchmark on processor `bench_cpu` (APIC ID
 * `bench_apic_id`) that must end by TSC `deadline`; starts the watcher on a
 * processor other than bench_cpu first if needed. Returns the `state` word
 * the generated code must use, or NULL when no processor can watch this one
 * (then the timer scheme applies).
 */
volatile uint32_t *nmi_watchdog_begin(struct nmi_watchdog *w, unsigned bench_cpu,
                                      uint32_t bench_apic_id, uint64_t deadline);
/*
 * Before a benchmark's whole measurement runs in one call on processor
 * `bench_cpu` (cpu_measure.h), on the boot processor: the watcher started
 * on a processor other than bench_cpu (starting it is a firmware call), so
 * that nmi_watchdog_begin and nmi_watchdog_end, called there, only signal
 * it. False when no processor can watch bench_cpu (the timer scheme then).
 */
bool nmi_watchdog_prepare(struct nmi_watchdog *w, unsigned bench_cpu);
/* Disarms it after the benchmark (its processor is outside the generated code). */
void nmi_watchdog_end(struct nmi_watchdog *w);
/* Ends the watcher procedure if it runs on `cpu` (before other work is sent there). */
void nmi_watchdog_release(struct nmi_watchdog *w, unsigned cpu);
/* Ends the watcher at the end of the session. */
void nmi_watchdog_stop(struct nmi_watchdog *w);

/* The watcher procedure (run on the AP by nmi_watchdog_begin; exposed for tests). */
void nmi_watchdog_watch(void *watchdog);

#endif
