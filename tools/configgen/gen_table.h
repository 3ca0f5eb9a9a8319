/*
 * gen_table — read one of our committed event tables (configs/tables/<NAME>.txt),
 * reduced from a vendor event list by tools/configgen/perfmon_table.py, into generator entries.
 *
 * Table file: '#' comment lines (the first ones name the source and its version),
 * "vendor intel|amd", "gp N" (general-purpose counters the source knows), then one
 * event per line:  CODE NAME COUNTERS [FLAG...]
 *   CODE      nanoBench encoding without .CTR (gen_evtsel.h grammar)
 *   COUNTERS  allowed counters "0-3" / "0,1" / "2", "any", or "fixed:N" (fixed only)
 *   FLAG      offcore | merge | skip:WHY | tma:EVENT:MODS (a variant Intel's TMA
 *             formulas use; written with a comment saying so)
 */
#ifndef GEN_TABLE_H
#define GEN_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "gen_pfm.h"

struct gen_table {
    char path[512];
    char source[800];  /* the "# source:" line, without "# source: " */
    enum gen_vendor vendor;
    int gp;            /* general-purpose counters */
    struct gen_entry *e; /* in table order; KEEP, SKIP_FIXED or SKIP_BITS */
    uint32_t *allowed; /* per entry: the table's counter set (0: any) */
    size_t n;
};

/* Load path; 0, or -1 with a "path:line: why" message on stderr. */
int gen_table_load(const char *path, struct gen_table *t);
void gen_table_free(struct gen_table *t);

/* Index of the entry named name, or -1. */
long gen_table_find(const struct gen_table *t, const char *name);

#endif /* GEN_TABLE_H */
