/*
 * test_report.c — nb_run_image end to end on the fake platform: serial text,
 * results files, run numbering, broken benchmarks, a read-only or full medium.
 *
 * RDTSC values are real measurements of host code, so they are checked for
 * their format and then masked as '#'; everything else is compared exactly.
 */
#include "host_nasm.h"
#include "host_platform.h"
#include "nb_main.h"
#include "nb_test.h"
#include "nb_version.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNER "nanoBench-EFI " NB_VERSION "\n"
/* The platform report on the fake platform: no caches, no firmware facts (kernel/platform/platform_report.h). */
#define PLATFORM_TEXT                                                                        \
    "platform: cpu.vendor = GenuineIntel\n"                                                            \
    "platform: cpu.brand = Test CPU\n"                                                            \
    "platform: cpu.family = 6\n"                                                            \
    "platform: cpu.model = 85\n"                                                            \
    "platform: cpu.stepping = 4\n"                                                            \
    "platform: cpu.microcode = missing (IA32_BIOS_SIGN_ID not readable)\n"                                                            \
    "platform: tsc.hz = 2400000000\n"                                                            \
    "platform: tsc.source = cpuid_15h\n"                                                            \
    "platform: tsc.invariant = 0\n"                                                            \
    "platform: tsc.calibrated_hz = 1000000000\n"                                                            \
    "platform: tsc.cpuid_15h_hz = 2400000000\n"                                                            \
    "platform: tsc.cpuid_16h_hz = 0\n"                                                            \
    "platform: cache = missing (CPUID describes no cache)\n"                                                            \
    "platform: tlb = missing (CPUID has no leaf 18H (the leaf-2 descriptors are not decoded))\n" \
    "platform: metrics.uarch = Skylake-SP / Cascade Lake\n" \
    "platform: metrics.issue_width = 4\n" \
    "platform: metrics.peak_flop_per_cycle = unknown (1 or 2 AVX-512 FMA units depending on the SKU; CPUID does not say)\n"                                                            \
    "platform: firmware = missing (this platform reports no firmware facts)\n"                                                            \

#define PLATFORM_CSV                                                                         \
    "platform,cpu.vendor,GenuineIntel,,\n"                                                               \
    "platform,cpu.brand,Test CPU,,\n"                                                               \
    "platform,cpu.family,6,,\n"                                                               \
    "platform,cpu.model,85,,\n"                                                               \
    "platform,cpu.stepping,4,,\n"                                                               \
    "platform,cpu.microcode,missing (IA32_BIOS_SIGN_ID not readable),,\n"                                                               \
    "platform,tsc.hz,2400000000,,\n"                                                               \
    "platform,tsc.source,cpuid_15h,,\n"                                                               \
    "platform,tsc.invariant,0,,\n"                                                               \
    "platform,tsc.calibrated_hz,1000000000,,\n"                                                               \
    "platform,tsc.cpuid_15h_hz,2400000000,,\n"                                                               \
    "platform,tsc.cpuid_16h_hz,0,,\n"                                                               \
    "platform,cache,missing (CPUID describes no cache),,\n"                                                               \
    "platform,tlb,missing (CPUID has no leaf 18H (the leaf-2 descriptors are not decoded)),,\n" \
    "platform,metrics.uarch,Skylake-SP / Cascade Lake,,\n" \
    "platform,metrics.issue_width,4,,\n" \
    "platform,metrics.peak_flop_per_cycle,unknown (1 or 2 AVX-512 FMA units depending on the SKU; CPUID does not say),,\n"                                                               \
    "platform,firmware,missing (this platform reports no firmware facts),,\n"                                                               \

#define FINGERPRINT                                                                          \
    "cpu: GenuineIntel \"Test CPU\" family 0x6 model 0x55 stepping 4 microcode unknown\n"    \
    "tsc: invariant no, rdtscp no, 2400.000 MHz (CPUID.15H crystal ratio)\n"                 \
    PLATFORM_TEXT                                                                            \
    "xsave: none (not in ring 0); benchmarks get x87/SSE state only (FXSAVE64)\n"           \
    "lfence: dispatch-serialising (Intel)\n"                                                 \
    "power: turbo off, HWP off, APERF/MPERF no\n"                                          \
    "smi: not checked (the code does not run in ring 0)\n"                                  \
    "pmu: none usable: CPUID.0AH reports architectural perfmon version 0 with 0 counters "   \
    "(version 2 or later needed); measuring RDTSC only\n"                                   \
    "watchdog: none (not in ring 0); a benchmark that never ends needs a reset\n"
