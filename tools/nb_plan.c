/*
 * nb_plan.c — counter planning without booting (see nb_plan.h).
 */
#define _GNU_SOURCE
#include "nb_plan.h"
#include "host_file.h"
#include "nb_text.h"
#include "pmu.h"
#include "pmu_arch_events.h"
#include "pmu_config_map.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The recording platform: MSR reads return 0, writes are printed. */
static int plan_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)ctx;
    (void)msr;
    *value = 0;
    return NB_OK;
}

static int plan_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx;
    printf("wrmsr 0x%x 0x%llx\n", msr, (unsigned long long)value);
    return NB_OK;
}

static bool parse_number(const char *s, uint32_t *out)
{
    int64_t v;
    if (!nb_parse_i64(s, &v) || v < 0 || v > 0xFFFFFFFFll)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Zen 4: family 19h models 10h-1Fh, 60h-7Fh, A0h-AFh; family 1Ah (Zen 5) and later. */
static bool amd_has_perfmon_v2(uint32_t family, uint32_t model)
{
    if (family >= 0x1A)
        return true;
    return family == 0x19 && ((model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0x7F) ||
                              (model >= 0xA0 && model <= 0xAF));
}

static int parse_plan_cpu(const char *spec, struct pmu_desc *d)
{
    char copy[128];
    snprintf(copy, sizeof(copy), "%s", spec ? spec : "");
    char *fields[5] = { 0 };
    int n = 0;
    for (char *tok = strtok(copy, ":"); tok && n < 5; tok = strtok(NULL, ":"))
        fields[n++] = tok;
    memset(d, 0, sizeof(*d));
    if (n != 4 || !parse_number(fields[1], &d->family) || !parse_number(fields[2], &d->model) ||
        !parse_number(fields[3], &d->n_gp) || d->n_gp == 0 || d->n_gp > PMU_MAX_GP) {
        fprintf(stderr,
                "nanobench: -plan_cpu '%s': expected VENDOR:FAMILY:MODEL:GPCOUNTERS, e.g. "
                "intel:6:0x55:4 or amd:0x19:0x61:6 (GPCOUNTERS 1..%d)\n",
                spec ? spec : "", PMU_MAX_GP);
        return 2;
    }
    if (strcmp(fields[0], "intel") == 0) {
        d->vendor = VENDOR_INTEL;
        d->version = 4;
        d->gp_width = 48;
        d->n_fixed = 3;
        d->fixed_width = 48;
    } else if (strcmp(fields[0], "amd") == 0) {
        d->vendor = VENDOR_AMD;
        d->gp_width = 48;
        d->amd_ext_core = d->family >= 0x17;
        d->amd_perfmon_v2 = amd_has_perfmon_v2(d->family, d->model);
    } else {
        fprintf(stderr, "nanobench: -plan_cpu '%s': vendor must be intel or amd\n", spec);
        return 2;
    }
    return 0;
}

static void config_error(void *arg, unsigned line, const char *message)
{
    fprintf(stderr, "nanobench: %s:%u: %s (event skipped)\n", (const char *)arg, line, message);
}

int nb_plan(const struct bench_options *o, const char *config, size_t config_len,
            const char *config_name)
{
    struct pmu_desc d;
    if (!o->plan_cpu) {
        fprintf(stderr, "nanobench: -plan needs -plan_cpu VENDOR:FAMILY:MODEL:GPCOUNTERS\n");
        return 2;
    }
    if (parse_plan_cpu(o->plan_cpu, &d) != 0)
        return 2;

    char *owned = NULL;
    char *owned_name = NULL;
    if (!config) {
        /* What the image would choose: configs/cpu_map.txt, else the architectural events. */
        const char *root = getenv("NB_ROOT") ? getenv("NB_ROOT") : ".";
        char *map_path = host_path_join(root, "configs/cpu_map.txt");
        size_t map_len;
        char *map = host_read_file(map_path, &map_len);
        struct config_choice choice;
        enum config_match match = map ? pmu_config_map_choose(map, map_len, d.vendor, d.family,
                                                              d.model, 0, &choice)
                                      : CONFIG_MATCH_NONE;
        if (match != CONFIG_MATCH_NONE) {
            owned_name = host_path_join(root, choice.path);
            owned = host_read_file(owned_name, &config_len);
        }
        /* The same choice, and the same warning, as the image (kernel/bench_counters.c). */
        if (match == CONFIG_MATCH_CLOSEST)
            fprintf(stderr, "nanobench: warning: family 0x%x model 0x%x is not in cpu_map.txt; "
                    "using the table of the closest listed model, 0x%x\n", d.family, d.model,
                    choice.model);
        free(map);
        free(map_path);
        config = owned ? owned : pmu_arch_events(d.vendor);
        config_len = owned ? config_len : strlen(config);
        config_name = owned ? owned_name : "built-in architectural events";
    }
    printf("# plan for %s: %s, config %s\n", o->plan_cpu, pmu_ops_for(d.vendor)->name, config_name);

    struct pmu_event *events = calloc(PMU_MAX_EVENTS, sizeof(*events));
    struct pmu_group *groups = calloc(PMU_MAX_EVENTS, sizeof(*groups));
    size_t n = pmu_config_parse(config, config_len, d.vendor, d.n_gp, events, PMU_MAX_EVENTS,
                                config_error, (void *)config_name);
    size_t n_groups = pmu_schedule(events, n, d.n_gp, groups);

    struct nb_platform platform = { .read_msr = plan_read_msr, .write_msr = plan_write_msr };
    struct pmu_session session;
    pmu_session_begin(&session, &platform, &d);
    for (size_t g = 0; g < n_groups || (g == 0 && o->fixed_counters); g++) {
        const struct pmu_group *group = g < n_groups ? &groups[g] : NULL;
        printf("group %zu:", g + 1);
        for (unsigned k = 0; group && k < group->n; k++)
            printf(" %s", events[group->event_index[k]].name);
        printf("\n");
        pmu_program_group(&session, events, group, o->fixed_counters && g == 0);
    }
    free(events);
    free(groups);
    free(owned);
    free(owned_name);
    return 0;
}
