/*
 * test_options.c — bench_options: nanoBench's defaults, the abbreviation rule,
 * value checks and the exact error messages.
 */
#include "bench_options.h"
#include "nb_test.h"

#include <stdio.h>
#include <string.h>

/* Parses the given words on top of *o; the message lands in err.message. */
#define PARSE(o, scope, err, ...)                                                            \
    ({                                                                                       \
        char *argv_[] = { __VA_ARGS__ };                                                     \
        bench_options_parse((o), (int)NB_ARRAY_SIZE(argv_), argv_, (scope), (err));          \
    })

/* Expects the words to be rejected with exactly this message. */
#define REJECTS(scope, want, ...)                                                         \
    do {                                                                                     \
        struct bench_options o_;                                                             \
        struct option_error e_;                                                              \
        bench_options_init(&o_);                                                             \
        strcpy(e_.message, "(no message)");                                                  \
        CHECK_EQ_INT(PARSE(&o_, (scope), &e_, __VA_ARGS__), NB_EINVAL);                      \
        CHECK_EQ_STR(e_.message, want);                                                      \
    } while (0)

#define HOST SCOPE_HOST
#define TARGET SCOPE_TARGET

NB_TEST(options_defaults_are_nanobench_defaults)
{
    struct bench_options o;
    memset(&o, 0x5A, sizeof(o));
    bench_options_init(&o);
    CHECK_EQ_INT(o.n_measurements, 10);
    CHECK_EQ_INT(o.unroll_count, 1000);
    CHECK_EQ_INT(o.loop_count, 0);
    CHECK_EQ_INT(o.warm_up_count, 5);
    CHECK_EQ_INT(o.initial_warm_up_count, 0);
    CHECK_EQ_INT(o.alignment_offset, 0);
    CHECK_EQ_INT(o.aggregate, AGG_AVG);
    CHECK(!o.basic_mode && !o.no_normalization && !o.drain_frontend && !o.verbose);
    CHECK_EQ_INT(o.finish, NB_FINISH_SHUTDOWN);
    CHECK(!o.finish_set);
    CHECK_EQ_INT(o.icount, -1);
    for (int p = 0; p < PART_COUNT; p++)
        CHECK(o.asm_text[p] == NULL && o.code_path[p] == NULL);
    CHECK(o.suite_path == NULL && o.image_path == NULL && o.results_dir == NULL);
}

NB_TEST(options_full_names)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-n_measurements", "20", "-unroll_count", "0x10",
                       "-loop_count", "3", "-warm_up_count", "0", "-initial_warm_up_count", "2",
                       "-alignment_offset", "4095", "-median", "-basic_mode",
                       "-no_normalization", "-df", "-verbose", "-code", "m.bin", "-code_init",
                       "i.bin", "-code_late_init", "l.bin", "-code_one_time_init", "o.bin"),
                 NB_OK);
    CHECK_EQ_INT(o.n_measurements, 20);
    CHECK_EQ_INT(o.unroll_count, 16);
    CHECK_EQ_INT(o.loop_count, 3);
    CHECK_EQ_INT(o.warm_up_count, 0);
    CHECK_EQ_INT(o.initial_warm_up_count, 2);
    CHECK_EQ_INT(o.alignment_offset, 4095);
    CHECK_EQ_INT(o.aggregate, AGG_MEDIAN);
    CHECK(o.basic_mode && o.no_normalization && o.drain_frontend && o.verbose);
    CHECK_EQ_STR(o.code_path[PART_MAIN], "m.bin");
    CHECK_EQ_STR(o.code_path[PART_INIT], "i.bin");
    CHECK_EQ_STR(o.code_path[PART_LATE_INIT], "l.bin");
    CHECK_EQ_STR(o.code_path[PART_ONE_TIME_INIT], "o.bin");
}

