/*
 * mica_ppm.h — ppm (MICA-SPEC §4): branch predictability of conditional
 * branches under PPM-like predictors GAg, PAg, GAs, PAs with history
 * lengths 12, 8, 4 (MICA's order, quirk Q1), plus taken and transition counts.
 */
#ifndef MICA_PPM_H
#define MICA_PPM_H

#include "mica_record.h"

#define MICA_PPM_HISTORIES 3
#define MICA_PPM_FIELDS (1 + 4 * MICA_PPM_HISTORIES + 3)

extern const unsigned mica_ppm_history[MICA_PPM_HISTORIES]; /* 12, 8, 4 */

struct mica_ppm;

struct mica_ppm *mica_ppm_new(void);
void mica_ppm_record(struct mica_ppm *s, const struct mica_rec *r);
/* first, (GAg PAg GAs PAs) x {12, 8, 4}, branches, transitions, taken */
void mica_ppm_line(const struct mica_ppm *s, uint64_t first, uint64_t *v);
/* Interval boundary: mispredictions and per-branch counts; tables and histories stay. */
void mica_ppm_reset(struct mica_ppm *s);
void mica_ppm_free(struct mica_ppm *s);

#endif
