/*
 * mica_analyze.h — a trace file through the decoder into one or more MICA
 * runs in a single pass (nb_mica runs two with -mica_interval: the whole
 * trace and the intervals).
 */
#ifndef MICA_ANALYZE_H
#define MICA_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "mica_run.h"
#include "mica_trace.h"

/*
 * Feeds every record of the trace in buf to runs[0..n_runs-1] and finishes
 * them. More than max_instructions records (0: no limit) is an error.
 * 0, or -1 with a message naming the file (and the byte offset or address).
 */
int mica_analyze(const char *name, const uint8_t *buf, size_t size, struct mica_run **runs,
                 size_t n_runs, uint64_t max_instructions, struct mica_trace_header *header,
                 char *err, size_t errlen);

#endif
