/*
 * test_bench_metrics.c — the image's metric evaluation (kernel/bench_metrics.h)
 * with -calibrate's latencies: N1..N3 are the penalties of L2, L3 and DRAM
 * over an L1 hit, in core cycles (METRICS-FACTS.md 3c); N4 and latencies in
 * TSC ticks are n/a with the reason.
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
static const char *report_latencies(struct host_platform *h, const struct machine_latencies *l)
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
    struct metric_measured m = { .tsc_known = true, .tsc = 100, .latencies = l };
    metrics_report(&plan, &m, &r);
    return host_text(h);
}

NB_TEST(metrics_latency_penalties_from_calibration)
{
    struct host_platform h;
    /* Hundredths of a core cycle per load: L1 4, L2 14, L3 44, DRAM 204. */
    struct machine_latencies l = { .measured = true, .core_cycles = true,
                                   .latency = { 400, 1400, 4400, 20400 } };
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: 10.00\nN_L3: 40.00\nN_DRAM: 200.00\n"
                 "N_TLB: n/a (the TLB-walk penalty N4 is not calibrated)\nMODEL: 500.00\n");
    host_platform_free(&h);

    /* Without -calibrate, and in TSC ticks (no PMU): n/a, and why. */
    CHECK_EQ_STR(report_latencies(&h, NULL),
                 "N_L2: n/a (memory latencies N1..N3 not measured (add -calibrate))\nN_L3: n/a\nN_DRAM: n/a\n"
                 "N_TLB: n/a (the TLB-walk penalty N4 is not calibrated)\nMODEL: n/a\n");
    host_platform_free(&h);
    l.core_cycles = false;
    CHECK_EQ_STR(report_latencies(&h, &l),
                 "N_L2: n/a (memory latencies were measured in TSC ticks, not core cycles)\nN_L3: n/a\n"
                 "N_DRAM: n/a\nN_TLB: n/a (the TLB-walk penalty N4 is not calibrated)\nMODEL: n/a\n");
    host_platform_free(&h);
}