#define RESULTS(n)                                                                           \
    "results: nanobench/results/run-" n ".txt, nanobench/results/run-" n ".csv\n"
#define HEADER(n) BANNER FINGERPRINT RESULTS(n)

static void setup(struct host_platform *h, const char *suite)
{
    host_platform_init(h);
    host_cli_trap_install(); /* nb_run_image always masks interrupts */
    host_cpuid_set_vendor(h, "GenuineIntel", 0x15);
    host_cpuid_set(h, 1, 0, 0x00050654, 0, 0, 1u << 4);
    host_cpuid_set(h, 0x15, 0, 2, 200, 24000000, 0);
    host_cpuid_set(h, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
    host_cpuid_set_brand(h, "Test CPU");
    host_msr_fault(h, 0x8B);
    size_t len;
    uint8_t *add = host_nasm(&len, "add rax, rbx\nadd rbx, rax");
    if (add)
        host_fs_add_file(h, "nanobench/code/add.bin", add, len);
    free(add);
    if (suite)
        host_fs_add_text(h, NB_SUITE_PATH, suite);
    else
        host_fs_add_dir(h, NB_DIR);
}

/* The engine must leave nothing open or allocated behind. */
static void check_released(struct host_platform *h)
{
    CHECK_EQ_INT(h->open_files, 0);
    CHECK_EQ_INT(h->live_file_data, 0);
    CHECK_EQ_INT(h->n_allocs, 0);
    CHECK_EQ_INT(h->bad_frees, 0);
    CHECK_EQ_INT(h->finish_calls, 0); /* nb_run_image returns the action, boot/ acts on it */
}

/* Copy of text with every RDTSC value that is well-formed replaced by '#'. */
static char *mask(const char *text)
{
    char *out = strdup(text ? text : "(missing)");
    char *w = out;
    for (const char *r = out; *r;) {
        const char *v = NULL;
        if (strncmp(r, "RDTSC: ", 7) == 0)
            v = r + 7;
        else if (strncmp(r, ",RDTSC,", 7) == 0)
            v = r + 7;
        if (v) {
            const char *e = v + (*v == '-');
            const char *digits = e;
            while (isdigit((unsigned char)*e))
                e++;
            bool ok = e > digits;
            if (ok && *e == '.') {
                ok = isdigit((unsigned char)e[1]) && isdigit((unsigned char)e[2]);
                e += 3;
            }
            if (ok && (*e == '\n' || *e == 0 || strncmp(e, ",,\n", 3) == 0)) {
                memmove(w, r, 7);
                w += 7;
                *w++ = '#';
                r = e;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = 0;
    return out;
}

#define CHECK_MASKED(text, want)                                                             \
    do {                                                                                     \
        char *m_ = mask(text);                                                               \
        CHECK_EQ_STR(m_, want);                                                              \
        free(m_);                                                                            \
    } while (0)

static const char SUITE[] =
    "# test suite\n"
    "defaults: -unroll_count 10 -n_measurements 3 -warm_up_count 1 -finish reboot\n"
    "add: -code code/add.bin\n"
    "bad: -unroll_count 0\n"
    "missing: -code code/nope.bin\n"
    "broken line without colon\n"
    "basic: -code code/add.bin -basic_mode \\\n"
    "       -no_normalization\n"
    "comma: -finish halt\n"
    "quote: \"a\\\"b\"\n";

#define RUN_TEXT                                                                             \
    "[add]\n"                                                                                \
    "RDTSC: #\n"                                                                             \
    "[bad]\n"                                                                                \
    "error: suite line 4: option -unroll_count: 0 is out of range (1..2147483647)\n"         \
    "[missing]\n"                                                                            \
    "error: suite line 5: option -code: cannot read nanobench/code/nope.bin (no such file on the "\
    "image)\n"                                                                               \
    "[broken]\n"                                                                             \
    "error: suite line 6: expected 'name: options' (a benchmark name followed by a colon)\n" \
    "[basic]\n"                                                                              \
    "RDTSC: #\n"                                                                             \
    "[comma]\n"                                                                              \
    "error: suite line 9: option -finish: 'halt' is not one of shutdown, reboot, exit\n"     \
    "[quote]\n"                                                                              \
    "error: suite line 10: unexpected argument 'a\"b' (options start with '-')\n"            \
    "nanoBench-EFI done: 7 benchmarks, 5 errors, finish: reboot\n"

#define RUN_CSV                                                                              \
    "benchmark,event,value,min,max\n"                                                                \
    PLATFORM_CSV                                                                             \
    "add,RDTSC,#,,\n"                                                                          \
    "bad,error,suite line 4: option -unroll_count: 0 is out of range (1..2147483647),,\n"      \
    "missing,error,suite line 5: option -code: cannot read nanobench/code/nope.bin (no such file "\
    "on the image),,\n"                                                                        \
    "broken,error,suite line 6: expected 'name: options' (a benchmark name followed by a colon),,\n"\
    "basic,RDTSC,#,,\n"                                                                        \
    "comma,error,\"suite line 9: option -finish: 'halt' is not one of shutdown, reboot, exit\",,\n"\
    "quote,error,\"suite line 10: unexpected argument 'a\"\"b' (options start with '-')\",,\n"

NB_TEST(report_full_run_serial_and_files)
{
    struct host_platform h;
    setup(&h, SUITE);
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_REBOOT);
    CHECK_MASKED(host_text(&h), HEADER("0001") RUN_TEXT);
    /* The .txt file is the serial text, value for value. */
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.txt"), host_text(&h));
    CHECK_MASKED(host_fs_text(&h, "nanobench/results/run-0001.csv"), RUN_CSV);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/last-run"), "1\n");
    /* -no_normalization prints a whole number. */
    const char *basic = strstr(host_text(&h), "[basic]\nRDTSC: ");
    REQUIRE(basic != NULL);
    CHECK_EQ_INT(strcspn(basic + 15, ".\n"), strcspn(basic + 15, "\n"));
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_second_run_never_overwrites_the_first)
{
    struct host_platform h;
    setup(&h, SUITE);
    nb_run_image(&h.p);
    char *first_txt = strdup(host_fs_text(&h, "nanobench/results/run-0001.txt"));
    char *first_csv = strdup(host_fs_text(&h, "nanobench/results/run-0001.csv"));
    host_text_reset(&h);
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_REBOOT);
    CHECK_MASKED(host_text(&h), HEADER("0002") RUN_TEXT);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0002.txt"), host_text(&h));
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.txt"), first_txt);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.csv"), first_csv);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/last-run"), "2\n");
    const char *list[16];
    size_t n = host_fs_list(&h, NB_RESULTS_DIR, list, 16);
    REQUIRE(CHECK_EQ_INT(n, 6));
    CHECK_EQ_STR(list[0], "nanobench/results/last-run");
    CHECK_EQ_STR(list[1], "nanobench/results/run-0001.csv");
    CHECK_EQ_STR(list[4], "nanobench/results/run-0002.txt");
    CHECK_EQ_STR(list[5], "nanobench/results/state");
    free(first_txt);
    free(first_csv);
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_run_number_from_last_run_and_existing_files)
{
    static const struct {
        const char *last_run;   /* NULL: no last-run file */
        const char *existing;   /* a results file already there, or NULL */
        const char *expect;     /* the run number used */
    } cases[] = {
        { "41\n", NULL, "0042" },
        { "41", "nanobench/results/run-0042.txt", "0043" },
        { "7\r\n", "nanobench/results/run-0008.csv", "0009" },
        { "junk", "nanobench/results/run-0001.txt", "0002" },
        { NULL, "nanobench/results/run-0001.csv", "0002" },
        { "0", NULL, "0001" },
        { "-3", NULL, "0001" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct host_platform h;
        setup(&h, "a: -code code/add.bin -unroll_count 1 -n_measurements 1\n");
        if (cases[i].last_run)
            host_fs_add_text(&h, "nanobench/results/last-run", cases[i].last_run);
        if (cases[i].existing)
            host_fs_add_text(&h, cases[i].existing, "keep me");
        nb_run_image(&h.p);
        char want[4096], path[64];
        snprintf(want, sizeof(want), HEADER("%s") "[a]\nRDTSC: #\n"
                 "nanoBench-EFI done: 1 benchmark, 0 errors, finish: shutdown\n",
                 cases[i].expect, cases[i].expect);
        CHECK_MASKED(host_text(&h), want);
        snprintf(path, sizeof(path), "nanobench/results/run-%s.txt", cases[i].expect);
        CHECK_EQ_STR(host_fs_text(&h, path), host_text(&h));
        if (cases[i].existing)
            CHECK_EQ_STR(host_fs_text(&h, cases[i].existing), "keep me");
        snprintf(want, sizeof(want), "%d\n", atoi(cases[i].expect));
        CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/last-run"), want);
        check_released(&h);
        host_platform_free(&h);
    }
}

static const char SMALL_SUITE[] = "a: -code code/add.bin -unroll_count 2 -n_measurements 2\n"
                                  "b: -unroll_count 0\n";
#define SMALL_TEXT                                                                           \
    "[a]\nRDTSC: #\n[b]\n"                                                                   \
    "error: suite line 2: option -unroll_count: 0 is out of range (1..2147483647)\n"         \
    "nanoBench-EFI done: 2 benchmarks, 1 error, finish: shutdown\n"
#define SERIAL_ONLY "; results continue on serial only\n"
#define WRITE_ERROR ": write error (read-only or full partition?)"

NB_TEST(report_read_only_medium_runs_on_serial)
{
    /* No results folder yet: it cannot be created. */
    struct host_platform h;
    setup(&h, SMALL_SUITE);
    h.read_only = true;
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_SHUTDOWN);
    CHECK_MASKED(host_text(&h), "results: cannot create folder nanobench/results" WRITE_ERROR
                                SERIAL_ONLY BANNER FINGERPRINT SMALL_TEXT);
    CHECK(host_fs_find(&h, NB_RESULTS_DIR) == NULL);
    check_released(&h);
    host_platform_free(&h);

    /* The folder exists but nothing can be written into it. */
    setup(&h, SMALL_SUITE);
    host_fs_add_dir(&h, NB_RESULTS_DIR);
    h.read_only = true;
    nb_run_image(&h.p);
    CHECK_MASKED(host_text(&h), "results: cannot write nanobench/results/last-run" WRITE_ERROR
                                SERIAL_ONLY BANNER FINGERPRINT SMALL_TEXT);
    const char *list[4];
    CHECK_EQ_INT(host_fs_list(&h, NB_RESULTS_DIR, list, 4), 0);
    check_released(&h);
    host_platform_free(&h);
}

