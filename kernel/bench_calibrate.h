/*
 * bench_calibrate.h — -calibrate: measures load-to-use latency once per
 * boot by pointer chasing (the method of configs/latency.suite and
 * tools/gen_latency_suite.sh) at footprints taken from the cache report:
 * L1 (half the L1d), L2 (half the L2), L3 (half the L3) and DRAM (8 x L3,
 * at least 256 MiB, at most 1 GiB). Each footprint's R14 area is linked
 * into one random cycle of cache-line nodes (Sattolo's algorithm) after the
 * engine zeroes it, and `mov r14, [r14]` is measured like a benchmark: in
 * core cycles where a PMU counts them (Intel fixed counter 1, AMD APERF),
 * in TSC ticks otherwise. The values stay in a struct machine_latencies for
 * the metrics (calibration_latencies()).
 */
#ifndef BENCH_CALIBRATE_H
#define BENCH_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "bench_counters.h"
#include "bench_run.h"
#include "cpu_caches.h"
#include "machine_latencies.h"
#include "nb_report.h"

#define CALIBRATE_DRAM_MIN (256ull << 20)
#define CALIBRATE_DRAM_MAX (1ull << 30) /* -r14_size's limit */

/*
 * The footprint of each level from the cache report (0 where the level is
 * missing, with the reason in why[]). `dram_min`: the smallest DRAM
 * footprint (CALIBRATE_DRAM_MIN; tests pass less).
 */
void calibrate_sizes(const struct cpu_cache_info *ci, uint64_t dram_min, uint64_t bytes[LAT_LEVELS],
                     const char *why[LAT_LEVELS]);

/*
 * Links the `size / stride` nodes at base, base + stride, ... into one
 * random cycle (Sattolo's algorithm, xorshift64 from a fixed seed): each
 * node's first 8 bytes hold the address of the next.
 */
void calibrate_build_chain(uint8_t *base, uint64_t size, uint64_t stride);

/*
 * Runs the calibration (on the boot processor), prints
 * "calibration: L1 ... , L2 ..., L3 ..., DRAM ..." and the penalties, and
 * keeps the values. `counters` may be unusable (TSC ticks then).
 */
void bench_calibrate(struct bench_context *bench, struct counter_env *counters,
                     const struct cpu_cache_info *caches, uint64_t dram_min, struct report *r);

/* What the last bench_calibrate measured (measured == false before). */
const struct machine_latencies *calibration_latencies(void);

#endif
