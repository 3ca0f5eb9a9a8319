/*
 * bench_mica.h — -mica for one benchmark on the image: trace it
 * (bench_trace), write nanobench/results/run-NNNN-<benchmark>.trace (the
 * format of lib/nb_trace_format.h) and print its serial line:
 *   trace: run-NNNN-<benchmark>.trace instructions N bytes B crc32 XXXXXXXX
 * An instruction that cannot be traced, -mica_max_instructions or a full
 * buffer stop the trace with an error line; what was traced is still written.
 */
#ifndef BENCH_MICA_H
#define BENCH_MICA_H

#include "bench_run.h"
#include "nb_report.h"

void bench_mica_run(struct report *r, struct bench_context *c, const struct bench_options *o,
              const struct bench_code *code, const char *name);

/*
 * -debug_trace: the same capture from the init code on (init, late init,
 * the copies and their loop), at most -debug_max_instructions, into
 * run-NNNN-<benchmark>-steps.trace; tools/nb_steps lists it on the host.
 */
void bench_debug_trace_run(struct report *r, struct bench_context *c, const struct bench_options *o,
                           const struct bench_code *code, const char *name);

#endif
