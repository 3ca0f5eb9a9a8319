/*
 * test_stats.c — aggregation (trimmed mean, upper median, min, max), sorting,
 * and the exact rounding of nanoBench's result.
 */
#include "bench_stats.h"
#include "nb_test.h"

#include <stdlib.h>
#include <string.h>

static void check_agg(const int64_t *in, size_t n, enum aggregate agg, int64_t num, int64_t den,
                      int line)
{
    int64_t v[64];
    memcpy(v, in, n * sizeof(*v));
    struct agg_value r = stats_aggregate(v, n, agg);
    if (!CHECK_EQ_INT(r.num, num) | !CHECK_EQ_INT(r.den, den))
        nb_test_note("case at line %d", line);
}

#define AGG(agg, num, den, ...)                                                              \
    do {                                                                                     \
        static const int64_t in_[] = { __VA_ARGS__ };                                        \
        check_agg(in_, NB_ARRAY_SIZE(in_), (agg), (num), (den), __LINE__);                   \
    } while (0)

NB_TEST(stats_avg_is_mean_of_middle_60_percent)
{
    /* n=10 drops 2 on each side: 3+4+5+6+7+8 over 6. */
    AGG(AGG_AVG, 33, 6, 10, 1, 9, 2, 8, 3, 7, 4, 6, 5);
    /* The dropped values really are the extremes, whatever they are. */
    AGG(AGG_AVG, 33, 6, 1000000, -1000000, 9, 2, 8, 3, 7, 4, 6, 5);
    AGG(AGG_AVG, 42, 1, 42);                   /* n=1 */
    AGG(AGG_AVG, 100 + 1 + 7 + 3, 4, 100, 1, 7, 3); /* n=4: n/5 == 0 drops none */
    AGG(AGG_AVG, 2 + 3 + 4, 3, 5, 4, 3, 2, 1); /* n=5 drops one on each side */
    AGG(AGG_AVG, -6, 2, -3, -3);
}

NB_TEST(stats_median_min_max)
{
    AGG(AGG_MEDIAN, 3, 1, 4, 1, 3, 2);    /* even n: the upper median values[n/2] */
    AGG(AGG_MEDIAN, 3, 1, 5, 1, 4, 2, 3); /* odd n */
    AGG(AGG_MEDIAN, -7, 1, -7);
    AGG(AGG_MEDIAN, 20, 1, 10, 20);
    AGG(AGG_MIN, -5, 1, 3, -5, 7, 0);
    AGG(AGG_MAX, 7, 1, 3, -5, 7, 0);
    AGG(AGG_MIN, INT64_MIN, 1, 0, INT64_MAX, INT64_MIN);
    AGG(AGG_MAX, INT64_MAX, 1, 0, INT64_MAX, INT64_MIN);
}

NB_TEST(stats_aggregate_sorts_in_place)
{
    int64_t v[] = { 5, 3, 9, 1 };
    stats_aggregate(v, 4, AGG_MAX);
    static const int64_t sorted[] = { 1, 3, 5, 9 };
    CHECK_EQ_BYTES(v, sorted, sizeof(v));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

NB_TEST(stats_sort_cases)
{
    int64_t one[] = { 7 };
    stats_sort(one, 1);
    CHECK_EQ_INT(one[0], 7);
    stats_sort(NULL, 0);

    int64_t reversed[1000], want[1000];
    for (int i = 0; i < 1000; i++) {
        reversed[i] = 999 - i;
        want[i] = i;
    }
    stats_sort(reversed, 1000);
    CHECK_EQ_BYTES(reversed, want, sizeof(want));

    int64_t dups[] = { 3, 1, 3, 3, INT64_MIN, 1, INT64_MAX, 0, 3 };
    static const int64_t dups_sorted[] = { INT64_MIN, 0, 1, 1, 3, 3, 3, 3, INT64_MAX };
    stats_sort(dups, NB_ARRAY_SIZE(dups));
    CHECK_EQ_BYTES(dups, dups_sorted, sizeof(dups));
}

NB_TEST(stats_sort_100000_random_values)
{
    enum { N = 100000 };
    int64_t *v = malloc(N * sizeof(*v)), *ref = malloc(N * sizeof(*ref));
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = ref[i] = (int64_t)(x % 1000) - 500; /* plenty of duplicates and negatives */
    }
    v[17] = ref[17] = INT64_MIN;
    qsort(ref, N, sizeof(*ref), cmp_i64);
    stats_sort(v, N);
    CHECK_EQ_BYTES(v, ref, N * sizeof(*v));
    free(v);
    free(ref);
}

