/*
 * gen_pfm — walk one libpfm4 core PMU's event tables and turn every event/umask
 * combination into a nanoBench entry (or a counted reason why not).
 *
 * The only unit of the config generator that includes <perfmon/pfmlib.h>.
 */
#ifndef GEN_PFM_H
#define GEN_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gen_evtsel.h"

enum gen_status {
    GEN_KEEP,          /* written to the _all file */
    GEN_ALIAS,         /* same programming as a kept entry (alias_of) */
    GEN_SKIP_ENCODE,   /* libpfm4 could not encode it */
    GEN_SKIP_FIXED,    /* fixed-counter-only pseudo event */
    GEN_SKIP_BITS,     /* select bits nanoBench has no modifier for */
    GEN_SKIP_EXTRA,    /* needs an extra register nanoBench cannot program */
    GEN_SKIP_EXCLUDED, /* dropped by the family table (proxy PMU, not on the target) */
    GEN_STATUS_COUNT
};

struct gen_entry {
    char name[GEN_NAME_MAX];
    struct gen_evtsel sel;
    enum gen_status status;
    int rank;     /* lower wins when two entries program the same thing */
    int alias_of; /* GEN_ALIAS: index of the kept entry */
    bool needs_merge; /* AMD: libpfm4 says exact counts need the MergeEvent pairing */
    bool offcore;     /* programs MSR_OFFCORE_RSP_x (event tables: the _all_offcore file) */
    char why[160];
    char note[256];   /* written as a comment line before the entry, when set */
};

struct gen_pmu {
    int id; /* pfm_pmu_t */
    char name[64];
    char desc[128];
    enum gen_vendor vendor;
    int num_cntrs;
    int num_fixed_cntrs;
    int nevents;
};

/* pfm_initialize() with LIBPFM_ENCODE_INACTIVE=1 so absent PMUs encode too. */
int gen_pfm_init(void);

/* libpfm4 release, from the loaded library's file name (e.g. "4.13.0"). */
const char *gen_pfm_version(void);

/* Look a PMU up by its libpfm4 name; 0 when found. */
int gen_pfm_find(const char *name, struct gen_pmu *pmu);

/* Print "name  type  events  description" for every PMU this libpfm4 knows. */
void gen_pfm_list(FILE *out);

/* Is this a core PMU of an x86 vendor we can generate for? (error text in why) */
int gen_pfm_check_core(const struct gen_pmu *pmu, const char **why);

/*
 * Encode every event (and every umask of it) of pmu, in libpfm4's listing order.
 * *entries is malloc'ed; statuses are GEN_KEEP or GEN_SKIP_* (no aliases yet).
 */
int gen_pfm_collect(const struct gen_pmu *pmu, struct gen_entry **entries, size_t *count);

/* Mark entries that program the same thing as a better-ranked one as GEN_ALIAS. */
void gen_dedupe(struct gen_entry *entries, size_t count);

const char *gen_status_text(enum gen_status s);

#endif /* GEN_PFM_H */
