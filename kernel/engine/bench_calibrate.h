/*
 * bench_calibrate.h — -calibrate: measures load-to-use latency once per
 * boot and core kind by pointer chasing (the method of configs/latency.suite and
 * tools/gen_latency_suite.sh) at footprints taken from the cache report:
 * L1 (half the L1d), L2 (half the L2), L3 (half the L3) and DRAM (8 x L3,
 * at least 256 MiB, at most 1 GiB), and a TLB walk: one node on each of
 * CALIBRATE_WALK_PAGES 4 KiB pages of a window (kernel/engine/tlb_window.h) whose
 * pages alias the few frames that hold the L2 footprint, so every load
 * misses the TLBs and hits the L2 (N4 = walk - L2). Each footprint's R14 area is linked
 * into one random cycle of cache-line nodes (Sattolo's algorithm) after the
 * engine zeroes it, and `mov r14, [r14]` is measured like a benchmark: in
 * core cycles where a PMU counts them (Intel fixed counter 1, AMD APERF),
 * in TSC ticks otherwise. The values go into a struct machine_latencies the
 * caller keeps for the metrics, one per core kind (pmu/core_kind.h: a P-core's
 * latencies are not an E-core's); the metrics get them as data
 * (counter_env.latencies), so bench_counters never calls back here.
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
/* More 4 KiB pages than any STLB holds (Skylake 1536, Golden Cove 2048, Zen 4 3072 entries). */
#define CALIBRATE_WALK_PAGES 8192u

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
 * The walk level's node spacing: `data_bytes` (the L2 footprint) over
 * `pages` pages, rounded down to a power of two of at most `line` bytes;
 * 0 when that is under 8 bytes (a pointer).
 */
uint64_t calibrate_walk_slot(uint64_t data_bytes, uint64_t pages, uint64_t line);

/*
 * Links one node on each of `pages` window pages into one random cycle
 * (Sattolo). Window page v maps frame v mod n, n = pages * slot / 4 KiB
 * frames at `frames` (tlb_window_map); its node sits at offset
 * (v / n mod 4096 / slot) * slot, so no two nodes share a byte. Written
 * through `frames` (identity-mapped), pointing at window addresses.
 */
void calibrate_build_walk_chain(uint8_t *frames, uint64_t pages, uint64_t slot, uint64_t window);

/*
 * Runs the calibration on the benchmark processor (bench->cpu, through
 * bench->cpu_p when set: `counters` and `caches` must be that processor's),
 * prints "calibration: L1 ..., L2 ..., L3 ..., DRAM ..., TLB walk ..." (on a
 * hybrid part followed by the processor and its core kind), the footprints,
 * the penalties N1..N4 and the DRAM latency in ns, and writes the values and
 * the core kind to *out. `counters` may be unusable (TSC ticks then).
 */
void bench_calibrate(struct bench_context *bench, struct counter_env *counters,
                     const struct cpu_cache_info *caches, uint64_t dram_min, struct machine_latencies *out,
                     struct report *r);

#endif