NB_TEST(stats_repetitions)
{
    CHECK_EQ_INT(stats_repetitions(1000, 0), 1000);
    CHECK_EQ_INT(stats_repetitions(1000, 1), 1000);
    CHECK_EQ_INT(stats_repetitions(10, 5), 50);
    CHECK_EQ_INT(stats_repetitions(1, 0), 1);
    CHECK_EQ_INT(stats_repetitions(2147483647, 2147483647), 4611686014132420609LL);
}

static int64_t result(int64_t mn, int64_t md, int64_t bn, int64_t bd, int64_t reps, bool no_norm)
{
    struct agg_value m = { mn, md }, b = { bn, bd };
    return stats_result(m, b, reps, no_norm);
}

NB_TEST(stats_result_rounding)
{
    CHECK_EQ_INT(result(3000, 1, 1000, 1, 1000, false), 200); /* 2.00 */
    CHECK_EQ_INT(result(64000, 1, 32000, 1, 1000, false), 3200);
    /* Half a hundredth rounds away from zero, both ways. */
    CHECK_EQ_INT(result(1, 1, 0, 1, 200, false), 1);
    CHECK_EQ_INT(result(0, 1, 1, 1, 200, false), -1);
    CHECK_EQ_INT(result(3, 1, 0, 1, 200, false), 2);   /* 1.5 -> 2 */
    CHECK_EQ_INT(result(-3, 1, 0, 1, 200, false), -2); /* -1.5 -> -2 */
    CHECK_EQ_INT(result(1, 1, 0, 1, 300, false), 0);   /* 0.33 */
    CHECK_EQ_INT(result(1, 1, 0, 1, 150, false), 1);   /* 0.67 */
    CHECK_EQ_INT(result(-1, 1, 0, 1, 150, false), -1);
    CHECK_EQ_INT(result(499, 1, 0, 1, 1000, false), 50);   /* 49.9 */
    CHECK_EQ_INT(result(-449, 1, 0, 1, 1000, false), -45); /* -44.9 */
    /* Fractional aggregates are exact: 10/3 - 1/6 = 19/6 = 3.1666.. -> 317 hundredths. */
    CHECK_EQ_INT(result(10, 3, 1, 6, 1, false), 317);
    /* A trimmed mean of 6 values: 33/6 - 5 = 0.5 per repetition over 10 -> 0.05. */
    CHECK_EQ_INT(result(33, 6, 5, 1, 10, false), 5);
    CHECK_EQ_INT(result(100, 1, 100, 1, 7, false), 0);
}

NB_TEST(stats_result_without_normalization)
{
    CHECK_EQ_INT(result(64000, 1, 32000, 1, 1000, true), 32000); /* repetitions ignored */
    CHECK_EQ_INT(result(7, 2, 0, 1, 1000, true), 4);             /* 3.5 -> 4 */
    CHECK_EQ_INT(result(-7, 2, 0, 1, 1000, true), -4);
    CHECK_EQ_INT(result(5, 2, 1, 1, 1, true), 2); /* 1.5 -> 2 */
    CHECK_EQ_INT(result(1, 3, 0, 1, 1, true), 0);
    CHECK_EQ_INT(result(33, 6, 5, 1, 1, true), 1); /* 0.5 -> 1 */
}

NB_TEST(stats_format)
{
    static const struct {
        int64_t v;
        bool no_norm;
        const char *text;
    } cases[] = {
        { 3200, false, "32.00" }, { -50, false, "-0.50" }, { 0, false, "0.00" },
        { 5, false, "0.05" },     { 32000, true, "32000" }, { -7, true, "-7" },
        { 0, true, "0" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        char buf[32];
        size_t n = stats_format(buf, sizeof(buf), cases[i].v, cases[i].no_norm);
        CHECK_EQ_STR(buf, cases[i].text);
        CHECK_EQ_INT(n, strlen(cases[i].text));
    }
}

NB_TEST(stats_counter_delta_masks_to_the_counter_width)
{
    /* A 48-bit counter that wraps between m1 and m2: 5 events before the wrap, 10 after. */
    CHECK_EQ_INT(stats_counter_delta((1ull << 48) - 5, 10, 48), 15);
    /* A 40-bit fixed counter (CPUID.0AH:EDX[12:5] = 40). */
    CHECK_EQ_INT(stats_counter_delta((1ull << 40) - 1, 0, 40), 1);
    CHECK_EQ_INT(stats_counter_delta(100, 350, 48), 250);
    /* RDTSC and RDMSR keep all 64 bits: width 0 or 64. */
    CHECK_EQ_INT(stats_counter_delta(~0ull, 9, 0), 10);
    CHECK_EQ_INT(stats_counter_delta(~0ull - 1, 3, 64), 5);
    CHECK_EQ_INT(stats_counter_delta(10, 7, 0), -3);
}
