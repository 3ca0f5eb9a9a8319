/*
 * test_bench_metrics.c — the image's metric evaluation (kernel/engine/bench_metrics.h)
 * with -calibrate's latencies: N1..N3 are the penalties of L2, L3 and DRAM
 * over an L1 hit, N4 that of a TLB walk over an L2 hit, in core cycles
 * (METRICS-FACTS.md 3c); N3 from the DRAM latency in ns at the run's
 * effective frequency when the fixed counters give it; latencies in TSC
 * ticks are n/a with the reason.
 */
#include <string.h>

#include "bench_metrics.h"
#include "host_platform.h"
#include "nb_test.h"

static void no_errors(void *arg, const char *message)
{
    (void)arg;
    nb_test_note("metric file: %s", message);
}

/* Prints group `lat` of a small metric file with these latencies; returns the text. */
static const char *report_latencies_fixed(struct host_platform *h, const struct machine_latencies *l,
                                          const int64_t *fixed, unsigned n_fixed, uint64_t tsc_hz)
{
    static struct metric_file f;
    static struct metric_plan plan;
    static const char text[] = "config builtin\n"
                               "N_L2 = N1\nN_L3 = N2\nN_DRAM = N3\nN_TLB = N4\nMODEL = 10 * N1 + 2 * N3\n"
                               "group lat: N_L2 N_L3 N_DRAM N_TLB MODEL\n";
    if (!metric_file_parse(text, sizeof(text) - 1, "t.txt", &f, no_errors, NULL))
        return "parse error";
    char err[200];
    if (!metrics_select(&plan, &f, VENDOR_INTEL, "lat", err, sizeof(err)))
        return "select error";
    struct report r;
    host_platform_init(h);
    report_init(&r, &h->p);
    host_text_reset(h);
    r.serial_seq = 0;
    struct metric_measured m = { .tsc_known = true, .tsc = 100, .latencies = l, .fixed_values = fixed,
                                 .n_fixed = n_fixed, .tsc_hz = tsc_hz };
    metrics_report(&plan, &m, &r);
    return host_text(h);
}

static const char *report_latencies(struct host_platform *h, const struct machine_latencies *l)
{
    return report_latencies_fixed(h, l, NULL, 0, 0);
}

NB_TEST(metrics_latency_penalties_from_calibration)
{
    struct host_platform h;
    /* Hundredths of a core cycle per load: L1 4, L2 14, L3 44, DRAM 204. */
    struct machine_latencies l = { .measured = true, .core_cycles = true,
                                   .latency = { 400, 1400, 4400, 20400 } };
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\n"
                 "N_TLB: n/a (a memory latency level was not measured)\nMODEL: 500.00\n");
    host_platform_free(&h);
    /* The calibration's reason for a missing walk level. */
    l.why[LAT_WALK] = "5-level paging (CR4.LA57): the window hooks a PML4 entry";
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\n"
                 "N_TLB: n/a (5-level paging (CR4.LA57): the window hooks a PML4 entry)\nMODEL: 500.00\n");
    host_platform_free(&h);
    /* A walk of 44 cycles: N4 = walk - L2 = 30. */
    l.why[LAT_WALK] = NULL;
    l.latency[LAT_WALK] = 4400;
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\nN_TLB: 30.00\nMODEL: 500.00\n");
    host_platform_free(&h);

    /* Without -calibrate, and in TSC ticks (no PMU): n/a, and why. */
    CHECK_EQ_STR(report_latencies(&h, NULL),
                 "N_L2: n/a (memory latencies N1..N4 not measured (add -calibrate))\nN_L3: n/a\nN_DRAM: n/a\n"
                 "N_TLB: n/a\nMODEL: n/a\n");
    host_platform_free(&h);
    l.core_cycles = false;
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: n/a (memory latencies were measured in TSC ticks, not core cycles)\nN_L3: n/a\n"
                 "N_DRAM: n/a\nN_TLB: n/a\nMODEL: n/a\n");
    host_platform_free(&h);
}

/*
 * A level the counter check distrusted (METRICS-FACTS.md 3c step 3): the
 * penalties built on it are n/a with the calibration's reason, the others
 * keep their values (a reason is printed once, with the first metric that
 * has it). L2 distrusted: N1 (L2 - L1) and N4 (walk - L2); L1 distrusted:
 * N1..N3, but not N4 (walk over L2).
 */
NB_TEST(metrics_latency_penalties_skip_a_distrusted_level)
{
    struct host_platform h;
    struct machine_latencies l = { .measured = true, .core_cycles = true,
                                   .latency = { 400, 1400, 4400, 20400, 4400 } };
    l.distrusted[LAT_L2] = true;
    strcpy(l.distrust_why[LAT_L2], "calibration: L2 not trusted: 60% of its loads hit L2 (under 90%)");
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: n/a (calibration: L2 not trusted: 60% of its loads hit L2 (under 90%))\n"
                 "N_L3: 40.00\nN_DRAM: 200.00\n"
                 "N_TLB: n/a\nMODEL: n/a\n");
    host_platform_free(&h);
    l.distrusted[LAT_L2] = false;
    l.distrusted[LAT_L1] = true;
    strcpy(l.distrust_why[LAT_L1], "calibration: L1 not trusted: 80% of its loads hit L1 (under 90%)");
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: n/a (calibration: L1 not trusted: 80% of its loads hit L1 (under 90%))\n"
                 "N_L3: n/a\nN_DRAM: n/a\nN_TLB: 30.00\nMODEL: n/a\n");
    host_platform_free(&h);
}

/*
 * DRAM latency is fixed in ns (METRICS-FACTS.md 3c step 4): 50.00 ns at this
 * run's effective frequency, TSC 2 GHz x CPU_CLK_UNHALTED.THREAD 300 /
 * REF_TSC 200 = 3 GHz, is 150 cycles, so N3 = 150 - L1 4 = 146 (not the
 * calibration's 200). Without the reference cycles, the calibration's N3.
 */
NB_TEST(metrics_n3_at_the_runs_effective_frequency)
{
    struct host_platform h;
    struct machine_latencies l = { .measured = true, .core_cycles = true,
                                   .latency = { 400, 1400, 4400, 20400, 4400 }, .dram_ns = 5000 };
    const int64_t fixed[3] = { 1000, 300, 200 }; /* Intel: INST_RETIRED.ANY, THREAD, REF_TSC */
    CHECK_EQ_STR(report_latencies_fixed(&h, &l, fixed, 3, 2000000000),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 146.00\nN_TLB: 30.00\nMODEL: 392.00\n");
    host_platform_free(&h);
    CHECK_EQ_STR(report_latencies_fixed(&h, &l, fixed, 2, 2000000000),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\nN_TLB: 30.00\nMODEL: 500.00\n");
    host_platform_free(&h);
    CHECK_EQ_STR(report_latencies_fixed(&h, &l, fixed, 3, 0),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\nN_TLB: 30.00\nMODEL: 500.00\n");
    host_platform_free(&h);
}
