/*
 * bench_stats.c — aggregation and result arithmetic (see bench_stats.h).
 */
#include "bench_stats.h"
#include "nb_text.h"

static void sift_down(int64_t *v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        int64_t t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

void stats_sort(int64_t *values, size_t n)
{
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(values, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        int64_t t = values[0];
        values[0] = values[end];
        values[end] = t;
        sift_down(values, 0, end);
    }
}

struct agg_value stats_aggregate(int64_t *values, size_t n, enum aggregate agg)
{
    struct agg_value r = { 0, 1 };
    if (n == 0)
        return r;
    stats_sort(values, n);
    switch (agg) {
    case AGG_MIN:
        r.num = values[0];
        break;
    case AGG_MAX:
        r.num = values[n - 1];
        break;
    case AGG_MEDIAN:
        r.num = values[n / 2];
        break;
    case AGG_AVG:
    default: {
        size_t lo = n / 5, hi = n - n / 5;
        for (size_t i = lo; i < hi; i++)
            r.num += values[i];
        r.den = (int64_t)(hi - lo);
        break;
    }
    }
    return r;
}

int64_t stats_repetitions(int64_t unroll_count, int64_t loop_count)
{
    int64_t reps = loop_count * unroll_count;
    return reps > unroll_count ? reps : unroll_count;
}

/* round(num / den) with ties away from zero; den > 0. */
static int64_t div_round(__int128 num, __int128 den)
{
    __int128 half = den / 2;
    __int128 q = num >= 0 ? (num + half) / den : -((-num + half) / den);
    return (int64_t)q;
}

int64_t stats_result(struct agg_value main, struct agg_value base, int64_t repetitions,
                     bool no_normalization)
{
    __int128 diff_num = (__int128)main.num * base.den - (__int128)base.num * main.den;
    __int128 diff_den = (__int128)main.den * base.den;
    if (no_normalization)
        return div_round(diff_num, diff_den);
    return div_round(diff_num * 100, diff_den * repetitions);
}

size_t stats_format(char *buf, size_t cap, int64_t result, bool no_normalization)
{
    if (no_normalization)
        return nb_snprintf(buf, cap, "%lld", (long long)result);
    return nb_format_centi(buf, cap, result);
}

/*
 * A w-bit counter counts modulo 2^w (SDM vol. 3B 20.2.1: CPUID.0AH gives the
 * widths; APM vol. 2 13.2.1: 48 bits on AMD), so the difference of two reads
 * is too: one wrap in between is harmless.
 */
int64_t stats_counter_delta(uint64_t m1, uint64_t m2, unsigned width)
{
    if (width == 0 || width >= 64)
        return (int64_t)(m2 - m1);
    return (int64_t)((m2 - m1) & ((1ull << width) - 1));
}
