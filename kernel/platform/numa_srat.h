/*
 * numa_srat.h — which memory is local to which processor, from the ACPI
 * System Resource Affinity Table (ACPI 6.5 5.2.16).
 *
 * On a multi-socket server the firmware hands out the highest free range for
 * large allocations, i.e. the last socket's memory: a benchmark's memory areas
 * (and the DRAM calibration) would then measure a remote node. The SRAT maps
 * each processor's (x2)APIC ID to a proximity domain (Processor Local APIC/SAPIC
 * Affinity, type 0; Processor Local x2APIC Affinity, type 2) and each memory range
 * to one (Memory Affinity, type 1); entries without their Enabled flag are left
 * out, and so are hot-pluggable and non-volatile ranges for allocation.
 */
#ifndef NUMA_SRAT_H
#define NUMA_SRAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUMA_MAX_CPUS 1024
#define NUMA_MAX_RANGES 64

struct numa_map {
    unsigned n_cpus;
    struct {
        uint32_t apic_id, domain;
    } cpu[NUMA_MAX_CPUS];
    unsigned n_ranges;
    struct {
        uint64_t base, length;
        uint32_t domain;
        bool hotplug, nonvolatile;
    } range[NUMA_MAX_RANGES];
    unsigned n_domains; /* distinct domains among processors and memory */
};

/* Parses an SRAT (header included); false with the reason when it is not one. */
bool numa_parse_srat(const void *table, size_t len, struct numa_map *m, char *why, size_t cap);

/* The proximity domain of the processor with this (x2)APIC ID; false when the SRAT does not list it. */
bool numa_domain_of(const struct numa_map *m, uint32_t apic_id, uint32_t *domain);

/* Bytes of allocatable memory (enabled, not hot-pluggable, not non-volatile) in `domain`. */
uint64_t numa_domain_memory(const struct numa_map *m, uint32_t domain);

#endif
