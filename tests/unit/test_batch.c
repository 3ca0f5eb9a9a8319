/*
 * test_batch.c — the measurement loop driven by a scripted "generated
 * function" that writes its readings straight into the data page: kept
 * values, warm-up runs, SMI discard-and-repeat and its bound, faults.
 */
#include "bench_batch.h"
#include "bench_counters.h"
#include "nb_test.h"

#include <string.h>

static struct codegen_data data;
static int call;               /* runs so far */
static const int *smi_on_call; /* runs (0-based) during which an "SMI" happens */
static size_t n_smi_calls;
static int fault_on_call = -1;

/* Reading slot 0: SMI count; slot 1: a value equal to 100 + the run number. */
static void scripted_run(void)
{
    bool smi = false;
    for (size_t i = 0; i < n_smi_calls; i++)
        smi |= (smi_on_call[i] == call);
    data.m1[0] = 7;
    data.m2[0] = smi ? 8 : 7;
    data.m1[1] = 1000;
    data.m2[1] = 1000 + 100 + (uint64_t)call;
    data.fault_happened = (call == fault_on_call);
    call++;
}

static void reset(const int *smis, size_t n_smis, int fault)
{
    memset(&data, 0, sizeof(data));
    call = 0;
    smi_on_call = smis;
    n_smi_calls = n_smis;
    fault_on_call = fault;
}

NB_TEST(batch_keeps_measurements_after_warm_up)
{
    int64_t v[4];
    int64_t *values[1] = { v };
    reset(NULL, 0, -1);
    struct run_batch b = { scripted_run, &data, 1, 1, 2, 4, values, true, 0, false, NULL, 0, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(call, 6); /* 2 warm-up + 4 kept */
    CHECK_EQ_INT(v[0], 102);
    CHECK_EQ_INT(v[3], 105);
    CHECK_EQ_INT(b.smi_repeated, 0);
}

NB_TEST(batch_repeats_measurements_with_an_smi)
{
    /* Runs 1 (warm-up: ignored), 3 and 4 see an SMI: two kept measurements are repeated. */
    static const int smis[] = { 1, 3, 4 };
    int64_t v[3];
    int64_t *values[1] = { v };
    reset(smis, 3, -1);
    struct run_batch b = { scripted_run, &data, 1, 1, 2, 3, values, true, 0, false, NULL, 0, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(call, 7);
    CHECK_EQ_INT(b.smi_repeated, 2);
    CHECK_EQ_INT(b.smi_kept, 0);
    CHECK_EQ_INT(v[0], 102);
    CHECK_EQ_INT(v[1], 105); /* runs 3 and 4 discarded */
    CHECK_EQ_INT(v[2], 106);
}

NB_TEST(batch_bounds_the_repeats)
{
    /* An SMI in every run: n repeats, then the measurements are kept anyway and flagged. */
    static const int smis[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    int64_t v[2];
    int64_t *values[1] = { v };
    reset(smis, 10, -1);
    struct run_batch b = { scripted_run, &data, 1, 1, 0, 2, values, true, 0, false, NULL, 0, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(call, 4); /* 2 repeats allowed for n = 2, then 2 kept */
    CHECK_EQ_INT(b.smi_repeated, 2); /* the message counts these only */
    CHECK_EQ_INT(b.smi_kept, 2);
}

NB_TEST(batch_smi_warning_counts_what_was_repeated)
{
    char line[160];
    CHECK(!counters_smi_warning(0, 0, line, sizeof(line)));
    REQUIRE(counters_smi_warning(1, 0, line, sizeof(line)));
    CHECK_EQ_STR(line, "warning: 1 measurement saw an SMI and was repeated");
    REQUIRE(counters_smi_warning(2, 2, line, sizeof(line)));
    CHECK_EQ_STR(line, "warning: 2 measurements saw an SMI and were repeated; 2 kept measurements saw an "
                       "SMI too (SMIs too frequent to repeat them all)");
    REQUIRE(counters_smi_warning(0, 1, line, sizeof(line)));
    CHECK_EQ_STR(line, "warning: 1 kept measurement saw an SMI too (SMIs too frequent to repeat them all)");
}

NB_TEST(batch_without_smi_check_reads_from_slot_0)
{
    static const int smis[] = { 0 };
    int64_t v[1], w[1];
    int64_t *values[2] = { v, w };
    reset(smis, 1, -1);
    struct run_batch b = { scripted_run, &data, 2, 0, 0, 1, values, false, 0, false, NULL, 0, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(call, 1);
    CHECK_EQ_INT(v[0], 1); /* the SMI slot is just a value here */
    CHECK_EQ_INT(w[0], 100);
}

NB_TEST(batch_stops_at_a_fault)
{
    int64_t v[5] = { -1, -1, -1, -1, -1 };
    int64_t *values[1] = { v };
    reset(NULL, 0, 2);
    struct run_batch b = { scripted_run, &data, 1, 1, 1, 5, values, true, 0, false, NULL, 0, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(call, 3);
    CHECK(run_batch_faulted(&data));
    CHECK_EQ_INT(v[0], 101);
    CHECK_EQ_INT(v[1], -1);
}

/* A 48-bit counter that wraps between m1 and m2, next to a 64-bit TSC read. */
static void wrapping_run(void)
{
    data.m1[0] = ~0ull - 2;
    data.m2[0] = 7; /* the TSC: 64 bits, 10 ticks */
    data.m1[1] = (1ull << 48) - 5;
    data.m2[1] = 10; /* 5 events up to the wrap, 10 after */
    data.m1[2] = 3;
    data.m2[2] = 1003;
    call++;
}

NB_TEST(batch_masks_deltas_to_the_counter_width)
{
    static const struct counter_read reads[] = {
        { READ_TSC, 0, "RDTSC", 0, 0, 0 },
        { READ_PMC, 0, "A", 48, 0, 0 },
        { READ_PMC, 1u << 30, "FIXED", 48, 0, 0 },
    };
    int64_t t[1], a[1], f[1];
    int64_t *values[3] = { t, a, f };
    reset(NULL, 0, -1);
    struct run_batch b = { wrapping_run, &data, 3, 0, 0, 1, values, false, 0, false, reads, 1, NULL, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(t[0], 10);
    CHECK_EQ_INT(a[0], 15);
    CHECK_EQ_INT(f[0], 1000);
}
