/*
 * mica_run.h — one pass of the selected MICA analyses over a stream of
 * records: the two instruction counters (MICA-SPEC §1.2), the common
 * interval check (§1.6, §10), and the integer lines each analysis prints.
 *
 *   struct mica_run *r = mica_run_new(&opts);
 *   for each record: mica_run_record(r, &rec);
 *   mica_run_finish(r);
 *   mica_run_lines(r, MICA_ILP, &n) -> every line of ilp_*_int_pin.out
 */
#ifndef MICA_RUN_H
#define MICA_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "mica_record.h"

enum mica_analysis {
    MICA_ITYPES,
    MICA_ILP,
    MICA_ILP_ONE,
    MICA_REG,
    MICA_STRIDE,
    MICA_MEMFOOTPRINT,
    MICA_MEMSTACKDIST,
    MICA_FULLMEMSTACKDIST,
    MICA_PPM,
    MICA_N_ANALYSES
};

struct mica_itypes_spec;

struct mica_options {
    unsigned mask;          /* bit (1u << enum mica_analysis) per selected analysis */
    /* MICA's mode `all` (§10): memstackdist and fullmemstackdist see reads
     * only. A list of analyses runs each as its single mode (reads and writes). */
    bool all_mode;
    uint64_t interval;      /* S; 0 = full run */
    unsigned ilp_size;      /* W of ilp_one */
    unsigned block_bits;    /* 6 */
    unsigned page_bits;     /* 12 */
    const struct mica_itypes_spec *itypes; /* NULL: the built-in default groups */
    bool nop_mem;           /* a NOP's memory operand is a read (default true, as Pin) */
};

/* Defaults: no analysis, full run, block 6, page 12, ilp_size 0, nop_mem on. */
void mica_options_default(struct mica_options *o);
/* "all" or a comma list; 0, or -1 with a message naming the bad word. */
int mica_options_set_list(struct mica_options *o, const char *list, char *err, size_t errlen);
/* Cross-checks (interval multiple of 200 for ilp, ilp_size for ilp_one, sizes). */
int mica_options_check(const struct mica_options *o, char *err, size_t errlen);
const char *mica_analysis_name(enum mica_analysis a);

/* One printed line of integers. */
struct mica_line {
    size_t n;
    uint64_t *v;
};

struct mica_run;

struct mica_run *mica_run_new(const struct mica_options *o);
void mica_run_record(struct mica_run *r, const struct mica_rec *rec);
/* Writes the final (full or partial-interval) line of every analysis. */
void mica_run_finish(struct mica_run *r);
/* Every line of that analysis in file order (interval lines, then the last one). */
const struct mica_line *mica_run_lines(const struct mica_run *r, enum mica_analysis a, size_t *n);
uint64_t mica_run_n_all(const struct mica_run *r);
uint64_t mica_run_n_hpc(const struct mica_run *r);
const struct mica_options *mica_run_options(const struct mica_run *r);
/* Categories that fell into itypes' "other" group, in first-seen order. */
size_t mica_run_other_categories(const struct mica_run *r, const char **names, size_t max);
void mica_run_free(struct mica_run *r);

/*
 * Parallel analyses: parts of one run on different threads. A part is a run
 * with the same options and a subset of the analyses (mask); after the last
 * record and mica_run_finish on every part, mica_run_adopt moves the
 * analyses of part into r (which must not have seen any record), so r reads
 * as if it had run them itself.
 */
struct mica_run *mica_run_new_part(const struct mica_options *o, unsigned mask);
void mica_run_adopt(struct mica_run *r, struct mica_run *part);

#endif
