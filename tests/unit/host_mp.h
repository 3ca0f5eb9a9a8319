/*
 * host_mp.h — a fake multiprocessor firmware for host unit tests: the
 * seam's cpu_count, current_cpu and run_on_cpu (and apic_id) on a machine
 * of n_cpus processors that all share one host_platform.
 *
 * run_on_cpu runs the function right away, with `current` set to the
 * processor asked for, and counts the calls that went to another processor
 * (every such call is a round trip through the firmware on a real machine:
 * EDK II wakes the AP with INIT-SIPI-SIPI). A test scripts what a processor
 * has of its own through two hooks: `wake` for what the firmware does to
 * the processor it calls (an INIT, the time the round trip costs), and
 * `switched` for per-processor state it swaps in and out (local APIC, CR4,
 * CPUID answers).
 *
 * There is one fake machine, `host_mp`: the seam's calls carry the
 * host_platform as their context, not this state. host_mp_install resets it.
 */
#ifndef HOST_MP_H
#define HOST_MP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_platform.h"

#define HOST_MP_LOG 16

struct host_mp {
    unsigned n_cpus;             /* what cpu_count answers; run_on_cpu refuses the others */
    unsigned current;            /* the processor running now */
    unsigned calls;              /* run_on_cpu calls that went to another processor */
    unsigned ran_on[HOST_MP_LOG]; /* the processor of every run_on_cpu call, the first HOST_MP_LOG */
    size_t n_ran;
    uint32_t apic_id_base;       /* host_mp_apic_id answers apic_id_base + current */
    /* Optional: a call to another processor wakes `cpu`, before it runs anything. */
    void (*wake)(unsigned cpu);
    /* Optional: the running processor changes from `from` to `to`, into a call and back out of it. */
    void (*switched)(unsigned from, unsigned to);
    /* With host_mp_watch_pmu: PMU MSR accesses made on a processor other than pmu_cpu. */
    unsigned pmu_cpu, pmu_elsewhere;
    int (*next_read_msr)(void *ctx, uint32_t msr, uint64_t *value);
    int (*next_write_msr)(void *ctx, uint32_t msr, uint64_t value);
};

extern struct host_mp host_mp;

/* Resets host_mp to n_cpus processors, processor 0 running, no hooks; sets h's three MP calls. */
void host_mp_install(struct host_platform *h, unsigned n_cpus);

/* The local APIC ID of the processor asking: host_mp.apic_id_base + host_mp.current. */
uint32_t host_mp_apic_id(void *ctx);

/*
 * Wraps h's read_msr and write_msr (as they are now) to count in
 * host_mp.pmu_elsewhere every access to a counter, event select or global
 * counter control MSR made while a processor other than `cpu` runs.
 */
void host_mp_watch_pmu(struct host_platform *h, unsigned cpu);

#endif
