/*
 * gen_write — write the generated config files: a comment header (source PMU, libpfm4
 * release, regeneration command, what was left out and why, "# vendor:" line), the
 * entries in libpfm4's order, and for the _all file the names not written.
 */
#ifndef GEN_WRITE_H
#define GEN_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gen_pfm.h"

struct gen_output {
    const char *prefix;        /* cfg_<prefix>_{all,common}.txt */
    const struct gen_pmu *pmu; /* where the events came from */
    const char *note;          /* extra header text (proxy PMU), or NULL */
};

/*
 * Write dir/cfg_<prefix>_all.txt (all) or _common.txt (the gen_common subset) from
 * entries already deduplicated, through a temporary file. *written gets the count.
 */
int gen_write_config(const char *dir, const struct gen_output *out, bool all,
                     const struct gen_entry *entries, size_t count, size_t *written);

/* Print text as comment lines, one "# " line per '\n'-separated line. */
void gen_write_comment(FILE *f, const char *text);

#endif /* GEN_WRITE_H */
