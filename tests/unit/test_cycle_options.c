/*
 * test_cycle_options.c — -cycle_by_cycle and its options (bench_options.c):
 * nanoBench's defaults for the mode, what it refuses, -csv/-html on the host.
 */
#include "bench_options.h"
#include "nb_test.h"

#include <string.h>

static int parse(struct bench_options *o, unsigned scope, struct option_error *e, int argc, char **argv)
{
    int status = bench_options_parse(o, argc, argv, scope, e);
    return status == NB_OK ? bench_options_validate(o, e) : status;
}

#define ARGS(...) ((char *[]){ __VA_ARGS__ }), (int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *))
#define PARSE_WORDS(o, scope, e, ...) parse_words((o), (scope), (e), ARGS(__VA_ARGS__))
static int parse_words(struct bench_options *o, unsigned scope, struct option_error *e, char **argv, int argc)
{
    return parse(o, scope, e, argc, argv);
}

NB_TEST(cycle_options_defaults_of_the_mode)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-cycle_by_cycle"), NB_OK);
    CHECK(o.cycle_by_cycle && o.basic_mode && o.drain_frontend && o.no_normalization && !o.end_to_end);
    CHECK_EQ_INT(o.unroll_count, 1);
    CHECK_EQ_INT(o.aggregate, AGG_MEDIAN);
    /* given before or after, the user's -unroll_count and aggregate stay */
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-unroll_count", "4", "-min", "-cycle_by_cycle", "-end_to_end"), NB_OK);
    CHECK_EQ_INT(o.unroll_count, 4);
    CHECK_EQ_INT(o.aggregate, AGG_MIN);
    CHECK(o.end_to_end);
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-cycle_by_cycle", "-unroll_count", "3"), NB_OK);
    CHECK_EQ_INT(o.unroll_count, 3);
}

NB_TEST(cycle_options_refused)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-cycle_by_cycle", "-fixed_counters"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -fixed_counters is not available with -cycle_by_cycle");
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-msr_config", "m.txt", "-cycle_by_cycle"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -msr_config is not available with -cycle_by_cycle");
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-end_to_end"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -end_to_end only applies to -cycle_by_cycle");
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_HOST, &e, "-csv", "out.csv"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -csv only applies to -cycle_by_cycle");
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_HOST | SCOPE_TARGET, &e, "-cycle_by_cycle", "-html"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -html needs a value");
    /* -csv and -html are the host's: the image does not take them */
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_TARGET, &e, "-cycle_by_cycle", "-csv", "x.csv"), NB_EINVAL);
    bench_options_init(&o);
    CHECK_EQ_INT(PARSE_WORDS(&o, SCOPE_HOST | SCOPE_TARGET, &e, "-cycle_by_cycle", "-csv", "a.csv", "-html", "a.html"), NB_OK);
    CHECK_EQ_STR(o.cycles_csv_path, "a.csv");
    CHECK_EQ_STR(o.cycles_html_path, "a.html");
}
