/*
 * mica_memfootprint.h — memfootprint (MICA-SPEC §7): distinct data and
 * instruction blocks (2^block_bits B) and pages (2^page_bits B) touched.
 */
#ifndef MICA_MEMFOOTPRINT_H
#define MICA_MEMFOOTPRINT_H

#include "mica_record.h"

#define MICA_MEMFOOTPRINT_FIELDS 4

struct mica_memfootprint;

struct mica_memfootprint *mica_memfootprint_new(unsigned block_bits, unsigned page_bits);
void mica_memfootprint_record(struct mica_memfootprint *s, const struct mica_rec *r);
/* data_blocks data_pages instr_blocks instr_pages */
void mica_memfootprint_line(const struct mica_memfootprint *s, uint64_t *v);
/* Interval boundary: all four sets start empty (footprint per interval). */
void mica_memfootprint_reset(struct mica_memfootprint *s);
void mica_memfootprint_free(struct mica_memfootprint *s);

#endif
