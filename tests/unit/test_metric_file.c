/*
 * test_metric_file.c — the metric expression evaluator (pmu/metric_expr.h)
 * and metric files (pmu/metric_file.h): grammar, n/a propagation, safe
 * division, errors with file:line, groups and their inputs.
 */
#include <stdio.h>
#include <string.h>

#include "metric_file.h"
#include "nb_test.h"

struct errors {
    char text[8][200];
    unsigned n;
};

static void on_error(void *arg, const char *message)
{
    struct errors *e = arg;
    if (e->n < 8)
        snprintf(e->text[e->n], sizeof(e->text[0]), "%s", message);
    e->n++;
}

/* Inputs: A=6, B=3, ZERO=0, RDTSC=32, tsc_hz=1e9; anything else is unknown ("not measured"). */
static struct metric_value input(void *arg, const struct metric_ident *id)
{
    (void)arg;
    static const struct {
        const char *name;
        double v;
    } known[] = { { "A", 6 }, { "B", 3 }, { "ZERO", 0 }, { "RDTSC", 32 }, { "tsc_hz", 1e9 },
                  { "MEM_LOAD_RETIRED.L1_MISS", 10 } };
    for (size_t i = 0; i < NB_ARRAY_SIZE(known); i++)
        if (strcmp(id->name, known[i].name) == 0)
            return (struct metric_value){ true, known[i].v, NULL };
    return (struct metric_value){ false, 0, "not measured" };
}

static bool load(const char *text, struct metric_file *f, struct errors *e)
{
    memset(e, 0, sizeof(*e));
    return metric_file_parse(text, strlen(text), "m.txt", f, on_error, e);
}

/* Value of metric `name` as "%.4f", or "n/a (why)". */
static const char *value_of(const struct metric_file *f, const char *name, char *buf, size_t cap)
{
    int m = metric_file_find(f, name);
    if (m < 0)
        return "no such metric";
    struct metric_value v = metric_file_eval(f, (unsigned)m, input, NULL);
    if (v.known)
        snprintf(buf, cap, "%.4f", v.v);
    else
        snprintf(buf, cap, "n/a (%s)", v.why);
    return buf;
}

NB_TEST(metric_expr_arithmetic)
{
    static struct metric_file f;
    struct errors e;
    char b[64];
    REQUIRE(load("X = 1 + 2 * 3\n"
                 "Y = (1 + 2) * 3\n"
                 "Z = 10 - 4 - 3\n"
                 "W = 8 / 4 / 2\n"
                 "N = -A + -(-B)\n"
                 "M = min(A, B) + max(A, B, 10)\n"
                 "E = 2.5e3 / 1e-1\n"
                 "R = A / B\n"
                 "D = X / Y + R\n",
                 &f, &e));
    CHECK_EQ_INT(e.n, 0);
    CHECK_EQ_STR(value_of(&f, "X", b, sizeof(b)), "7.0000");
    CHECK_EQ_STR(value_of(&f, "Y", b, sizeof(b)), "9.0000");
    CHECK_EQ_STR(value_of(&f, "Z", b, sizeof(b)), "3.0000");
    CHECK_EQ_STR(value_of(&f, "W", b, sizeof(b)), "1.0000");
    CHECK_EQ_STR(value_of(&f, "N", b, sizeof(b)), "-3.0000");
    CHECK_EQ_STR(value_of(&f, "M", b, sizeof(b)), "13.0000");
    CHECK_EQ_STR(value_of(&f, "E", b, sizeof(b)), "25000.0000");
    CHECK_EQ_STR(value_of(&f, "R", b, sizeof(b)), "2.0000");
    CHECK_EQ_STR(value_of(&f, "D", b, sizeof(b)), "2.7778"); /* 7/9 + 2 */
}

NB_TEST(metric_expr_na_and_safe_division)
{
    static struct metric_file f;
    struct errors e;
    char b[64];
    REQUIRE(load("Q = A / ZERO\n"
                 "U = A + UNKNOWN_EVENT\n"
                 "V = U * 2\n"
                 "C = issue_width * 2\n"
                 "const peak_flop_per_cycle = 16\n"
                 "P = peak_flop_per_cycle / 4\n"
                 "T = RDTSC / tsc_hz * 1e9\n"
                 "L = MEM_LOAD_RETIRED.L1_MISS / 5\n",
                 &f, &e));
    CHECK_EQ_INT(e.n, 0);
    CHECK_EQ_STR(value_of(&f, "Q", b, sizeof(b)), "n/a (division by zero)");
    CHECK_EQ_STR(value_of(&f, "U", b, sizeof(b)), "n/a (not measured)");
    CHECK_EQ_STR(value_of(&f, "V", b, sizeof(b)), "n/a (not measured)");
    CHECK_EQ_STR(value_of(&f, "C", b, sizeof(b)), "n/a (not measured)");
    CHECK_EQ_STR(value_of(&f, "P", b, sizeof(b)), "4.0000");
    CHECK_EQ_STR(value_of(&f, "T", b, sizeof(b)), "32.0000");
    CHECK_EQ_STR(value_of(&f, "L", b, sizeof(b)), "2.0000");
}

