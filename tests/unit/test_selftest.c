/*
 * test_selftest.c — the image's side of the self-test on the fake seam: the
 * counter-restore read-back (PASS, a value that did not come back, a counter
 * that the restored state keeps counting, an MSR that faults on read-back),
 * and the exact check/summary lines nb_selftest prints.
 */
#include "host_platform.h"
#include "nb_main.h"
#include "nb_report.h"
#include "nb_selftest.h"
#include "nb_test.h"
#include "pmu_msrs.h"
#include "pmu_restore_check.h"

#include <string.h>

static const struct pmu_desc SKYLAKE_PMU = { .vendor = VENDOR_INTEL, .family = 6, .model = 0x55,
                                             .version = 4, .n_gp = 4, .gp_width = 48,
                                             .n_fixed = 3, .fixed_width = 48,
                                             .full_width_writes = false };

/* Saves, programs a group like a benchmark does, restores; *copy is the session before the restore. */
static void session_round_trip(struct host_platform *h, struct pmu_session *s, struct pmu_session *copy)
{
    pmu_session_begin(s, &h->p, &SKYLAKE_PMU);
    struct pmu_event ev[2];
    memset(ev, 0, sizeof(ev));
    ev[0].event = 0xC0;
    ev[1].event = 0x3C;
    struct pmu_group g;
    memset(&g, 0, sizeof(g));
    g.n = 2;
    g.counter[0] = 0;
    g.counter[1] = 1;
    g.event_index[0] = 0;
    g.event_index[1] = 1;
    pmu_program_group(s, ev, &g, true);
    *copy = *s;
    pmu_session_end(s);
}

NB_TEST(restore_check_passes_when_every_msr_reads_back)
{
    struct host_platform h;
    host_platform_init(&h);
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0 + 2, 0x4300C4); /* left by the firmware, not enabled globally */
    static struct pmu_session s, copy;
    session_round_trip(&h, &s, &copy);
    /* Global ctrl, 4 x (PERFEVTSEL, PMC), fixed ctrl, 3 fixed counters, 4 aux MSRs. */
    CHECK_EQ_INT(copy.n_saved, 1 + 8 + 1 + 3 + 4);
    struct pmu_restore_result r;
    CHECK(pmu_restore_check(&copy, &r));
    CHECK_EQ_INT(r.n_checked, 17);
    CHECK_EQ_INT(r.n_running, 0);
    CHECK_EQ_INT(r.n_mismatch, 0);
    host_platform_free(&h);
}

NB_TEST(restore_check_names_an_msr_that_did_not_come_back)
{
    struct host_platform h;
    host_platform_init(&h);
    static struct pmu_session s, copy;
    session_round_trip(&h, &s, &copy);
    /* As if the restore of IA32_PERFEVTSEL1 had not reached the MSR. */
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0 + 1, 0x43003C);
    struct pmu_restore_result r;
    CHECK(!pmu_restore_check(&copy, &r));
    CHECK_EQ_INT(r.n_mismatch, 1);
    CHECK_EQ_STR(r.first, "MSR 0x187 reads 0x43003c, was 0x0");
    host_msr_fault(&h, MSR_IA32_FIXED_CTR_CTRL);
    CHECK(!pmu_restore_check(&copy, &r));
    CHECK_EQ_INT(r.n_mismatch, 2);
    CHECK_EQ_STR(r.first, "MSR 0x187 reads 0x43003c, was 0x0");
    host_platform_free(&h);
}