NB_TEST(options_unique_prefix_abbreviations)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-unr", "7", "-l", "3", "-w", "2", "-i", "4", "-al",
                       "5", "-n_", "6", "-no_n", "-d", "-v", "-b", "-fin", "exit", "-code_o",
                       "once.bin", "-code_l", "late.bin"),
                 NB_OK);
    CHECK_EQ_INT(o.unroll_count, 7);
    CHECK_EQ_INT(o.loop_count, 3);
    CHECK_EQ_INT(o.warm_up_count, 2);
    CHECK_EQ_INT(o.initial_warm_up_count, 4);
    CHECK_EQ_INT(o.alignment_offset, 5);
    CHECK_EQ_INT(o.n_measurements, 6);
    CHECK(o.no_normalization && o.drain_frontend && o.verbose && o.basic_mode);
    CHECK_EQ_INT(o.finish, NB_FINISH_EXIT);
    CHECK_EQ_STR(o.code_path[PART_ONE_TIME_INIT], "once.bin");
    CHECK_EQ_STR(o.code_path[PART_LATE_INIT], "late.bin");

    static const struct {
        const char *word;
        enum aggregate agg;
    } aggs[] = { { "-me", AGG_MEDIAN }, { "-mi", AGG_MIN }, { "-ma", AGG_MAX }, { "-av", AGG_AVG } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(aggs); i++) {
        bench_options_init(&o);
        o.aggregate = (enum aggregate)99;
        CHECK_EQ_INT(PARSE(&o, TARGET, &e, (char *)aggs[i].word), NB_OK);
        CHECK_EQ_INT(o.aggregate, aggs[i].agg);
    }
}

NB_TEST(options_ambiguous_prefix_lists_candidates)
{
    REJECTS(TARGET, "option -no is ambiguous (-no_normalization, -no_mem)", "-no");
    REJECTS(TARGET, "option -m is ambiguous (-median, -min, -max, -msr_config, -metrics, -mica, -mica_max_instructions)", "-m");
    /* Too many to list: whole names, then how many more. */
    REJECTS(HOST, "option -m is ambiguous (-median, -min, -max, -msr_config, -metrics, -mica, "
                  "-mica_max_instructions, -mica_interval and 4 more)", "-m");
    REJECTS(TARGET, "option -a is ambiguous (-alignment_offset, -avg)", "-a");
    REJECTS(TARGET,
            "option -c is ambiguous (-code, -code_init, -code_late_init, -code_one_time_init, "
            "-config, -calibrate, -cpu)",
            "-c", "x");
    REJECTS(TARGET, "option -fi is ambiguous (-fixed_counters, -finish)", "-fi", "exit");
    REJECTS(TARGET, "option -code_ is ambiguous (-code_init, -code_late_init, -code_one_time_init)",
            "-code_", "x");
    /* The host knows more options, so more prefixes are ambiguous there. */
    REJECTS(HOST, "option -pl is ambiguous (-plan, -plan_cpu)", "-pl");
    REJECTS(HOST,
            "option -a is ambiguous (-asm, -asm_init, -asm_late_init, -asm_one_time_init, "
            "-alignment_offset, -avg)",
            "-a");
    REJECTS(HOST, "option -r is ambiguous (-range, -remove_empty_events, -r14_size, -rdi_size, -rsi_size, -rbp_size, -rsp_size, -results)", "-r");
    REJECTS(HOST, "option -as is ambiguous (-asm, -asm_init, -asm_late_init, -asm_one_time_init)",
            "-as", "x");
}

/* nanoBench's short forms mean what they mean there, although our options make them ambiguous. */
NB_TEST(options_nanobench_short_forms_win)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-f", "-re", "-n", "7", "-i", "3"), NB_OK);
    CHECK(o.fixed_counters);
    CHECK(o.remove_empty_events);
    CHECK_EQ_INT(o.n_measurements, 7);
    CHECK_EQ_INT(o.initial_warm_up_count, 3);
    /* -l is -loop_count, as in nanoBench, although -lava_results also starts with l. */
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-l", "9", "-lava_results"), NB_OK);
    CHECK_EQ_INT(o.loop_count, 9);
    CHECK(o.lava_results);
    /* -usr/-os take nanoBench's 0 or 1 and change nothing: ring 0 code, both rings counted. */
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-usr", "1", "-os", "0"), NB_OK);
    REJECTS(TARGET, "option -usr: 2 is out of range (0..1)", "-usr", "2");
}

NB_TEST(options_exact_name_beats_prefix)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-asm", "ADD RAX, RBX", "-code_init", "i.bin"), NB_OK);
    CHECK_EQ_STR(o.asm_text[PART_MAIN], "ADD RAX, RBX");
    CHECK(o.asm_text[PART_INIT] == NULL);
    CHECK_EQ_STR(o.code_path[PART_INIT], "i.bin");

    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-code", "main.bin"), NB_OK);
    CHECK_EQ_STR(o.code_path[PART_MAIN], "main.bin");
    CHECK(o.code_path[PART_INIT] == NULL && o.code_path[PART_LATE_INIT] == NULL);

    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-min"), NB_OK);
    CHECK_EQ_INT(o.aggregate, AGG_MIN);

    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-plan"), NB_OK); /* not ambiguous with -plan_cpu */
    CHECK(o.plan && o.plan_cpu == NULL);
}

