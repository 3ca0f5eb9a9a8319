/*
 * nb_plan.h — `tools/nanobench -plan -plan_cpu VENDOR:FAMILY:MODEL[:p|e][:GPCOUNTERS]`:
 * prints, for a described processor, what the image would find there (the
 * PMU description of its detection), the counter groups of a config with the
 * counter of every event, and every MSR write the image would make for each
 * group, using the image's own detection, parser, scheduler and vendor code
 * through a platform that answers CPUID from pmu/pmu_models.c and records
 * MSR writes.
 */
#ifndef NB_PLAN_H
#define NB_PLAN_H

#include <stddef.h>

#include "bench_options.h"

/*
 * config: contents of the -config file (NULL: the default config the image
 * would pick from configs/cpu_map.txt under $NB_ROOT, else the built-in
 * architectural events). Returns 0, or 2 after printing an error.
 */
int nb_plan(const struct bench_options *o, const char *config, size_t config_len,
            const char *config_name);

#endif