/* The firmware left counter 0 and fixed counter 1 counting: they go on after the restore. */
NB_TEST(restore_check_does_not_compare_counters_left_counting)
{
    struct host_platform h;
    host_platform_init(&h);
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0, PERFEVTSEL_EN | 0x3C);
    host_msr_set(&h, MSR_IA32_PMC0, 100);
    host_msr_set(&h, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTR_CTRL_FIELD(1, FIXED_CTR_CTRL_OS));
    host_msr_set(&h, MSR_IA32_FIXED_CTR0 + 1, 7);
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_CTRL, 1ull | (1ull << (GLOBAL_CTRL_FIXED_SHIFT + 1)));
    static struct pmu_session s, copy;
    session_round_trip(&h, &s, &copy);
    host_msr_set(&h, MSR_IA32_PMC0, 150);
    host_msr_set(&h, MSR_IA32_FIXED_CTR0 + 1, 9);
    struct pmu_restore_result r;
    CHECK(pmu_restore_check(&copy, &r));
    CHECK_EQ_INT(r.n_running, 2);
    CHECK_EQ_INT(r.n_checked, 15);
    /* Without the global enable they are stopped, so their values must match. */
    copy.saved[0].value = 0;
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    CHECK(!pmu_restore_check(&copy, &r));
    CHECK_EQ_INT(r.n_mismatch, 2);
    CHECK_EQ_STR(r.first, "MSR 0xc1 reads 0x96, was 0x64");
    host_platform_free(&h);
}

NB_TEST(selftest_lines_and_summary_as_printed)
{
    struct host_platform h;
    host_platform_init(&h);
    static struct report r;
    static struct nb_selftest t;
    report_init(&r, &h.p);
    nb_selftest_init(&t, &r);

    struct bench_options o;
    struct option_error err;
    bench_options_init(&o);
    char *argv[] = { "-expect", "RDTSC=32.00 if icount=4", "-expect", "Core cycles=2.00",
                     "-expect_restore", "-qemu_icount", "4" };
    REQUIRE(bench_options_parse(&o, 7, argv, SCOPE_TARGET, &err) == NB_OK);
    struct nb_selftest_machine m = { false, "no counters here", false, 1,
                                     "" };
    nb_selftest_begin(&t);
    report_begin(&r, "add");
    report_value(&r, "RDTSC", "32.00");
    nb_selftest_check(&t, &r, "add", &o, &m);
    report_end(&r);

    nb_selftest_begin(&t);
    report_begin(&r, "bad");
    report_value(&r, "RDTSC", "16.00");
    report_error(&r, "#UD at main code+0x0 (copy 1 of 1000, base run)");
    nb_selftest_check(&t, &r, "bad", &o, &m);
    report_end(&r);
    nb_selftest_finish(&t, &r, NULL, "no counters here");
    CHECK_EQ_STR(host_text(&h),
                 "[add]\n"
                 "RDTSC: 32.00\n"
                 "check: PASS add: RDTSC = 32.00 (expected 32.00)\n"
                 "check: SKIPPED add: Core cycles: no PMU (no counters here)\n"
                 "[bad]\n"
                 "RDTSC: 16.00\n"
                 "error: #UD at main code+0x0 (copy 1 of 1000, base run)\n"
                 "check: FAIL bad: RDTSC: the benchmark reported an error: #UD at main code+0x0 "
                 "(copy 1 of 1000, base run)\n"
                 "check: SKIPPED bad: Core cycles: no PMU (no counters here)\n"
                 "check: SKIPPED counter restore: no PMU (no counters here)\n"
                 "selftest: PASS 1/5, 1 failed (bad: RDTSC), 3 skipped\n");
    report_close(&r);
    host_platform_free(&h);
}

/* A suite without checks prints no summary. */
NB_TEST(selftest_no_checks_no_summary)
{
    struct host_platform h;
    host_platform_init(&h);
    static struct report r;
    static struct nb_selftest t;
    report_init(&r, &h.p);
    nb_selftest_init(&t, &r);
    struct bench_options o;
    bench_options_init(&o);
    struct nb_selftest_machine m = { true, "", true, 1, "" };
    nb_selftest_begin(&t);
    report_begin(&r, "plain");
    report_value(&r, "RDTSC", "2.00");
    nb_selftest_check(&t, &r, "plain", &o, &m);
    report_end(&r);
    nb_selftest_finish(&t, &r, NULL, "");
    CHECK_EQ_STR(host_text(&h), "[plain]\nRDTSC: 2.00\n");
    report_close(&r);
    host_platform_free(&h);
}

