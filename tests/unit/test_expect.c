/*
 * test_expect.c — the -expect grammar, the check verdicts and the selftest
 * summary, and configs/selftest.suite itself evaluated against the values an
 * ideal Skylake and an ideal Zen 4 print (PASS path) and against wrong values
 * (each FAIL names the check and both values).
 *
 * The fake seam cannot yet script what the generated code reads (RDPMC), so
 * the ideal machines are fed to the evaluator as printed values, exactly as
 * nb_selftest.c captures them from the report.
 */
#include "bench_expect.h"
#include "bench_options.h"
#include "nb_arena.h"
#include "nb_test.h"
#include "suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse(const char *text, struct expectation *e, char *error)
{
    return expect_parse(text, e, error, 160);
}

NB_TEST(expect_parse_number_tolerance_condition)
{
    struct expectation e;
    char error[160] = "";
    REQUIRE(parse("Core cycles|CYCLES_NOT_IN_HALT=3.00~0.05 if uarch=Skylake|Zen4", &e, error));
    CHECK_EQ_INT(e.event.n, 2);
    CHECK_EQ_STR(e.event.name[0], "Core cycles");
    CHECK_EQ_STR(e.event.name[1], "CYCLES_NOT_IN_HALT");
    CHECK(!e.value_is_event);
    CHECK_EQ_INT(e.value, 300);
    CHECK_EQ_INT(e.tolerance, 5);
    CHECK_EQ_INT(e.condition, EXPECT_IF_UARCH);
    CHECK_EQ_INT(e.uarch.n, 2);
    CHECK_EQ_STR(e.uarch.name[1], "Zen4");

    REQUIRE(parse("RDTSC=16 if icount=4", &e, error));
    CHECK_EQ_INT(e.value, 1600);
    CHECK_EQ_INT(e.tolerance, 0);
    CHECK_EQ_INT(e.condition, EXPECT_IF_ICOUNT);
    CHECK_EQ_INT(e.condition_arg, 4);

    REQUIRE(parse("Reference cycles=RDTSC~0.5 if tsc_invariant", &e, error));
    CHECK(e.value_is_event);
    CHECK_EQ_STR(e.value_event.name[0], "RDTSC");
    CHECK_EQ_INT(e.tolerance, 50);
    CHECK_EQ_INT(e.condition, EXPECT_IF_TSC_INVARIANT);

    REQUIRE(parse("X=-1.5", &e, error));
    CHECK_EQ_INT(e.value, -150);
}

