/*
 * bench_debug.h — -debug around one benchmark: prepares the stop
 * (bench_run.h struct bench_debug, debug_stop.h), and afterwards prints the
 * dump (debug_dump.h) on serial, prefixed "debug: ", and appends it to
 * nanobench/results/run-NNNN-debug.txt under the benchmark's [name].
 */
#ifndef BENCH_DEBUG_H
#define BENCH_DEBUG_H

#include <stdbool.h>

#include "bench_options.h"
#include "bench_run.h"
#include "nb_report.h"

/*
 * Arms -debug for the benchmark in `c` (c->debug). False, with an error
 * line naming the option, when it cannot (a -debug_at measurement that
 * does not exist, no ring 0, no memory).
 */
bool bench_debug_begin(struct bench_debug *d, struct bench_context *c, const struct bench_options *o,
                       struct report *r, unsigned line);
/*
 * After the benchmark: the dump, or an error when the chosen execution
 * never ran (fewer counter groups) and nothing else went wrong
 * (`errors_before`: the report's error count before the benchmark).
 */
void bench_debug_end(struct bench_debug *d, struct bench_context *c, struct report *r, const char *name,
                     unsigned errors_before);

/* "nanobench/results/run-NNNN-debug.txt" for the report's run. */
void bench_debug_path(const struct report *r, char *out, size_t cap);

#endif
