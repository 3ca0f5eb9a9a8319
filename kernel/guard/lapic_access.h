/*
 * lapic_access.h — one local APIC register read or written through the seam
 * (the platform picks xAPIC MMIO or x2APIC MSRs, SDM vol. 3A 11.4.1 and
 * 11.12.1). For the callers that have already checked the APIC is there: a
 * read that fails gives 0.
 */
#ifndef LAPIC_ACCESS_H
#define LAPIC_ACCESS_H

#include <stdint.h>

#include "nb_platform.h"

static inline uint32_t lapic_get(const struct nb_platform *p, uint32_t reg)
{
    uint32_t v = 0;
    p->lapic_read(p->ctx, reg, &v);
    return v;
}

static inline void lapic_put(const struct nb_platform *p, uint32_t reg, uint32_t v)
{
    p->lapic_write(p->ctx, reg, v);
}

#endif
