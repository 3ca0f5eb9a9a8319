/*
 * uarch_facts.h — per-microarchitecture constants the derived metrics need
 * and the platform report prints: pipeline (issue) width and peak FLOP per
 * cycle per core. Values only where ../shared/METRICS-FACTS.md gives them
 * with a source (§2a pipeline width W, §5 peak FLOP table); everything else
 * is unknown with the reason, never a guess.
 */
#ifndef UARCH_FACTS_H
#define UARCH_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"

struct uarch_facts {
    const char *name;           /* "Skylake", or NULL when the table has no row */
    unsigned issue_width;       /* slots per cycle (TMA pipeline width); 0: unknown */
    const char *width_why;      /* why unknown (when issue_width is 0) */
    unsigned peak_dp, peak_sp;  /* FLOP per cycle per core, double / single precision; 0: unknown */
    const char *peak_why;       /* why unknown (when peak_dp is 0) */
};

/*
 * The facts for a processor (CPUID display family and model; `core_type`
 * the hybrid core type of CPUID.1AH, 0 if not hybrid). Always fills *f.
 */
void uarch_facts_for(enum cpu_vendor vendor, uint32_t family, uint32_t model, unsigned core_type,
                     struct uarch_facts *f);

#endif
