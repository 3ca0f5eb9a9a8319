/*
 * cpu_platform.h — the seam, seen from another logical processor (-cpu N).
 *
 * Counters, MSRs and CPUID answers are per processor, so a benchmark that
 * runs on processor N must program and probe the PMU there. A cpu_platform
 * is a copy of the boot platform whose CPUID, MSR and TSC calls run on N
 * (through run_on_cpu); everything that needs the firmware (files, memory,
 * text) stays on the boot processor, where UEFI services may be called.
 */
#ifndef CPU_PLATFORM_H
#define CPU_PLATFORM_H

#include "nb_platform.h"

struct cpu_platform {
    struct nb_platform p; /* hand this to the engine; p.ctx points to this struct */
    const struct nb_platform *base;
    unsigned cpu;
    /* N's APIC ID once asked (it does not change): later apic_id calls cost no call to N. */
    uint32_t apic_id;
    bool apic_id_known;
};

void cpu_platform_init(struct cpu_platform *cp, const struct nb_platform *base, unsigned cpu);

/* Processor helpers that also work on a platform without MP support (one processor). */
unsigned nb_cpu_count(const struct nb_platform *p);
unsigned nb_current_cpu(const struct nb_platform *p);
int nb_run_on_cpu(const struct nb_platform *p, unsigned cpu, void (*fn)(void *arg), void *arg);
/* p->run_locally, or fn(p, arg) where p is the processor's own platform. */
int nb_run_locally(const struct nb_platform *p, void (*fn)(const struct nb_platform *local, void *arg),
                   void *arg);
/* fn(local, arg) on processor cpu, in one nb_run_on_cpu call of p. */
int nb_run_on_cpu_with(const struct nb_platform *p, unsigned cpu, const struct nb_platform *local,
                       void (*fn)(const struct nb_platform *local, void *arg), void *arg);

#endif
