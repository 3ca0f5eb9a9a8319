/*
 * mica_itypes.h — itypes (MICA-SPEC §3): the instruction mix in groups of
 * XED categories, XED iclasses and the specials mem_read/mem_write, plus the
 * implicit "other" group. Groups come from MICA's spec-file grammar: one
 * identifier per line,
 *
 *     <group>, <index in group>, CATEGORY|OPCODE|SPECIAL, <name>
 *
 * group numbers start at 0 and never go down or skip one (MICA's parser
 * needs them consecutive and sorted, Q11). Blank lines and lines starting
 * with '#' are skipped (our addition); a trailing '\r' is not part of the name
 * (MICA keeps it, Q11). The built-in default is the same grammar.
 */
#ifndef MICA_ITYPES_H
#define MICA_ITYPES_H

#include <stddef.h>

#include "mica_record.h"

#define MICA_ITYPES_MAX_GROUPS 64

struct mica_itypes_spec;

/* 0, or -1 with "file:line: why" in err. */
int mica_itypes_spec_parse(const char *text, size_t len, const char *file,
                           struct mica_itypes_spec **out, char *err, size_t errlen);
/* MICA's 11 default groups ([M] init_itypes_default_groups). */
const struct mica_itypes_spec *mica_itypes_default_spec(void);
/* Groups, not counting "other". */
size_t mica_itypes_spec_groups(const struct mica_itypes_spec *spec);
/* CSV field name of group g (g == groups: "other"). Default names
 * mem_read ... nop; a custom spec's groups are g0, g1, ... */
const char *mica_itypes_group_name(const struct mica_itypes_spec *spec, size_t g);
void mica_itypes_spec_free(struct mica_itypes_spec *spec);

struct mica_itypes;

struct mica_itypes *mica_itypes_new(const struct mica_itypes_spec *spec);
void mica_itypes_record(struct mica_itypes *s, const struct mica_rec *r);
/* first, g0 ... g(n-1), other: groups + 2 numbers. */
void mica_itypes_line(const struct mica_itypes *s, uint64_t first, uint64_t *v);
void mica_itypes_reset(struct mica_itypes *s);
/* Categories counted in "other" (first-seen order) into names[]; returns how many. */
size_t mica_itypes_other(const struct mica_itypes *s, const char **names, size_t max);
void mica_itypes_free(struct mica_itypes *s);

#endif
