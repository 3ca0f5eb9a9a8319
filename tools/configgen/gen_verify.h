/*
 * gen_verify — the self-check behind `gen_configs verify FILE...`.
 *
 * For a config file: every non-comment line matches the nanoBench grammar (see
 * gen_evtsel.h), the event-code width matches the vendor named in the "# vendor:"
 * header line (or, without one, is the same on every line), no name appears twice
 * and no two lines program the same thing. For a cpu_map.txt: every line is
 * "VENDOR FAMILY MODEL PREFIX [PREFIX]", no CPU appears twice, and the configs it
 * names exist next to it with the right vendor.
 */
#ifndef GEN_VERIFY_H
#define GEN_VERIFY_H

#include <stdio.h>

/* Returns the number of problems found (each reported on err as FILE:LINE: text). */
int gen_verify_config(const char *path, FILE *err);
int gen_verify_cpu_map(const char *path, FILE *err);

/* Picks the check by file name (cpu_map*.txt or a config). */
int gen_verify_file(const char *path, FILE *err);

#endif /* GEN_VERIFY_H */
