/*
 * gen_common — which events go into the short cfg_<NAME>_common.txt files.
 *
 * A curated subset chosen by event-name patterns (fnmatch), one list per vendor:
 * cycles, instructions, uops issued/executed/retired, per-port (Intel) or FP/INT
 * (AMD) dispatch, L1D/L2/L3 hits and misses, branches and mispredictions. Patterns
 * that name no event of a PMU are simply unused, so one list serves every family
 * of a vendor; the output keeps libpfm4's order, not the pattern order.
 */
#ifndef GEN_COMMON_H
#define GEN_COMMON_H

#include <stdbool.h>

#include "gen_evtsel.h"

/* Smallest and largest size we aim for; the generator warns outside it. */
#define GEN_COMMON_MIN 20
#define GEN_COMMON_MAX 40

/* Does name belong in the common file of a PMU of this vendor? */
bool gen_common_wanted(enum gen_vendor vendor, const char *name);

#endif /* GEN_COMMON_H */
