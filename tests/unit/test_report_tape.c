/*
 * test_report_tape.c — report calls recorded where the firmware cannot be
 * called (a benchmark's measurement on another processor) and emitted
 * later: the serial text, the .txt and .csv files and the observers get
 * exactly what the same calls made directly give them.
 */
#include "host_platform.h"
#include "nb_main.h"
#include "nb_report.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char seen[4096];

static void on_value(void *arg, const char *event, const char *value)
{
    (void)arg;
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof(seen) - n, "value %s=%s;", event, value);
}

static void on_error(void *arg, const char *message)
{
    (void)arg;
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof(seen) - n, "error %s;", message);
}

/* What a measurement reports: every kind of call the tape records. */
static void measurement_lines(struct report *r)
{
    report_line(r, "pmu: %d groups", 3);
    report_value(r, "RDTSC", "2.00");
    report_value_range(r, "EV_A", "3.00 [2.00;4.00]", "3.00", "2.00", "4.00");
    report_serial_line(r, "debug: serial %s", "only");
    report_metric(r, "IPC", "metric.IPC", "1.50");
    report_error(r, "timeout after %d s (in the %s)", 10, "main run");
    report_line(r, "%s", "after, with a comma, and \"quotes\"");
}

struct outcome {
    char *serial, *txt, *csv, *seen;
    unsigned errors;
};

static void run(bool taped, size_t cap, struct outcome *out)
{
    struct host_platform h;
    host_platform_init(&h);
    host_fs_add_dir(&h, NB_DIR);
    host_fs_add_dir(&h, NB_RESULTS_DIR);
    static struct report r;
    report_init(&r, &h.p);
    report_open_files(&r);
    r.on_value = on_value;
    r.on_error = on_error;
    seen[0] = '\0';
    host_text_reset(&h);
    report_begin(&r, "bench");
    if (taped) {
        static char buf[1 << 16];
        struct report_tape tape;
        report_tape_start(&r, &tape, buf, cap);
        measurement_lines(&r);
        report_tape_stop(&r);
        /* Nothing came out while recording; the error counted already. */
        CHECK_EQ_STR(host_text(&h), "[bench]\n");
        CHECK_EQ_STR(seen, "");
        CHECK_EQ_INT(r.n_errors, 1);
        report_tape_replay(&r, &tape);
    } else {
        measurement_lines(&r);
    }
    report_end(&r);
    out->errors = r.n_errors;
    out->serial = strdup(host_text(&h));
    report_close(&r);
    out->txt = strdup(host_fs_text(&h, "nanobench/results/run-0001.txt"));
    out->csv = strdup(host_fs_text(&h, "nanobench/results/run-0001.csv"));
    out->seen = strdup(seen);
    host_platform_free(&h);
}

static void outcome_free(struct outcome *o)
{
    free(o->serial);
    free(o->txt);
    free(o->csv);
    free(o->seen);
}

NB_TEST(report_tape_replays_exactly_what_direct_calls_give)
{
    struct outcome direct, taped;
    run(false, 0, &direct);
    run(true, 1 << 16, &taped);
    CHECK_EQ_STR(taped.serial, direct.serial);
    CHECK_EQ_STR(taped.txt, direct.txt);
    CHECK_EQ_STR(taped.csv, direct.csv);
    CHECK_EQ_STR(taped.seen, direct.seen);
    CHECK_EQ_INT(taped.errors, 1);
    CHECK_EQ_INT(direct.errors, 1);
    CHECK(strstr(direct.serial, "[bench]\npmu: 3 groups\nRDTSC: 2.00\nEV_A: 3.00 [2.00;4.00]\ndebug: serial only\n"
                                "IPC: 1.50\nerror: timeout after 10 s (in the main run)\n"));
    CHECK(strstr(direct.txt, "debug: serial only") == NULL); /* serial only, taped or not */
    CHECK(strstr(direct.csv, "bench,EV_A,3.00,2.00,4.00\n"));
    CHECK_EQ_STR(direct.seen, "value RDTSC=2.00;value EV_A=3.00;value metric.IPC=1.50;"
                              "error timeout after 10 s (in the main run);");
    outcome_free(&direct);
    outcome_free(&taped);
}

/* A tape too small: what fits comes out in order, then a warning counts the rest. */
NB_TEST(report_tape_says_what_did_not_fit)
{
    struct outcome taped;
    /* "pmu: 3 groups" (1 + 14 bytes) and RDTSC's value (1 + 6 + 5) fit in 27 bytes; 5 records do not. */
    run(true, 27, &taped);
    CHECK_EQ_STR(taped.serial, "[bench]\npmu: 3 groups\nRDTSC: 2.00\nwarning: 5 report lines of the benchmark's "
                               "processor did not fit in its buffer (27 bytes) and were lost\n");
    CHECK_EQ_INT(taped.errors, 1); /* the error still counts */
    outcome_free(&taped);
}
