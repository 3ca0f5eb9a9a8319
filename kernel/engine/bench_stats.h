/*
 * bench_stats.h — aggregation of repeated measurements and the final
 * nanoBench result: (agg(main) - agg(base)) / max(loop_count*unroll_count,
 * unroll_count), printed with two decimals (or as a whole number with
 * -no_normalization).
 *
 * Aggregates are kept as exact fractions and rounded once, half away from
 * zero, so a result is never off by a truncation in an intermediate step.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"

/* An exact aggregate value num/den (den > 0). */
struct agg_value {
    int64_t num;
    int64_t den;
};

/*
 * The count between two reads m1, m2 of a counter `width` bits wide (0 or
 * 64: all bits): (m2 - m1) modulo 2^width, so a wrap in between is counted
 * right. 64-bit counters give the signed difference.
 */
int64_t stats_counter_delta(uint64_t m1, uint64_t m2, unsigned width);

/* Sorts values in place (heapsort: no recursion, no allocation). */
void stats_sort(int64_t *values, size_t n);

/*
 * Aggregates n >= 1 values (sorting them in place):
 * avg    = mean of values[n/5 .. n-n/5-1] (the middle 60%, nanoBench's default),
 * median = values[n/2] after sorting (the upper median, as nanoBench),
 * min, max.
 */
struct agg_value stats_aggregate(int64_t *values, size_t n, enum aggregate agg);

/* Number of repetitions a result is divided by: max(loop*unroll, unroll). */
int64_t stats_repetitions(int64_t unroll_count, int64_t loop_count);

/*
 * The printed value: with normalization, hundredths of
 * (main - base) / repetitions; without, (main - base) in whole units.
 */
int64_t stats_result(struct agg_value main, struct agg_value base, int64_t repetitions,
                     bool no_normalization);

/* Formats a stats_result value: "32.00", "-0.50", or "32000" without normalization. */
size_t stats_format(char *buf, size_t cap, int64_t result, bool no_normalization);

#endif