NB_TEST(options_counter_options)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK(o.config_path == NULL && !o.fixed_counters && !o.remove_empty_events);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-config", "configs/skl.txt", "-fix", "-rem"), NB_OK);
    CHECK_EQ_STR(o.config_path, "configs/skl.txt");
    CHECK(o.fixed_counters && o.remove_empty_events);
    REJECTS(TARGET, "option -config needs a value", "-config");
    REJECTS(TARGET, "option -config: empty value", "-config", "");
    REJECTS(TARGET, "option -plan is only understood by the host tool (tools/nanobench)", "-plan");
}

NB_TEST(options_unknown_missing_and_bad_values)
{
    REJECTS(TARGET, "unknown option -foo", "-foo");
    REJECTS(TARGET, "unknown option -unroll_countx", "-unroll_countx", "5");
    REJECTS(TARGET, "unknown option -ima", "-ima", "x"); /* host-only prefixes do not count */
    REJECTS(TARGET, "option -unroll_count needs a value", "-unroll_count");
    REJECTS(TARGET, "option -unroll_count needs a value", "-unr");
    REJECTS(TARGET, "option -code needs a value", "-code");
    REJECTS(TARGET, "option -finish needs a value", "-finish");
    REJECTS(TARGET, "option -unroll_count: 'abc' is not a whole number", "-unroll_count", "abc");
    REJECTS(TARGET, "option -loop_count: '10x' is not a whole number", "-l", "10x");
    REJECTS(TARGET, "option -n_measurements: '1.5' is not a whole number", "-n_measurements",
            "1.5");
    REJECTS(TARGET, "option -warm_up_count: '' is not a whole number", "-warm_up_count", "");
    REJECTS(TARGET, "option -code: empty value", "-code", "");
    REJECTS(TARGET, "unexpected argument '100' (options start with '-')", "100");
    REJECTS(TARGET, "unexpected argument '-' (options start with '-')", "-");
    REJECTS(TARGET, "option --unroll_count: options take a single dash (nanoBench style)",
            "--unroll_count", "5");
}

NB_TEST(options_out_of_range)
{
    REJECTS(TARGET, "option -unroll_count: 0 is out of range (1..2147483647)", "-unroll_count", "0");
    REJECTS(TARGET, "option -unroll_count: 0 is out of range (1..2147483647)", "-unr", "0");
    REJECTS(TARGET, "option -unroll_count: 2147483648 is out of range (1..2147483647)",
            "-unroll_count", "2147483648");
    REJECTS(TARGET, "option -n_measurements: 0 is out of range (1..1000000)", "-n_measurements", "0");
    REJECTS(TARGET, "option -n_measurements: 1000001 is out of range (1..1000000)",
            "-n_measurements", "1000001");
    REJECTS(TARGET, "option -loop_count: -1 is out of range (0..2147483647)", "-loop_count", "-1");
    REJECTS(TARGET, "option -warm_up_count: -5 is out of range (0..2147483647)", "-w", "-5");
    REJECTS(TARGET, "option -initial_warm_up_count: -1 is out of range (0..2147483647)",
            "-initial_warm_up_count", "-1");
    REJECTS(TARGET, "option -alignment_offset: 5000 is out of range (0..4095)",
            "-alignment_offset", "5000");
    REJECTS(HOST, "option -icount: 11 is out of range (0..10)", "-icount", "11");
    /* Too many digits for 64 bits is still a number, only far out of range. */
    REJECTS(TARGET, "option -n_measurements: 99999999999999999999999 is out of range (1..1000000)",
            "-n_measurements", "99999999999999999999999");
    REJECTS(TARGET, "option -loop_count: -99999999999999999999999 is out of range (0..2147483647)",
            "-loop_count", "-99999999999999999999999");
    REJECTS(TARGET, "option -unroll_count: 0x10000000000000000 is out of range (1..2147483647)",
            "-unroll_count", "0x10000000000000000");
    REJECTS(TARGET, "option -unroll_count: '99999999999999999999999x' is not a whole number",
            "-unroll_count", "99999999999999999999999x");
    REJECTS(TARGET, "option -unroll_count: '0x' is not a whole number", "-unroll_count", "0x");
    REJECTS(TARGET, "option -unroll_count: '-' is not a whole number", "-unroll_count", "-");

    /* The bounds themselves are accepted. */
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-unroll_count", "2147483647", "-n_measurements", "1000000",
                       "-loop_count", "0", "-alignment_offset", "0"),
                 NB_OK);
    CHECK_EQ_INT(o.unroll_count, 2147483647);
    CHECK_EQ_INT(o.n_measurements, 1000000);
}

