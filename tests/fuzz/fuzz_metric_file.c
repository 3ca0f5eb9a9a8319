/*
 * fuzz_metric_file.c — libFuzzer target for metric files
 * (pmu/metric_file.h, pmu/metric_expr.h), read from the image.
 *
 * Input: the whole input is a metric file. After parsing, every metric is
 * evaluated with every input known (value 3) and again with every input
 * unknown.
 *
 * Invariants (a failure traps): every error message is non-empty, starts
 * with "f.txt:" and fits its buffer; counts stay within their limits; every
 * identifier an expression uses exists; a group member is a metric; a value
 * is known only when it is finite; with unknown inputs a metric that uses
 * an event is never known; an `na` metric is never known and says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "metric_file.h"

static void on_error(void *arg, const char *message)
{
    (void)arg;
    FUZZ_CHECK(message != NULL && strncmp(message, "f.txt:", 6) == 0);
    FUZZ_CHECK(strlen(message) < 240);
}

static struct metric_value known(void *arg, const struct metric_ident *id)
{
    (void)arg;
    (void)id;
    return (struct metric_value){ true, 3, NULL };
}

static struct metric_value unknown(void *arg, const struct metric_ident *id)
{
    (void)arg;
    (void)id;
    return (struct metric_value){ false, 0, "unknown" };
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct metric_file *f = malloc(sizeof(*f));
    if (!f)
        abort();
    metric_file_parse((const char *)data, size, "f.txt", f, on_error, NULL);
    FUZZ_CHECK(f->n_metrics <= METRIC_MAX && f->n_idents <= METRIC_IDENT_MAX);
    FUZZ_CHECK(f->n_groups <= METRIC_GROUP_MAX && f->n_configs <= METRIC_CONFIG_MAX);
    for (unsigned m = 0; m < f->n_metrics; m++) {
        const struct metric_expr *e = &f->metrics[m].expr;
        FUZZ_CHECK(e->n <= METRIC_EXPR_MAX_OPS);
        for (unsigned i = 0; i < e->n; i++)
            FUZZ_CHECK(e->ops[i].kind != MOP_ID || e->ops[i].id < f->n_idents);
        struct metric_value v = metric_file_eval(f, m, known, NULL);
        FUZZ_CHECK(!v.known || v.v - v.v == 0);
        FUZZ_CHECK(v.known || v.why != NULL);
        FUZZ_CHECK(!f->metrics[m].na_why[0] || (!v.known && v.why == f->metrics[m].na_why));
        FUZZ_CHECK(strlen(f->metrics[m].na_why) < METRIC_WHY_MAX);
        v = metric_file_eval(f, m, unknown, NULL);
        FUZZ_CHECK(v.known || v.why != NULL);
    }
    for (unsigned g = 0; g < f->n_groups; g++) {
        FUZZ_CHECK(f->groups[g].n >= 1 && f->groups[g].n <= METRIC_GROUP_MEMBERS);
        for (unsigned k = 0; k < f->groups[g].n; k++)
            FUZZ_CHECK(f->groups[g].member[k] < f->n_metrics || f->n_metrics == 0);
        bool need[METRIC_IDENT_MAX] = { false };
        metric_file_group_inputs(f, g, need);
    }
    free(f);
    return 0;
}