static int count(const char *haystack, const char *needle)
{
    int n = 0;
    for (const char *p = haystack; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

NB_TEST(report_medium_full_mid_run_says_so_once)
{
    struct host_platform h;
    setup(&h, SMALL_SUITE);
    /* Room for last-run ("1\n"), the CSV header and platform rows, the banner and 4 bytes more. */
    h.free_bytes = 2 + 30 + strlen(PLATFORM_CSV) + strlen(HEADER("0001") "[a]\n");
    nb_run_image(&h.p);
    /*
     * The resume state file (written at the first commit, before [a]) is the
     * first write to find the medium full; the results blocks wait in memory
     * for the last commit, whose write fails (durability window, nb_main.c).
     */
    CHECK_MASKED(host_text(&h), HEADER("0001")
                 "results: cannot write nanobench/results/state; a machine reset would not be resumed\n"
                 "[a]\nRDTSC: #\n"
                 "[b]\n"
                 "error: suite line 2: option -unroll_count: 0 is out of range (1..2147483647)\n"
                 "results: nanobench/results/run-0001.txt" WRITE_ERROR SERIAL_ONLY
                 "nanoBench-EFI done: 2 benchmarks, 1 error, finish: shutdown\n");
    /* Everything before the failure reached the file; a benchmark's block is written whole or not at all. */
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.txt"), HEADER("0001"));
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.csv"),
                 "benchmark,event,value,min,max\n" PLATFORM_CSV);
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_csv_failures_name_the_csv)
{
    /* The CSV cannot be created: said once, before the banner. */
    struct host_platform h;
    setup(&h, SMALL_SUITE);
    h.fail_path = ".csv";
    nb_run_image(&h.p);
    CHECK_MASKED(host_text(&h), "results: nanobench/results/run-0001.csv" WRITE_ERROR SERIAL_ONLY
                                BANNER FINGERPRINT SMALL_TEXT);
    check_released(&h);
    host_platform_free(&h);

    /* The CSV header is flushed, then the flush of the first commit (before [a]) fails. */
    setup(&h, SMALL_SUITE);
    h.fail_flush_path = ".csv";
    h.flushes_before_failure = 1;
    nb_run_image(&h.p);
    CHECK_MASKED(host_text(&h), HEADER("0001")
                 "results: nanobench/results/run-0001.csv" WRITE_ERROR SERIAL_ONLY
                 "[a]\nRDTSC: #\n"
                 "[b]\n"
                 "error: suite line 2: option -unroll_count: 0 is out of range (1..2147483647)\n"
                 "nanoBench-EFI done: 2 benchmarks, 1 error, finish: shutdown\n");
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_missing_suite_file)
{
    struct host_platform h;
    setup(&h, NULL);
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_SHUTDOWN);
    CHECK_EQ_STR(host_text(&h), HEADER("0001")
                 "error: cannot read nanobench/suite.nb (no such file)\n"
                 "nanoBench-EFI done: 0 benchmarks, 1 error, finish: shutdown\n");
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.csv"),
                 "benchmark,event,value,min,max\n" PLATFORM_CSV);
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_defaults_errors_and_finish)
{
    struct host_platform h;
    setup(&h, "defaults: -finish exit\n"
              "a: -code code/add.bin -unroll_count 1 -n_measurements 1\n"
              "defaults: -unroll_count 0\n"
              "b: -code code/add.bin\n");
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_EXIT);
    CHECK_MASKED(host_text(&h),
                 HEADER("0001") "[a]\nRDTSC: #\n"
                 "[defaults]\n"
                 "error: suite line 3: option -unroll_count: 0 is out of range (1..2147483647)\n"
                 "[b]\n"
                 "error: suite line 3 (defaults): option -unroll_count: 0 is out of range "
                 "(1..2147483647)\n"
                 "nanoBench-EFI done: 3 benchmarks, 2 errors, finish: exit\n");
    check_released(&h);
    host_platform_free(&h);

    /* A benchmark line's own -finish counts too; the last one wins. */
    setup(&h, "defaults: -finish reboot\n"
              "a: -code code/add.bin -unroll_count 1 -n_measurements 1 -finish shutdown\n");
    CHECK_EQ_INT(nb_run_image(&h.p), NB_FINISH_SHUTDOWN);
    check_released(&h);
    host_platform_free(&h);
}

