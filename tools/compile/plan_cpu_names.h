/*
 * plan_cpu_names.h — names for -plan_cpu: `skylake`, `zen4`, `alderlake:p`,
 * `sapphirerapids` stand for VENDOR:FAMILY:MODEL. The names are those of
 * configs/cpu_map.txt (the config prefix in lower case; on hybrid parts the
 * stem the P- and E-core prefixes share), each for its first model that
 * pmu/pmu_models.c describes. What follows the name (`:p`, `:e`,
 * `:GPCOUNTERS`) is kept.
 */
#ifndef PLAN_CPU_NAMES_H
#define PLAN_CPU_NAMES_H

#include <stddef.h>
#include <stdio.h>

/*
 * 0: spec starts with intel/amd (use it as it is); 1: a name, translated into
 * out; -1: neither, with the reason in why.
 */
int plan_cpu_resolve(const char *root, const char *spec, char *out, size_t cap, char *why,
                     size_t why_cap);

/* -plan_cpu list: every name and what it stands for. */
void plan_cpu_list(const char *root, FILE *f);

#endif
