/*
 * nb_cpu_slots.h — a small table that gives each logical processor its own
 * slot, found by its APIC ID, for state that must not be shared between
 * processors running at once (boot/efi_cpu.c: the MSR #GP guard's IDT and
 * flag; the boot processor, a benchmark's AP and the NMI watchdog's AP may
 * all access MSRs at the same time).
 *
 * A processor claims a free slot on its first call (compare-and-exchange,
 * so two processors never get the same one) and finds it again on every
 * later call. Freestanding: only compiler atomics.
 */
#ifndef NB_CPU_SLOTS_H
#define NB_CPU_SLOTS_H

#include <stdint.h>

#define NB_CPU_SLOTS 64

struct nb_cpu_slots {
    volatile uint32_t state[NB_CPU_SLOTS]; /* 0 free, 1 being claimed, 2 holds apic_id */
    volatile uint32_t apic_id[NB_CPU_SLOTS];
};

/* The slot of the processor with this APIC ID (claimed on first use), or -1 when all are taken. */
int nb_cpu_slot(struct nb_cpu_slots *t, uint32_t apic_id);

#endif
