/*
 * mica_stackdist.h — memstackdist and fullmemstackdist (MICA-SPEC §8, §9):
 * LRU stack distances of 2^block_bits-byte blocks. One engine serves both:
 * every reference gets a time; a Fenwick tree over times marks the latest
 * reference of each block, so the distance (distinct blocks referenced since
 * the block's last reference) is a prefix count: O(log n) per reference,
 * never a walk down the stack.
 */
#ifndef MICA_STACKDIST_H
#define MICA_STACKDIST_H

#include "mica_record.h"

#define MICA_STACKDIST_BUCKETS 19   /* [0,2) [2,4) ... [2^17,2^18) [2^18,inf) */
#define MICA_STACKDIST_FULL_MAX 2048 /* fullmemstackdist: d0 ... d2048 (>= 2048) */
#define MICA_MEMSTACKDIST_FIELDS (2 + MICA_STACKDIST_BUCKETS)
#define MICA_FULLMEMSTACKDIST_FIELDS (2 + MICA_STACKDIST_FULL_MAX + 1)

struct mica_stackdist;

/* with_writes: [M]'s single modes count writes too; mode `all` reads only (Q10). */
struct mica_stackdist *mica_stackdist_new(unsigned block_bits, bool with_writes);
void mica_stackdist_record(struct mica_stackdist *s, const struct mica_rec *r);
/* refs cold b0 ... b18 */
void mica_stackdist_line(const struct mica_stackdist *s, uint64_t *v);
/* refs cold d0 ... d2048 */
void mica_stackdist_full_line(const struct mica_stackdist *s, uint64_t *v);
/* Interval boundary: counts reset, the LRU stack is kept (cold = first in the run). */
void mica_stackdist_reset(struct mica_stackdist *s);
void mica_stackdist_free(struct mica_stackdist *s);

/* Distance of one more reference to block b, or -1 when b is new. Exposed for tests. */
int64_t mica_stackdist_reference(struct mica_stackdist *s, uint64_t block);

#endif
