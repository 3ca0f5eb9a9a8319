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

/* One file of an event-table family (gen_tfam.c): everything but the entries. */
struct gen_file_spec {
    const char *prefix;  /* cfg_<prefix>_<kind>.txt */
    const char *kind;    /* "all", "all_core", "all_offcore", "common" */
    const char *source;  /* "Source: ..." text */
    const char *regen;   /* how to regenerate (one line) */
    const char *summary; /* more header text, '\n'-separated, or NULL */
    enum gen_vendor vendor;
    bool tail;           /* list the entries not written, with why, at the end */
};

/*
 * Write dir/cfg_<prefix>_<kind>.txt: header, every GEN_KEEP entry for which
 * want(entry) is true (want NULL: all), and with tail the others by name.
 */
int gen_write_entries(const char *dir, const struct gen_file_spec *s,
                      const struct gen_entry *e, size_t n,
                      bool (*want)(const struct gen_entry *), size_t *written);

/* Print text as comment lines, one "# " line per '\n'-separated line. */
void gen_write_comment(FILE *f, const char *text);

#endif /* GEN_WRITE_H */
