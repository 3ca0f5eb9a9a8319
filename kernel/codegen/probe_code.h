/*
 * probe_code.h — the PMU probe as one generated procedure (ring 0): with
 * interrupts off it zeroes the counter, programs it, enables it globally,
 * runs a loop of `iterations` + 1 rounds of `dec ecx; jnz`, disables it and
 * returns the count. The whole sequence runs in one call on the PMU's
 * processor, so no firmware code, timer interrupt or AP idle loop runs while
 * the counter counts: the count of two procedures that differ only in the
 * loop length differs by exactly 2 x the extra rounds.
 */
#ifndef PROBE_CODE_H
#define PROBE_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

#define PROBE_CODE_MAX 256u

typedef uint64_t (*probe_fn)(void);

/* Writes the procedure into buf (PROBE_CODE_MAX bytes, executable); NULL if it does not fit. */
probe_fn probe_code_emit(uint8_t *buf, size_t cap, const struct pmu_probe_sequence *s, uint32_t iterations);

#endif
