/*
 * cpu_topology.h — which logical processors share a core (SMT siblings).
 *
 * A benchmark on one hardware thread shares its core's execution units,
 * caches and TLBs with the sibling thread, and the core's clock. The image
 * reads each logical processor's x2APIC ID and the shift widths of CPUID leaf
 * 1FH (V2 Extended Topology, preferred when it exists) or 0BH (Extended
 * Topology) on that processor (SDM vol. 2A CPUID, vol. 3A 10.9 "Identifying
 * Logical Processors"; AMD APM vol. 3 CPUID Fn0000_000B): thread = x2APIC ID
 * below the SMT shift, core = the bits from there to the package shift,
 * package = the rest. The fingerprint lists the cores with their processors
 * (firmware numbers), and -cpu N says when N is the boot processor's sibling.
 */
#ifndef CPU_TOPOLOGY_H
#define CPU_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

#define TOPO_MAX_CPUS 512

/* CPUID leaf 0BH/1FH level types (ECX[15:8]). */
#define TOPO_LEVEL_SMT 1u
#define TOPO_LEVEL_CORE 2u

struct topo_cpu {
    bool known;           /* leaf 0BH/1FH answered on this processor */
    uint32_t x2apic_id;   /* EDX of the leaf */
    unsigned leaf;        /* 0x1F or 0xB */
    unsigned smt_shift;   /* x2APIC ID bits of the thread within a core */
    unsigned pkg_shift;   /* x2APIC ID bits below the package */
    uint32_t package, core, thread;
};

/* Reads the topology leaf on the processor `p` runs on (its own CPUID). */
void topo_read(const struct nb_platform *p, struct topo_cpu *out);

struct topo {
    unsigned n;             /* logical processors surveyed (firmware numbers 0..n-1) */
    unsigned boot;          /* the boot processor's number */
    unsigned threads_max;   /* most processors found on one core */
    struct topo_cpu cpu[TOPO_MAX_CPUS];
};

/* Reads every logical processor (one call on each, through run_on_cpu). */
void topo_survey(const struct nb_platform *p, struct topo *t);

/*
 * The fingerprint lines: a summary, then the cores with their processors, at
 * most 8 cores a line. Calls emit(arg, line) per line; nothing for one processor.
 */
void topo_describe(const struct topo *t, void (*emit)(void *arg, const char *line), void *arg);

/* True when processor `cpu` shares a core with the boot processor (not itself). */
bool topo_boot_sibling(const struct topo *t, unsigned cpu);

#endif
