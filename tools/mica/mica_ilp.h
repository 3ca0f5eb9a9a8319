/*
 * mica_ilp.h — ilp and ilp_one (MICA-SPEC §2): cycles of an idealised
 * out-of-order core with an in-order retiring window of W entries, unit
 * latency, only true dependences through registers and 2^K-byte memory blocks.
 * ilp runs W = 32, 64, 128, 256 side by side; ilp_one one W.
 */
#ifndef MICA_ILP_H
#define MICA_ILP_H

#include "mica_lines.h"
#include "mica_record.h"

struct mica_ilp;

/*
 * interval: S or 0 (full run). one: ilp_one's interval rules ([M]
 * ilp_instr_intervals_one): the check comes after the record entered the
 * window and a completed interval's line starts with S; ilp checks before
 * and starts with the records counted since the last line.
 */
struct mica_ilp *mica_ilp_new(const unsigned *windows, unsigned n_windows, unsigned block_bits,
                              uint64_t interval, bool one);
/* Interval lines are appended to out as they fall due (§2.4: one batch late). */
void mica_ilp_record(struct mica_ilp *s, const struct mica_rec *r, struct mica_lines *out);
/* Processes what is buffered and appends the last line: N_all c_W... */
void mica_ilp_finish(struct mica_ilp *s, struct mica_lines *out);
void mica_ilp_free(struct mica_ilp *s);

#endif
