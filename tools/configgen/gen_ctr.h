/*
 * gen_ctr — the counter restrictions of one family, ctr_<NAME>.txt, derived from
 * the same entries its cfg_<NAME>_*.txt files come from (an event table of
 * configs/tables/, or libpfm4 with the family's constraints).
 *
 * The image applies the file to every event it parses, whatever config the event
 * comes from (nanoBench's own cfg files and users' files have no .CTR=), so an
 * event the vendor limits to some counters is never scheduled on the others.
 *
 * File (pmu/pmu_ctr_rules.h reads it): '#' comment lines, then one rule a line,
 *     EVENT.UMASK SET     the event with that unit mask may use the counters of SET
 *     EVENT SET           the same for every unit mask no EVENT.UMASK line names
 * in hex as the configs spell them (2 digits on Intel, 3 on AMD), SET as .CTR=
 * spells it (0-3, 0,1, 2). Keyed like Linux's INTEL_UEVENT_CONSTRAINT (event and
 * unit mask; counter mask, edge and invert do not matter): one event and unit mask
 * listed with different sets gets their intersection. An EVENT line is written
 * when every listed unit mask of that event is restricted (the intersection of
 * their sets): a unit mask the vendor does not list then stays on counters all the
 * listed ones can use. Events not named may use every counter.
 */
#ifndef GEN_CTR_H
#define GEN_CTR_H

#include <stddef.h>

#include "gen_pfm.h"

/* Write dir/ctr_<prefix>.txt from e[0..n) (gp counters, source named in the header). */
int gen_ctr_write(const char *dir, const char *prefix, enum gen_vendor vendor, int gp,
                  const struct gen_entry *e, size_t n, const char *source);

#endif /* GEN_CTR_H */
