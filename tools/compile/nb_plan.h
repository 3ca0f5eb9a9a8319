/*
 * nb_plan.h — `tools/nanobench -plan -plan_cpu VENDOR:FAMILY:MODEL[:p|e][:GPCOUNTERS]`:
 * prints, for a described processor, what the image would find there (the
 * PMU description of its detection), and for every benchmark the counter
 * groups of its config with the counter of every event, every MSR write the
 * image would make for each group, and the writes of its -msr_config,
 * using the image's own detection, parsers, scheduler and vendor code
 * through a platform that answers CPUID from pmu/pmu_models.c and records
 * MSR writes.
 */
#ifndef NB_PLAN_H
#define NB_PLAN_H

#include <stddef.h>

#include "bench_options.h"

/* One benchmark to plan: its options and the contents of its config files. */
struct plan_bench {
    const char *name;       /* heading `[name]`; NULL: the command line's one benchmark */
    const struct bench_options *o;
    const char *config;     /* -config contents; NULL: the default the image would pick */
    size_t config_len;
    const char *config_name; /* the user's file, for the plan and its warnings */
    const char *msr_config; /* -msr_config contents; NULL: none */
    size_t msr_config_len;
    const char *msr_config_name;
};

/*
 * Plans every benchmark for the processor of -plan_cpu (o->plan_cpu of the
 * command line): the detection once, then per benchmark its counter groups
 * with their MSR writes and the writes of its -msr_config, in the image's
 * order. A default config comes from configs/cpu_map.txt under $NB_ROOT,
 * else the built-in architectural events. suite: the suite file, NULL for
 * one benchmark from the command line. Returns 0, or 2 after printing an error.
 */
int nb_plan(const struct bench_options *cli, const char *suite, const struct plan_bench *benches,
            size_t n);

#endif
