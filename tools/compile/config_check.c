/*
 * config_check.c — -config / -msr_config checks on the host (see config_check.h).
 */
#define _GNU_SOURCE
#include "config_check.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_event.h"
#include "pmu_msr_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The refusals of one parse, in line order. */
struct refusals {
    struct refusal {
        unsigned line;
        char *message;
    } *items;
    size_t n;
};

static void collect(void *arg, unsigned line, const char *message)
{
    struct refusals *r = arg;
    struct refusal *bigger = realloc(r->items, (r->n + 1) * sizeof(*r->items));
    if (!bigger || !(bigger[r->n].message = strdup(message))) {
        perror("nanobench");
        exit(2);
    }
    bigger[r->n].line = line;
    r->items = bigger;
    r->n++;
}

static const struct refusal *refusal_at(const struct refusals *r, unsigned line)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].line == line)
            return &r->items[i];
    return NULL;
}

static void refusals_free(struct refusals *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->items[i].message);
    free(r->items);
}

/*
 * The most any processor offers: every counter, fixed counter 3 and PERF_METRICS with its
 * level-2 bytes, AnyThread not deprecated.
 */
static void refusals_for(enum cpu_vendor vendor, const char *text, size_t len, struct refusals *r)
{
    struct pmu_desc d = { .vendor = vendor, .version = 4, .n_gp = PMU_MAX_GP, .n_fixed = 4,
                          .perf_metrics = true, .perf_metrics_l2 = true };
    struct pmu_event *events = calloc(PMU_MAX_EVENTS, sizeof(*events));
    if (!events) {
        perror("nanobench");
        exit(2);
    }
    pmu_config_parse(text, len, &d, events, PMU_MAX_EVENTS, collect, r);
    free(events);
}

int config_check_events(const char *text, size_t len, const char *file, bool strict)
{
    struct refusals intel = { 0 }, amd = { 0 };
    refusals_for(VENDOR_INTEL, text, len, &intel);
    refusals_for(VENDOR_AMD, text, len, &amd);
    int errors = 0;
    for (size_t i = 0; i < intel.n; i++) {
        const struct refusal *a = refusal_at(&amd, intel.items[i].line);
        if (!a)
            continue;
        const char *kind = strict ? "" : "warning: ";
        if (strcmp(a->message, intel.items[i].message) == 0)
            fprintf(stderr, "nanobench: %s%s:%u: %s", kind, file, a->line, a->message);
        else
            fprintf(stderr, "nanobench: %s%s:%u: on Intel: %s; on AMD: %s", kind, file, a->line,
                    intel.items[i].message, a->message);
        fprintf(stderr, "%s\n", strict ? "" : "; the line is skipped, as nanoBench skips it "
                                               "(-strict_config: an error)");
        errors += strict;
    }
    refusals_free(&intel);
    refusals_free(&amd);
    return errors;
}

int config_check_msr(const char *text, size_t len, const char *file)
{
    struct refusals r = { 0 };
    struct msr_event *events = calloc(MSR_EVENT_MAX, sizeof(*events));
    if (!events) {
        perror("nanobench");
        exit(2);
    }
    msr_config_parse(text, len, events, MSR_EVENT_MAX, collect, &r);
    free(events);
    for (size_t i = 0; i < r.n; i++)
        fprintf(stderr, "nanobench: %s:%u: %s\n", file, r.items[i].line, r.items[i].message);
    int errors = (int)r.n;
    refusals_free(&r);
    return errors;
}
