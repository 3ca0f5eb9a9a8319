/*
 * mica_output.h — a finished MICA run as text: CSV rows
 * `benchmark,event,value` (events mica.<analysis>.<field>, .<k> per
 * interval), the report lines (`MICA itypes: ...` plus readable ratios), and
 * MICA's own output files, byte for byte as [M] writes them (MICA-SPEC §1.6).
 */
#ifndef MICA_OUTPUT_H
#define MICA_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "mica_run.h"

/* Field name of value idx of a line of analysis a ("cycles_32"). */
const char *mica_field_name(const struct mica_run *r, enum mica_analysis a, size_t idx,
                            char *buf, size_t len);
/* Rows of the whole run (full), then of every interval of phases (may be NULL). */
void mica_csv_rows(FILE *f, const char *bench, const struct mica_run *full,
                   const struct mica_run *phases);
/* One `MICA <analysis>: <integers>` line per analysis, each followed by ratios. */
void mica_report(FILE *f, const struct mica_run *full);
/* <name>_full_int_pin.out or <name>_phases_int_pin.out per analysis, and
 * itypes_other_group_categories.txt, into dir (which must exist). */
int mica_write_files(const char *dir, const struct mica_run *r, char *err, size_t errlen);

#endif