NB_TEST(options_host_only_rejected_on_target)
{
    REJECTS(TARGET,
            "option -asm is only understood by the host tool (tools/nanobench); on the image use "
            "the -code variant with a binary file",
            "-asm", "ADD RAX, RBX");
    REJECTS(TARGET,
            "option -asm_init is only understood by the host tool (tools/nanobench); on the image "
            "use the -code variant with a binary file",
            "-asm_init", "MOV RAX, R14");
    REJECTS(TARGET, "option -suite is only understood by the host tool (tools/nanobench)", "-suite",
            "s.nb");
    REJECTS(TARGET, "option -icount is only understood by the host tool (tools/nanobench)",
            "-icount", "4");

    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-suite", "s.nb", "-image", "o.img", "-results", "r",
                       "-icount", "4", "-asm_late_init", "NOP"),
                 NB_OK);
    CHECK_EQ_STR(o.suite_path, "s.nb");
    CHECK_EQ_STR(o.image_path, "o.img");
    CHECK_EQ_STR(o.results_dir, "r");
    CHECK_EQ_INT(o.icount, 4);
    CHECK_EQ_STR(o.asm_text[PART_LATE_INIT], "NOP");
}

NB_TEST(options_finish_values)
{
    static const struct {
        const char *word;
        enum nb_finish_action action;
    } cases[] = { { "shutdown", NB_FINISH_SHUTDOWN }, { "reboot", NB_FINISH_REBOOT },
                  { "exit", NB_FINISH_EXIT } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct bench_options o;
        struct option_error e;
        bench_options_init(&o);
        CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-finish", (char *)cases[i].word), NB_OK);
        CHECK_EQ_INT(o.finish, cases[i].action);
        CHECK(o.finish_set);
        CHECK_EQ_STR(finish_action_name(cases[i].action), cases[i].word);
    }
    REJECTS(TARGET, "option -finish: 'halt' is not one of shutdown, reboot, exit", "-finish", "halt");
    REJECTS(TARGET, "option -finish: 'Reboot' is not one of shutdown, reboot, exit", "-finish",
            "Reboot");
    REJECTS(TARGET, "option -finish: '' is not one of shutdown, reboot, exit", "-finish", "");
    CHECK_EQ_STR(finish_action_name((enum nb_finish_action)7), "?");
}

NB_TEST(options_validate_asm_and_code_for_same_part)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-asm", "NOP", "-code_init", "i.bin", "-asm_late_init", "NOP",
                       "-code_one_time_init", "o.bin"),
                 NB_OK);
    CHECK_EQ_INT(bench_options_validate(&o, &e), NB_OK);

    static const struct {
        const char *asm_opt, *code_opt;
    } parts[] = { { "-asm", "-code" }, { "-asm_init", "-code_init" },
                  { "-asm_late_init", "-code_late_init" },
                  { "-asm_one_time_init", "-code_one_time_init" } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(parts); i++) {
        bench_options_init(&o);
        CHECK_EQ_INT(PARSE(&o, HOST, &e, (char *)parts[i].asm_opt, "NOP",
                           (char *)parts[i].code_opt, "x.bin"),
                     NB_OK);
        char want[200];
        snprintf(want, sizeof(want), "options %s and %s cannot be used together", parts[i].asm_opt,
                 parts[i].code_opt);
        CHECK_EQ_INT(bench_options_validate(&o, &e), NB_EINVAL);
        CHECK_EQ_STR(e.message, want);
    }
}

