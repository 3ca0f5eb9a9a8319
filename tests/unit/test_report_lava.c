/*
 * test_report_lava.c — -lava_results: one "lava:" line per value, metric,
 * error and -expect check, in the form the LAVA job's monitor reads
 * (lava/README.md, tools/lava_job.py): "lava: CASE RESULT [VALUE UNITS]".
 */
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"

#include <string.h>

static const char *lava_text(struct host_platform *h, const char *units_suffix)
{
    struct report r;
    report_init(&r, &h->p);
    host_fs_add_dir(h, "nanobench/results");
    report_open_files(&r);
    report_begin(&r, "add chain");
    report_lava_begin(&r, units_suffix);
    report_value(&r, "RDTSC", "32.00");
    report_value(&r, "Core cycles", "-1.50");
    report_metric(&r, "CPI", "metric.CPI", "n/a (no PMU)");
    report_error(&r, "timeout after 10 s (in the main run)");
    report_end(&r);
    report_begin(&r, "plain");
    report_value(&r, "RDTSC", "16.00");
    report_end(&r);
    report_close(&r);
    return host_text(h);
}

NB_TEST(report_lava_lines_follow_values_errors_and_metrics)
{
    struct host_platform h;
    host_platform_init(&h);
    const char *text = lava_text(&h, "/rep");
    /* Exactly: the second benchmark did not ask for lava lines. */
    const char *plain = strstr(text, "[plain]\n");
    CHECK(plain != NULL);
    CHECK(strncmp(plain, "[plain]\nRDTSC: 16.00\n", 21) == 0);
    CHECK(strstr(plain, "lava:") == NULL);
    const char *first = strstr(text, "[add chain]\n");
    CHECK(first != NULL);
    CHECK(strncmp(first,
                  "[add chain]\n"
                  "RDTSC: 32.00\n"
                  "lava: add_chain.RDTSC pass 32.00 tsc_ticks/rep\n"
                  "Core cycles: -1.50\n"
                  "lava: add_chain.Core_cycles pass -1.50 events/rep\n"
                  "CPI: n/a (no PMU)\n"
                  "lava: add_chain.CPI skip\n"
                  "error: timeout after 10 s (in the main run)\n"
                  "lava: add_chain.error fail\n",
                  strlen("[add chain]\n"
                         "RDTSC: 32.00\n"
                         "lava: add_chain.RDTSC pass 32.00 tsc_ticks/rep\n"
                         "Core cycles: -1.50\n"
                         "lava: add_chain.Core_cycles pass -1.50 events/rep\n"
                         "CPI: n/a (no PMU)\n"
                         "lava: add_chain.CPI skip\n"
                         "error: timeout after 10 s (in the main run)\n"
                         "lava: add_chain.error fail\n")) == 0);
}

NB_TEST(report_lava_lines_not_in_the_results_files)
{
    struct host_platform h;
    host_platform_init(&h);
    lava_text(&h, "");
    /* The .txt file is the human report; LAVA reads the serial port only. */
    const char *txt = host_fs_text(&h, "nanobench/results/run-0001.txt");
    CHECK(txt != NULL);
    CHECK(strstr(txt, "lava:") == NULL);
    const char *csv = host_fs_text(&h, "nanobench/results/run-0001.csv");
    CHECK(csv != NULL);
    CHECK(strstr(csv, "lava") == NULL);
}
