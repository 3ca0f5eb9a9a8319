/*
 * mica_lines.h — the growing list of integer lines one analysis prints
 * (one per interval, then the last one), kept in memory until the run is
 * written out as MICA's files, CSV rows and the report.
 */
#ifndef MICA_LINES_H
#define MICA_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "mica_run.h"

struct mica_lines {
    struct mica_line *line;
    size_t n, cap;
};

/* Appends a copy of v[0..n-1]; exits on out of memory. */
void mica_lines_push(struct mica_lines *l, const uint64_t *v, size_t n);
void mica_lines_free(struct mica_lines *l);
void *mica_xcalloc(size_t n, size_t size);

#endif