NB_TEST(options_later_options_override_earlier_ones)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-unroll_count", "5", "-median", "-code", "a.bin",
                       "-finish", "reboot"),
                 NB_OK);
    /* A second parse on the same struct, like a benchmark line after its defaults. */
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-unr", "7", "-min", "-code", "b.bin"), NB_OK);
    CHECK_EQ_INT(o.unroll_count, 7);
    CHECK_EQ_INT(o.aggregate, AGG_MIN);
    CHECK_EQ_STR(o.code_path[PART_MAIN], "b.bin");
    CHECK_EQ_INT(o.finish, NB_FINISH_REBOOT); /* untouched by the second parse */
    CHECK(o.finish_set);
    CHECK_EQ_INT(o.n_measurements, 10);
}

NB_TEST(options_part_names)
{
    static const struct {
        enum code_part part;
        const char *asm_opt, *code_opt, *name;
    } cases[] = {
        { PART_ONE_TIME_INIT, "-asm_one_time_init", "-code_one_time_init", "one-time init" },
        { PART_INIT, "-asm_init", "-code_init", "init" },
        { PART_LATE_INIT, "-asm_late_init", "-code_late_init", "late init" },
        { PART_MAIN, "-asm", "-code", "main code" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        CHECK_EQ_STR(code_part_asm_option(cases[i].part), cases[i].asm_opt);
        CHECK_EQ_STR(code_part_code_option(cases[i].part), cases[i].code_opt);
        CHECK_EQ_STR(code_part_name(cases[i].part), cases[i].name);
    }
}

NB_TEST(options_cpu_config_and_mem_options)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(o.cpu, -1);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-cpu", "3", "-config", "c.cfg", "-msr_config", "m.msr",
                       "-fixed", "-no_m", "-rem"),
                 NB_OK);
    CHECK_EQ_INT(o.cpu, 3);
    CHECK_EQ_STR(o.config_path, "c.cfg");
    CHECK_EQ_STR(o.msr_config_path, "m.msr");
    CHECK(o.fixed_counters && o.no_mem && o.remove_empty_events);
    REJECTS(TARGET, "option -cpu: -1 is out of range (0..4095)", "-cpu", "-1");
    REJECTS(TARGET, "option -cpu: 4096 is out of range (0..4095)", "-cpu", "4096");
    REJECTS(TARGET, "option -plan is only understood by the host tool (tools/nanobench)", "-plan");
}

/*
 * -mica (issue 9): a comma list of MICA's analyses or `all`, checked on
 * host and image; the analysis settings are the host's (tools/nb_mica);
 * the image bounds the trace with -mica_max_instructions.
 */
NB_TEST(options_mica)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK(o.mica == NULL);
    CHECK_EQ_U64(o.mica_max_instructions, 10000000);
    CHECK_EQ_INT(PARSE(&o, TARGET, &e, "-mica", "itypes,ilp,memstackdist", "-mica_max_instructions", "5000"), NB_OK);
    CHECK_EQ_STR(o.mica, "itypes,ilp,memstackdist");
    CHECK_EQ_U64(o.mica_max_instructions, 5000);
    CHECK_EQ_INT(PARSE(&o, HOST, &e, "-mica", "all", "-mica_interval", "1000", "-mica_ilp_size", "64",
                       "-mica_block_size", "7", "-mica_page_size", "13", "-mica_itypes", "my.spec"), NB_OK);
    CHECK_EQ_STR(o.mica, "all");
    CHECK_EQ_U64(o.mica_interval, 1000);
    CHECK_EQ_U64(o.mica_ilp_size, 64);
    CHECK_EQ_U64(o.mica_block_size, 7);
    CHECK_EQ_U64(o.mica_page_size, 13);
    CHECK_EQ_STR(o.mica_itypes, "my.spec");
    REJECTS(TARGET, "option -mica: 'itype' is not an analysis (all, itypes, ilp, ilp_one, reg, stride, "
                    "memfootprint, memstackdist, fullmemstackdist, ppm)", "-mica", "ilp,itype");
    REJECTS(TARGET, "option -mica: '' is not an analysis (all, itypes, ilp, ilp_one, reg, stride, "
                    "memfootprint, memstackdist, fullmemstackdist, ppm)", "-mica", "ilp,,ppm");
    REJECTS(TARGET, "option -mica_max_instructions: 0 is out of range (1..1000000000)",
            "-mica_max_instructions", "0");
    /* The analysis settings are the host's. */
    REJECTS(TARGET, "option -mica_interval is only understood by the host tool (tools/nanobench)",
            "-mica_interval", "1000");
}
