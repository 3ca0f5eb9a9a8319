/*
 * gen_ppr — AMD's PPR event names for the Zen families (configs/tables/zenN_ppr_names.txt,
 * one "CODE NAME" line per event): a family's _all file starts with them, each entry of
 * the source (libpfm4 PMU, or our event table) that programs the same encoding written
 * under the PPR name, with a comment line giving the source's name as its alias:
 *
 *   # FpuPipeAssignment.Total0: AMD's PPR name (nanoBench's); libpfm4 calls it FPU_PIPE_ASSIGNMENT.TOTAL0
 *   000.01 FpuPipeAssignment.Total0
 *
 * gen_metrics.py and the host checks (gen_check.c) read that comment to resolve the
 * source's name to the PPR name. An encoding the source lacks is written under the PPR
 * name with a comment saying so; the source's other events follow under its names.
 */
#ifndef GEN_PPR_H
#define GEN_PPR_H

#include <stdbool.h>
#include <stddef.h>

#include "gen_pfm.h"

struct gen_ppr {
    const char *prefix; /* cfg_<prefix>_all.txt */
    const char *table;  /* file under configs/tables/ */
    const char *order;  /* in what order the table lists them */
    const char *origin; /* whose spelling of the PPR names: "nanoBench's", ... */
    const char *encodings; /* whose encodings the table's lines are */
};

/* The PPR table of a family, or NULL. */
const struct gen_ppr *gen_ppr_find(const char *prefix);

struct gen_ppr_counts {
    size_t table;   /* table lines: entries written under a PPR name */
    size_t aliased; /* of those, the source's entry of that encoding, under another name */
    size_t missing; /* of those, encodings the source does not list */
    size_t rest;    /* the source's entries of no table line, under the source's names */
};

/*
 * e[0..n) (deduplicated) reordered into a new array of *nout entries: the table's
 * lines first, then the rest. src names the source in the alias comment ("libpfm4",
 * "Linux"); src_full in the comment of an encoding it lacks. NULL on an error (a
 * message on stderr).
 */
struct gen_entry *gen_ppr_order(const struct gen_ppr *p, const char *tables_dir,
                                const char *src, const char *src_full, enum gen_vendor vendor,
                                const struct gen_entry *e, size_t n, size_t *nout,
                                struct gen_ppr_counts *c);

/* The _all file's header text about the PPR names, into buf. */
void gen_ppr_summary(const struct gen_ppr *p, const char *src, const struct gen_ppr_counts *c,
                     char *buf, size_t size);

/*
 * From a comment line of a generated config: the source's name the PPR name of the
 * next line stands for ("# PPR: AMD's PPR name (...); X calls it ALIAS"), into alias;
 * false when the line is not such a comment.
 */
bool gen_ppr_alias_comment(const char *line, char *alias, size_t size);

#endif /* GEN_PPR_H */