NB_TEST(metric_file_groups_and_inputs)
{
    static struct metric_file f;
    struct errors e;
    REQUIRE(load("# comment\n"
                 "config cfg_Test_common.txt cfg_Test_all.txt\n"
                 "\n"
                 "IPC = A / B   # trailing comment\n"
                 "CPI = 1 / IPC\n"
                 "TSC_PI = RDTSC / INST\n"
                 "group cpi: CPI IPC TSC_PI\n"
                 "group other: IPC\n",
                 &f, &e));
    CHECK_EQ_INT(e.n, 0);
    CHECK_EQ_INT(f.n_configs, 2);
    CHECK_EQ_STR(f.configs[1], "cfg_Test_all.txt");
    int g = metric_file_group(&f, "cpi");
    REQUIRE(g >= 0);
    CHECK_EQ_INT(f.groups[g].n, 3);
    CHECK_EQ_INT(metric_file_group(&f, "none"), -1);
    /* The events group cpi needs, through CPI -> IPC: A, B, INST (RDTSC is not an event). */
    bool need[METRIC_IDENT_MAX] = { false };
    metric_file_group_inputs(&f, (unsigned)g, need);
    char names[200] = "";
    for (unsigned i = 0; i < f.n_idents; i++)
        if (need[i] && f.idents[i].kind == METRIC_ID_EVENT) {
            strcat(names, f.idents[i].name);
            strcat(names, " ");
        }
    CHECK_EQ_STR(names, "A B INST ");
}

NB_TEST(metric_file_errors_name_file_and_line)
{
    static struct metric_file f;
    struct errors e;
    CHECK(!load("X = 1\n"
                "Y = (2\n"
                "Z = foo(1)\n"
                "X = 3\n"
                "group g: X NOPE\n"
                "W = 1 $ 2\n"
                "just words\n"
                "V = 1 +\n",
                &f, &e));
    CHECK_EQ_INT(e.n, 7);
    CHECK_EQ_STR(e.text[0], "m.txt:2: expected ')' at end of expression");
    CHECK_EQ_STR(e.text[1], "m.txt:3: unknown function 'foo' (min and max exist)");
    CHECK_EQ_STR(e.text[2], "m.txt:4: metric X is already defined (line 1)");
    CHECK_EQ_STR(e.text[3], "m.txt:6: unexpected character '$'");
    CHECK_EQ_STR(e.text[4], "m.txt:7: expected NAME = EXPR, na NAME: REASON, group NAME: METRIC..., "
                            "const NAME = NUMBER or config FILE...");
    CHECK_EQ_STR(e.text[5], "m.txt:8: expected a number, name or '(' at end of expression");
    /* Group members are checked once every metric is known. */
    CHECK_EQ_STR(e.text[6], "m.txt:5: group g: no metric NOPE");
}

NB_TEST(metric_file_cycle_is_an_error)
{
    static struct metric_file f;
    struct errors e;
    CHECK(!load("A1 = B1 + 1\nB1 = C1\nC1 = A1\n", &f, &e));
    CHECK_EQ_INT(e.n, 1);
    CHECK_EQ_STR(e.text[0], "m.txt:1: metric A1 depends on itself (A1 -> B1 -> C1 -> A1)");
}

/* "na NAME: REASON": a metric this CPU cannot compute, n/a with that reason (never a number). */
NB_TEST(metric_file_na_states_the_reason)
{
    static struct metric_file f;
    struct errors e;
    char b[200];
    REQUIRE(load("na FP_SPEED: no FLOP-count event on Gracemont (section 1b)   # comment\n"
                 "X = FP_SPEED * 2 + A\n"
                 "Y = A / B\n"
                 "group g: FP_SPEED X Y\n",
                 &f, &e));
    CHECK_EQ_INT(e.n, 0);
    CHECK_EQ_STR(value_of(&f, "FP_SPEED", b, sizeof(b)), "n/a (no FLOP-count event on Gracemont (section 1b))");
    CHECK_EQ_STR(value_of(&f, "X", b, sizeof(b)), "n/a (no FLOP-count event on Gracemont (section 1b))");
    CHECK_EQ_STR(value_of(&f, "Y", b, sizeof(b)), "2.0000");
    /* It needs no inputs: only A and B are events of the group. */
    bool need[METRIC_IDENT_MAX] = { false };
    metric_file_group_inputs(&f, 0, need);
    char names[200] = "";
    for (unsigned i = 0; i < f.n_idents; i++)
        if (need[i] && f.idents[i].kind == METRIC_ID_EVENT) {
            strcat(names, f.idents[i].name);
            strcat(names, " ");
        }
    CHECK_EQ_STR(names, "A B ");
}

NB_TEST(metric_file_na_errors)
{
    static struct metric_file f;
    struct errors e;
    CHECK(!load("Y = 1\n"
                "na Y: twice\n"
                "na Z:\n"
                "na : why\n"
                "na W why\n"
                "na V: 0123456789012345678901234567890123456789012345678901234567890123456789"
                "0123456789012345678901234567890123456789012345678901234567890123456789\n"
                "na RDTSC: x\n",
                &f, &e));
    CHECK_EQ_INT(e.n, 6);
    CHECK_EQ_STR(e.text[0], "m.txt:2: metric Y is already defined (line 1)");
    CHECK_EQ_STR(e.text[1], "m.txt:3: na Z: the reason is missing");
    CHECK_EQ_STR(e.text[2], "m.txt:4: expected na NAME: REASON");
    CHECK_EQ_STR(e.text[3], "m.txt:5: expected na NAME: REASON");
    CHECK_EQ_STR(e.text[4], "m.txt:6: na V: reason too long (at most 127 characters)");
    CHECK_EQ_STR(e.text[5], "m.txt:7: RDTSC is a built-in name, not a metric (use const for constants)");
}
