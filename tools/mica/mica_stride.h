/*
 * mica_stride.h — stride (MICA-SPEC §6): distances between consecutive
 * data accesses, per static instruction (local) and over all instructions
 * (global), measured from the last byte of the previous access.
 */
#ifndef MICA_STRIDE_H
#define MICA_STRIDE_H

#include "mica_record.h"

#define MICA_STRIDE_BOUNDS 7 /* <= 0, 8, 64, 512, 4096, 32768, 262144 */
#define MICA_STRIDE_FIELDS (2 * (1 + 2 * MICA_STRIDE_BOUNDS))

extern const uint64_t mica_stride_bounds[MICA_STRIDE_BOUNDS];

struct mica_stride;

struct mica_stride *mica_stride_new(void);
void mica_stride_record(struct mica_stride *s, const struct mica_rec *r);
/* reads, local read cum x7, global read cum x7, writes, local x7, global x7. */
void mica_stride_line(const struct mica_stride *s, uint64_t *v);
/* Interval boundary: counts only; the last addresses are kept. */
void mica_stride_reset(struct mica_stride *s);
void mica_stride_free(struct mica_stride *s);

#endif
