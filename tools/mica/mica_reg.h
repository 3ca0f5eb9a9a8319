/*
 * mica_reg.h — reg (MICA-SPEC §5): register operands per instruction,
 * degree of use of register values, and register dependence distances.
 */
#ifndef MICA_REG_H
#define MICA_REG_H

#include "mica_record.h"

#define MICA_REG_FIELDS 12

struct mica_reg;

struct mica_reg *mica_reg_new(void);
/* n_all: the total record count including this record (MICA's timestamp). */
void mica_reg_record(struct mica_reg *s, const struct mica_rec *r, uint64_t n_all);
/* first, operands, values, uses, reads, cum(1) ... cum(64): MICA_REG_FIELDS numbers. */
void mica_reg_line(const struct mica_reg *s, uint64_t first, uint64_t *v);
/* Interval boundary: histograms only; the per-register state persists. */
void mica_reg_reset(struct mica_reg *s);
void mica_reg_free(struct mica_reg *s);

#endif
