/*
 * host_calibrate.h — -calibrate on the host: a cache report to size the
 * chase by, and the chase run with the host's real TSC.
 */
#ifndef HOST_CALIBRATE_H
#define HOST_CALIBRATE_H

#include <stdint.h>

#include "bench_calibrate.h"
#include "host_platform.h"

/* Appends a cache level of 64-byte lines to the report. */
void host_add_cache(struct cpu_cache_info *ci, const char *name, unsigned level, uint64_t size);

/*
 * bench_calibrate (no counters) with the host's real TSC: a loaded machine
 * (a parallel build, ASan) can make a level's main run no slower than its
 * base run, which the image reports as "measured no time". Up to three
 * attempts, each from a clean output (h's text and *lat), until every level
 * from LAT_L1 to `last` has a latency; the caller checks the values.
 */
void host_calibrate_timed(struct host_platform *h, struct bench_context *c, const struct cpu_cache_info *ci,
                          uint64_t dram_min, struct machine_latencies *lat, struct report *r, int last);

#endif
