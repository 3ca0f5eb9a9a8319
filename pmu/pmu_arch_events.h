/*
 * pmu_arch_events.h — the events every processor of a vendor has, used when
 * no config file matches the CPU: Intel's architectural events (SDM vol. 3B
 * 20.2.1.2, table 20-1) and AMD's core events common to families 17h-19h
 * (PPRs for family 17h/19h, "Core Performance Monitor Counters").
 */
#ifndef PMU_ARCH_EVENTS_H
#define PMU_ARCH_EVENTS_H

#include <stddef.h>

#include "machine.h"

struct pmu_desc;

/* Config text in nanoBench format for the vendor ("" for others). */
const char *pmu_arch_events(enum cpu_vendor vendor);

/*
 * The same config without the Intel architectural events CPUID.0AH:EBX marks
 * unavailable (d->arch_events_missing). Writes NUL-terminated text to out and
 * returns its length.
 */
size_t pmu_arch_events_for(const struct pmu_desc *d, char *out, size_t cap);

/* The names of the architectural events left out (space-separated); returns how many. */
unsigned pmu_arch_events_missing(const struct pmu_desc *d, char *out, size_t cap);

#endif