/*
 * nb_run_image end to end: the check lines come under their benchmark, in
 * the results file too, and the summary before the end banner. Host RDTSC
 * values are real, so only checks with a fixed verdict are used: RDTSC under
 * a QEMU -icount condition (SKIPPED: not under QEMU), a counter event (no
 * PMU), -cpu beyond the processors, and a benchmark whose code is missing
 * (FAIL naming the error).
 */
NB_TEST(selftest_run_image_end_to_end)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cli_trap_install();
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x15);
    host_cpuid_set(&h, 1, 0, 0x00050654, 0, 0, 1u << 4);
    host_cpuid_set(&h, 0x15, 0, 2, 200, 24000000, 0);
    host_msr_fault(&h, 0x8B);
    static const uint8_t add_code[] = { 0x48, 0x01, 0xd8 }; /* add rax, rbx */
    host_fs_add_file(&h, "nanobench/code/add.bin", add_code, sizeof(add_code));
    host_fs_add_text(&h, NB_SUITE_PATH,
                     "defaults: -unroll_count 10 -n_measurements 2 -warm_up_count 0 -expect_restore\n"
                     "add: -code code/add.bin -expect \"RDTSC=16.00 if icount=4\" -expect \"Core cycles=1\"\n"
                     "far: -code code/add.bin -cpu 7 -expect RDTSC=16\n"
                     "gone: -code code/nope.bin -expect RDTSC=16\n");
    nb_run_image(&h.p);
    const char *text = host_text(&h);
    const char *from = strstr(text, "[add]\n");
    REQUIRE(from);
    /* Drop the RDTSC value lines (real host timings). */
    char kept[4096] = "";
    for (const char *line = from; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line + 1) : strlen(line);
        if (strncmp(line, "RDTSC: ", 7) != 0 && strlen(kept) + n < sizeof(kept))
            strncat(kept, line, n);
        line += n;
    }
    CHECK_EQ_STR(kept,
                 "[add]\n"
                 "check: SKIPPED add: RDTSC: not under QEMU -icount 4 (real hardware)\n"
                 "check: SKIPPED add: Core cycles: no PMU (CPUID.0AH reports architectural perfmon "
                 "version 0 with 0 counters (version 2 or later needed))\n"
                 "[far]\n"
                 "error: suite line 3: option -cpu: processor 7 does not exist (this machine has 1 "
                 "enabled processor, 0..0)\n"
                 "check: SKIPPED far: RDTSC: one processor only (-cpu 7 needs 8 processors)\n"
                 "[gone]\n"
                 "error: suite line 4: option -code: cannot read nanobench/code/nope.bin (no such "
                 "file on the image)\n"
                 "check: FAIL gone: RDTSC: the benchmark reported an error: suite line 4: option "
                 "-code: cannot read nanobench/code/nope.bin (no such file on the image)\n"
                 "check: SKIPPED counter restore: no PMU (CPUID.0AH reports architectural perfmon "
                 "version 0 with 0 counters (version 2 or later needed))\n"
                 "selftest: PASS 0/5, 1 failed (gone: RDTSC), 4 skipped\n"
                 "nanoBench-EFI done: 3 benchmarks, 2 errors, finish: shutdown\n");
    /* The results file has the same lines. */
    const char *txt = host_fs_text(&h, "nanobench/results/run-0001.txt");
    REQUIRE(txt);
    CHECK(strstr(txt, "check: FAIL gone: RDTSC: the benchmark reported an error"));
    CHECK(strstr(txt, "selftest: PASS 0/5, 1 failed (gone: RDTSC), 4 skipped\n"));
    host_platform_free(&h);
}