NB_TEST(expect_parse_errors_say_why)
{
    static const struct {
        const char *text, *error;
    } cases[] = {
        { "RDTSC", "'RDTSC' has no '=' (EVENT=VALUE[~TOLERANCE][ if CONDITION])" },
        { "=1.00", "empty or too long event name (at most 79 characters)" },
        { "A|=1.00", "empty or too long event name (at most 79 characters)" },
        { "A=1.001", "bad value '1.001' (a number with at most 2 decimals, or event names)" },
        { "A=1x", "bad value '1x' (a number with at most 2 decimals, or event names)" },
        { "A=1~x", "bad tolerance after '~' (a number >= 0 with at most 2 decimals)" },
        { "A=1~-1", "bad tolerance after '~' (a number >= 0 with at most 2 decimals)" },
        { "A=1 if", "bad value '1 if' (a number with at most 2 decimals, or event names)" },
        { "A=1 if icount=11", "unknown condition 'icount=11' (icount=N with N 0..10, tsc_invariant or uarch=NAME)" },
        { "A=1 if sunny", "unknown condition 'sunny' (icount=N with N 0..10, tsc_invariant or uarch=NAME)" },
        { "A=", "empty or too long event name (at most 79 characters)" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct expectation e;
        char error[160] = "";
        nb_test_note("case %s", cases[i].text);
        CHECK(!parse(cases[i].text, &e, error));
        CHECK_EQ_STR(error, cases[i].error);
    }
}

/* The option parser validates -expect with the same grammar and bounds the count. */
NB_TEST(expect_option_accumulates_and_is_validated)
{
    struct bench_options o;
    struct option_error err;
    bench_options_init(&o);
    char *ok[] = { "-expect", "RDTSC=16.00 if icount=4", "-expect", "A=1", "-expect_restore",
                   "-qemu_icount", "4" };
    REQUIRE(bench_options_parse(&o, 7, ok, SCOPE_TARGET, &err) == NB_OK);
    CHECK_EQ_INT(o.n_expect, 2);
    CHECK_EQ_STR(o.expect[1], "A=1");
    CHECK(o.expect_restore);
    CHECK_EQ_INT(o.qemu_icount, 4);
    char *bad[] = { "-expect", "A=1.001" };
    CHECK(bench_options_parse(&o, 2, bad, SCOPE_TARGET, &err) == NB_EINVAL);
    CHECK_EQ_STR(err.message,
                 "option -expect: bad value '1.001' (a number with at most 2 decimals, or event names)");
    bench_options_init(&o);
    char *many[2 * (OPT_EXPECT_MAX + 1)];
    for (int i = 0; i <= OPT_EXPECT_MAX; i++) {
        many[2 * i] = "-expect";
        many[2 * i + 1] = "A=1";
    }
    CHECK(bench_options_parse(&o, 2 * (OPT_EXPECT_MAX + 1), many, SCOPE_TARGET, &err) == NB_EINVAL);
    CHECK_EQ_STR(err.message, "option -expect: more than 16 expectations for one benchmark");
}

static enum check_status eval(const char *text, const struct expect_facts *f, char *line)
{
    struct expectation e;
    char error[160], event[EXPECT_NAME_LEN];
    if (!parse(text, &e, error))
        return (enum check_status)-1;
    return expect_evaluate(&e, f, "b", line, EXPECT_LINE_MAX, event, sizeof(event));
}

NB_TEST(expect_evaluate_verdicts_and_reasons)
{
    static struct expect_values v;
    expect_values_reset(&v);
    expect_values_add(&v, "RDTSC", "32.00");
    expect_values_add(&v, "Instructions retired", "2.00");
    expect_values_add(&v, "INST_RETIRED.ANY_P", "2.00");
    expect_values_add(&v, "Core cycles", "2.04");
    expect_values_add(&v, "RAW", "3200"); /* -no_normalization prints whole numbers */
    struct expect_facts f = { &v, true, "", true, 4, 2, -1, "Skylake" };
    char line[EXPECT_LINE_MAX];

    CHECK_EQ_INT(eval("RDTSC=32.00 if icount=4", &f, line), CHECK_PASS);
    CHECK_EQ_STR(line, "PASS b: RDTSC = 32.00 (expected 32.00)");
    CHECK_EQ_INT(eval("RDTSC=31.99", &f, line), CHECK_FAIL);
    CHECK_EQ_STR(line, "FAIL b: RDTSC = 32.00, expected 31.99");
    CHECK_EQ_INT(eval("Core cycles=2.00~0.05", &f, line), CHECK_PASS);
    CHECK_EQ_STR(line, "PASS b: Core cycles = 2.04 (expected 2.00~0.05)");
    CHECK_EQ_INT(eval("Core cycles=2.00~0.03", &f, line), CHECK_FAIL);
    CHECK_EQ_STR(line, "FAIL b: Core cycles = 2.04, expected 2.00~0.03");
    CHECK_EQ_INT(eval("NOPE|INST_RETIRED.ANY_P=Instructions retired", &f, line), CHECK_PASS);
    CHECK_EQ_STR(line, "PASS b: INST_RETIRED.ANY_P = 2.00 (expected Instructions retired = 2.00)");
    CHECK_EQ_INT(eval("Core cycles=INST_RETIRED.ANY_P", &f, line), CHECK_FAIL);
    CHECK_EQ_STR(line, "FAIL b: Core cycles = 2.04, expected INST_RETIRED.ANY_P = 2.00");
    CHECK_EQ_INT(eval("RAW=3200", &f, line), CHECK_PASS);
    CHECK_EQ_INT(eval("CYCLES_NOT_IN_HALT=1", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: CYCLES_NOT_IN_HALT: event not measured on this CPU (CYCLES_NOT_IN_HALT)");
    CHECK_EQ_INT(eval("Core cycles=4 if uarch=IceLake|Zen4", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: Core cycles: value given for IceLake|Zen4, this is Skylake");

    /* Conditions. */
    f.icount = -1;
    CHECK_EQ_INT(eval("RDTSC=32.00 if icount=4", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: RDTSC: not under QEMU -icount 4 (real hardware)");
    f.icount = 3;
    CHECK_EQ_INT(eval("RDTSC=32.00 if icount=4", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: RDTSC: under QEMU -icount 3, not 4");
    f.tsc_invariant = false;
    CHECK_EQ_INT(eval("RDTSC=32.00 if tsc_invariant", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: RDTSC: TSC not invariant (CPUID.80000007H:EDX[8])");
    f.uarch = "";
    CHECK_EQ_INT(eval("Core cycles=4 if uarch=Zen4", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: Core cycles: microarchitecture not in cpu_map.txt (value given for Zen4)");

    /* No PMU: counter events are skipped, RDTSC is still checked. */
    f.pmu_usable = false;
    f.no_pmu_why = "CPUID.0AH reports version 0";
    CHECK_EQ_INT(eval("Core cycles=2.04", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: Core cycles: no PMU (CPUID.0AH reports version 0)");
    CHECK_EQ_INT(eval("RDTSC=Core cycles", &f, line), CHECK_SKIPPED);
    CHECK_EQ_INT(eval("RDTSC=32.00", &f, line), CHECK_PASS);

    /* -cpu N beyond the processors: skipped before anything else. */
    f.cpu = 1;
    f.n_cpus = 1;
    CHECK_EQ_INT(eval("RDTSC=32.00", &f, line), CHECK_SKIPPED);
    CHECK_EQ_STR(line, "SKIPPED b: RDTSC: one processor only (-cpu 1 needs 2 processors)");

    /* A benchmark error fails its checks, naming the error. */
    f.cpu = -1;
    expect_values_error(&v, "#UD at main code+0x0 (copy 1 of 1000, base run)");
    expect_values_error(&v, "a second error is not the first");
    CHECK_EQ_INT(eval("RDTSC=32.00", &f, line), CHECK_FAIL);
    CHECK_EQ_STR(line, "FAIL b: RDTSC: the benchmark reported an error: #UD at main code+0x0 "
                       "(copy 1 of 1000, base run)");
}

NB_TEST(selftest_summary_names_every_failure)
{
    struct selftest t;
    memset(&t, 0, sizeof(t));
    char line[EXPECT_LINE_MAX + SELFTEST_FAILED_MAX];
    selftest_summary(&t, line, sizeof(line));
    CHECK_EQ_STR(line, "selftest: PASS 0/0, 0 failed, 0 skipped");
    selftest_add(&t, CHECK_PASS, "a", "RDTSC");
    selftest_add(&t, CHECK_FAIL, "imul_chain", "Core cycles");
    selftest_add(&t, CHECK_SKIPPED, "a", "X");
    selftest_add(&t, CHECK_FAIL, "avx_chain", "RDTSC");
    selftest_summary(&t, line, sizeof(line));
    CHECK_EQ_STR(line, "selftest: PASS 1/4, 2 failed (imul_chain: Core cycles, avx_chain: RDTSC), 1 skipped");
    /* A list too long for the line ends in "...", never in a cut name alone. */
    for (int i = 0; i < 100; i++)
        selftest_add(&t, CHECK_FAIL, "benchmark_with_a_long_name", "Some long event name");
    selftest_summary(&t, line, sizeof(line));
    CHECK(strstr(line, "...), 1 skipped"));
    CHECK(strstr(line, "selftest: PASS 1/104, 102 failed (imul_chain: Core cycles, "));
}

/* ---- configs/selftest.suite on ideal machines ---- */

struct ideal_cpu {
    const char *uarch;
    bool intel;       /* fixed counters and Intel event names */
    /* Core cycles per instruction of each benchmark of the suite. */
    const char *cycles[8][2];
};

/* Latencies: the suite's comments give the sources. */
static const struct ideal_cpu IDEAL_SKYLAKE = {
    "Skylake", true,
    { { "add_chain", "1.00" }, { "imul_chain", "3.00" }, { "l1_load", "4.00" },
      { "avx_chain", "4.00" }, { "other_cpu", "1.00" } },
};
static const struct ideal_cpu IDEAL_ZEN4 = {
    "Zen4", false,
    { { "add_chain", "1.00" }, { "imul_chain", "3.00" }, { "l1_load", "4.00" },
      { "avx_chain", "3.00" }, { "other_cpu", "1.00" } },
};

/* What an ideal machine prints for one benchmark (TSC at the core clock). */
static void ideal_values(const struct ideal_cpu *cpu, const char *bench, struct expect_values *v,
                         const char *wrong_bench, const char *wrong_event, const char *wrong_value)
{
    const char *cycles = NULL;
    for (size_t i = 0; i < NB_ARRAY_SIZE(cpu->cycles) && cpu->cycles[i][0]; i++) {
        if (strcmp(cpu->cycles[i][0], bench) == 0)
            cycles = cpu->cycles[i][1];
    }
    REQUIRE(cycles);
    struct {
        const char *name, *value;
    } intel[] = { { "RDTSC", cycles }, { "Instructions retired", "1.00" },
                  { "Core cycles", cycles }, { "Reference cycles", cycles },
                  { "CPU_CLK_THREAD_UNHALTED.THREAD_P", cycles }, { "INST_RETIRED.ANY_P", "1.00" } },
      amd[] = { { "RDTSC", cycles }, { "MPERF", cycles }, { "APERF", cycles },
                { "CYCLES_NOT_IN_HALT", cycles }, { "RETIRED_INSTRUCTIONS", "1.00" } };
    expect_values_reset(v);
    size_t n = cpu->intel ? NB_ARRAY_SIZE(intel) : NB_ARRAY_SIZE(amd);
    for (size_t i = 0; i < n; i++) {
        const char *name = cpu->intel ? intel[i].name : amd[i].name;
        const char *value = cpu->intel ? intel[i].value : amd[i].value;
        if (wrong_bench && strcmp(bench, wrong_bench) == 0 && strcmp(name, wrong_event) == 0)
            value = wrong_value;
        expect_values_add(v, name, value);
    }
}

static char *read_suite(size_t *len)
{
    FILE *f = fopen("configs/selftest.suite", "rb");
    if (!f)
        return NULL;
    static char text[65536];
    *len = fread(text, 1, sizeof(text), f);
    fclose(f);
    return text;
}

/*
 * Evaluates every -expect of configs/selftest.suite on an ideal machine (with
 * one value made wrong, optionally); returns the summary, `lines` the checks.
 */
static void run_ideal(const struct ideal_cpu *cpu, unsigned n_cpus, const char *wrong_bench,
                      const char *wrong_event, const char *wrong_value, char *summary, size_t cap,
                      char *lines, size_t lines_cap)
{
    size_t len;
    char *text = read_suite(&len);
    REQUIRE(text);
    static uint8_t memory[1 << 20];
    struct nb_arena arena;
    nb_arena_init(&arena, memory, sizeof(memory));
    struct suite suite;
    REQUIRE(suite_parse(text, len, &arena, &suite) == NB_OK);
    static struct expect_values v;
    struct selftest t;
    memset(&t, 0, sizeof(t));
    size_t used = 0;
    lines[0] = '\0';
    for (size_t i = 0; i < suite.count; i++) {
        const struct suite_entry *e = &suite.entries[i];
        if (e->is_defaults)
            continue;
        struct bench_options o;
        struct option_error err;
        bench_options_init(&o);
        REQUIRE(!e->error);
        REQUIRE(bench_options_parse(&o, e->argc, e->argv, SCOPE_HOST | SCOPE_TARGET, &err) == NB_OK);
        ideal_values(cpu, e->name, &v, wrong_bench, wrong_event, wrong_value);
        struct expect_facts f = { &v, true, "", true, -1, n_cpus, o.cpu, cpu->uarch };
        for (unsigned k = 0; k < o.n_expect; k++) {
            struct expectation x;
            char line[EXPECT_LINE_MAX], event[EXPECT_NAME_LEN];
            REQUIRE(expect_parse(o.expect[k], &x, line, sizeof(line)));
            enum check_status st = expect_evaluate(&x, &f, e->name, line, sizeof(line), event,
                                                   sizeof(event));
            selftest_add(&t, st, e->name, event);
            used += snprintf(lines + used, lines_cap - used, "%s\n", line);
        }
    }
    selftest_summary(&t, summary, cap);
}

NB_TEST(selftest_suite_passes_on_an_ideal_skylake)
{
    static char summary[1024], lines[16384];
    run_ideal(&IDEAL_SKYLAKE, 2, NULL, NULL, NULL, summary, sizeof(summary), lines, sizeof(lines));
    /*
     * Every benchmark: RDTSC under icount SKIPPED (hardware). l1_load and
     * avx_chain: the other microarchitectures' value SKIPPED.
     */
    CHECK_EQ_STR(summary, "selftest: PASS 16/23, 0 failed, 7 skipped");
    CHECK(strstr(lines, "PASS add_chain: Reference cycles = 1.00 (expected RDTSC = 1.00~0.05)\n"));
    CHECK(strstr(lines, "PASS add_chain: Instructions retired = 1.00 (expected INST_RETIRED.ANY_P = 1.00)\n"));
    CHECK(strstr(lines, "PASS l1_load: Core cycles = 4.00 (expected 4.00~0.05)\n"));
    CHECK(strstr(lines, "SKIPPED l1_load: Core cycles: value given for IceLake|AlderLake-P|SapphireRapids, this is Skylake\n"));
    CHECK(strstr(lines, "PASS avx_chain: Core cycles = 4.00 (expected 4.00~0.05)\n"));
    CHECK(strstr(lines, "SKIPPED other_cpu: RDTSC: not under QEMU -icount 4 (real hardware)\n"));
    nb_test_note("%s", lines);
}

NB_TEST(selftest_suite_passes_on_an_ideal_zen4)
{
    static char summary[1024], lines[16384];
    run_ideal(&IDEAL_ZEN4, 2, NULL, NULL, NULL, summary, sizeof(summary), lines, sizeof(lines));
    /* As Skylake, and AMD has no fixed instruction counter; MPERF stands for reference cycles. */
    CHECK_EQ_STR(summary, "selftest: PASS 11/23, 0 failed, 12 skipped");
    CHECK(strstr(lines, "PASS imul_chain: CYCLES_NOT_IN_HALT = 3.00 (expected 3.00~0.05)\n"));
    CHECK(strstr(lines, "PASS avx_chain: CYCLES_NOT_IN_HALT = 3.00 (expected 3.00~0.05)\n"));
    CHECK(strstr(lines, "PASS add_chain: RETIRED_INSTRUCTIONS = 1.00 (expected 1.00)\n"));
    CHECK(strstr(lines, "SKIPPED add_chain: Instructions retired: event not measured on this CPU "
                        "(Instructions retired)\n"));
    CHECK(strstr(lines, "PASS add_chain: MPERF = 1.00 (expected RDTSC = 1.00~0.05)\n"));
    nb_test_note("%s", lines);
}

NB_TEST(selftest_suite_fails_naming_check_and_both_values)
{
    static char summary[1024], lines[16384];
    run_ideal(&IDEAL_SKYLAKE, 2, "imul_chain", "Core cycles", "2.00", summary, sizeof(summary),
              lines, sizeof(lines));
    CHECK_EQ_STR(summary, "selftest: PASS 15/23, 1 failed (imul_chain: Core cycles), 7 skipped");
    CHECK(strstr(lines, "FAIL imul_chain: Core cycles = 2.00, expected 3.00~0.05\n"));
    /* An instruction count is exact: 1.01 is a failure. */
    run_ideal(&IDEAL_ZEN4, 2, "add_chain", "RETIRED_INSTRUCTIONS", "1.01", summary, sizeof(summary),
              lines, sizeof(lines));
    CHECK_EQ_STR(summary, "selftest: PASS 10/23, 1 failed (add_chain: RETIRED_INSTRUCTIONS), 12 skipped");
    CHECK(strstr(lines, "FAIL add_chain: RETIRED_INSTRUCTIONS = 1.01, expected 1.00\n"));
    /* Fixed and programmable instruction counts disagree. */
    run_ideal(&IDEAL_SKYLAKE, 2, "l1_load", "Instructions retired", "1.02", summary, sizeof(summary),
              lines, sizeof(lines));
    CHECK(strstr(lines, "FAIL l1_load: Instructions retired = 1.02, expected INST_RETIRED.ANY_P = 1.00\n"));
}

NB_TEST(selftest_suite_one_processor_skips_other_cpu)
{
    static char summary[1024], lines[16384];
    run_ideal(&IDEAL_SKYLAKE, 1, NULL, NULL, NULL, summary, sizeof(summary), lines, sizeof(lines));
    CHECK_EQ_STR(summary, "selftest: PASS 13/23, 0 failed, 10 skipped");
    CHECK(strstr(lines, "SKIPPED other_cpu: Core cycles: one processor only (-cpu 1 needs 2 processors)\n"));
}