NB_TEST(report_long_suite_of_blank_and_comment_lines)
{
    /* A generated suite: thousands of short lines must not exhaust the parser's arena. */
    size_t n = 3000;
    char *suite = malloc(n * 2 + 128);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        suite[len++] = i % 2 ? '#' : ' ';
        suite[len++] = '\n';
    }
    strcpy(suite + len, "a: -code code/add.bin -unroll_count 1 -n_measurements 1\n");
    struct host_platform h;
    setup(&h, suite);
    nb_run_image(&h.p);
    CHECK_MASKED(host_text(&h), HEADER("0001") "[a]\nRDTSC: #\n"
                 "nanoBench-EFI done: 1 benchmark, 0 errors, finish: shutdown\n");
    check_released(&h);
    host_platform_free(&h);
    free(suite);
}

NB_TEST(report_many_benchmarks_with_defaults)
{
    /* 1000 one-word benchmarks after a defaults line (each gets a copy of the defaults). */
    size_t n = 1000;
    char *suite = malloc(n * 32 + 256);
    size_t len = (size_t)sprintf(suite, "defaults: -unroll_count 1 -n_measurements 1 "
                                        "-warm_up_count 0 -alignment_offset 3 -avg\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(suite + len, "b%zu: -df\n", i);
    struct host_platform h;
    setup(&h, suite);
    nb_run_image(&h.p);
    const char *text = host_text(&h);
    if (!CHECK_EQ_INT(count(text, "RDTSC: "), (int)n))
        nb_test_note("output ends: %s", text + (strlen(text) > 200 ? strlen(text) - 200 : 0));
    CHECK(strstr(text, "nanoBench-EFI done: 1000 benchmarks, 0 errors, finish: shutdown\n"));
    CHECK_EQ_INT(count(text, "error:"), 0);
    check_released(&h);
    host_platform_free(&h);
    free(suite);
}

NB_TEST(report_run_numbers_exhausted)
{
    /* After run 9999 no new number exists; the run goes on over serial, and the
     * message says why instead of blaming the medium. */
    struct host_platform h;
    setup(&h, SMALL_SUITE);
    host_fs_add_text(&h, "nanobench/results/last-run", "9999\n");
    nb_run_image(&h.p);
    const char *text = host_text(&h);
    CHECK_EQ_INT(count(text, "results: "), 1);
    CHECK(strncmp(text, "results: all run numbers up to 9999 are used;", 45) == 0);
    CHECK(strstr(text, "continue on serial only\n" BANNER) != NULL);
    if (!CHECK(strstr(text, "read-only or full") == NULL))
        nb_test_note("first line: %.*s", (int)strcspn(text, "\n"), text);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/last-run"), "9999\n");
    check_released(&h);
    host_platform_free(&h);
}
