/*
 * test_metric_configs.c — every shipped metric file (every .txt in configs/metrics/)
 * loads without an error, has all five groups (cpi, memory, topdown, flops,
 * codemon: each metric a formula or an `na` line with its reason), names only configs that
 * exist, and every event it names is in those configs (or is a fixed
 * counter of the vendor, or an architectural event for `config builtin`).
 * A metric file other than arch_<vendor>.txt belongs to a microarchitecture
 * cpu_map.txt lists. The cpi, memory, flops and codemon groups name the same
 * metrics, in the same order, in every file of a vendor (a metric the core
 * lacks is `na`), so `-metrics memory` prints the same lines on every core
 * (docs/metrics.md); arch_intel.txt adds LLC_MPKI to memory. topdown
 * starts with the four level-1 nodes everywhere (level 2 is per
 * microarchitecture, interleaved as TMA's tree).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric_file.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_arch_events.h"
#include "pmu_config_parse.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void print_error(void *arg, const char *message)
{
    (void)arg;
    nb_test_note("%s", message);
    CHECK(!"metric file error");
}

static void ignore_config_error(void *arg, unsigned line, const char *message)
{
    (void)arg;
    (void)line;
    (void)message;
}

static struct pmu_event events[METRIC_CONFIG_MAX][PMU_MAX_EVENTS];

/* The canonical member list of a group per vendor (tools/configgen/gen_metrics.py
 * CPI_*, MEM_*): LLC_MISS_RATIO and LOAD_MISS_LATENCY are Intel only (AMD's L3
 * events are in the L3 PMU, section 1c; section 3c gives the latency for Intel). */
static const char *canonical(const char *file, enum cpu_vendor vendor, const char *group)
{
    if (strcmp(group, "cpi") == 0)
        return "CPI NOMINAL_CPI TSC_PER_INST IPC EFFECTIVE_MHZ REF_PER_TSC";
    if (strcmp(group, "flops") == 0)
        return "FLOP FLOP_PER_CYCLE FP_PEAK_UTILIZATION";
    if (strcmp(group, "codemon") == 0)
        return "PROG_CPUI PROG_CPI PROG_UCPUI PROG_UCPI PROG_DELAY_RATIO FLUSH_RATIO L1D_FPU_RATIO EXE_RATIO "
               "OTHER_BE_RATIO FE_RATIO PROG_ACCESS_DELAY_RATIO CM_L2_MISS_RATIO CM_L3_MISS_RATIO CACHE_DELAY_RATIO "
               "MEM_DELAY_RATIO TLB_DELAY_RATIO FP_SPEED SYS_UTILIZE";
    if (vendor == VENDOR_AMD)
        return "L1D_MISS_RATIO L2_MISS_RATIO L3_MISS_RATIO DTLB_WALKS_PKI";
    if (strcmp(file, "arch_intel.txt") == 0)
        return "L1D_MISS_RATIO L2_MISS_RATIO L3_MISS_RATIO LLC_MISS_RATIO DTLB_WALKS_PKI LOAD_MISS_LATENCY LLC_MPKI";
    return "L1D_MISS_RATIO L2_MISS_RATIO L3_MISS_RATIO LLC_MISS_RATIO DTLB_WALKS_PKI LOAD_MISS_LATENCY";
}

static void check_canonical(const char *file, const struct metric_file *f, enum cpu_vendor vendor)
{
    static const char *const SAME[] = { "cpi", "memory", "flops", "codemon" };
    for (size_t s = 0; s < sizeof(SAME) / sizeof(SAME[0]); s++) {
        int g = metric_file_group(f, SAME[s]);
        if (g < 0)
            continue;
        char names[METRIC_GROUP_MEMBERS * METRIC_NAME_MAX] = "";
        size_t used = 0;
        for (unsigned m = 0; m < f->groups[g].n; m++)
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", m ? " " : "",
                                     f->metrics[f->groups[g].member[m]].name);
        if (!CHECK_EQ_STR(names, canonical(file, vendor, SAME[s])))
            nb_test_note("%s: group %s", file, SAME[s]);
    }
    /* topdown: the level-1 nodes, in this order, with any level-2 children between them. */
    static const char *const LEVEL1[] = { "TD_FRONTEND_BOUND", "TD_BAD_SPECULATION", "TD_RETIRING", "TD_BACKEND_BOUND" };
    int g = metric_file_group(f, "topdown");
    unsigned next = 0;
    for (unsigned m = 0; g >= 0 && m < f->groups[g].n && next < 4; m++)
        next += strcmp(f->metrics[f->groups[g].member[m]].name, LEVEL1[next]) == 0;
    if (!CHECK_EQ_INT(next, 4))
        nb_test_note("%s: group topdown lacks the level-1 nodes in order", file);
}

/* Checks one metric file; returns false when it could not be read. */
static void check_file(const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "configs/metrics/%.200s", name);
    size_t len;
    char *text = slurp(path, &len);
    REQUIRE(text);
    static struct metric_file f;
    CHECK(metric_file_parse(text, len, path, &f, print_error, NULL));
    free(text);
    static const char *const GROUPS[] = { "cpi", "memory", "topdown", "flops", "codemon" };
    for (size_t g = 0; g < sizeof(GROUPS) / sizeof(GROUPS[0]); g++)
        if (!CHECK(metric_file_group(&f, GROUPS[g]) >= 0))
            nb_test_note("%s: no group %s", name, GROUPS[g]);
    REQUIRE(f.n_configs >= 1);
    enum cpu_vendor vendor = strstr(name, "amd") || strncmp(name, "Zen", 3) == 0 ? VENDOR_AMD : VENDOR_INTEL;
    check_canonical(name, &f, vendor);
    /* Intel: fixed counter 3 and IA32_PERF_METRICS with its level-2 bytes, so that the top-down
     * pseudo events of topdown_perf_metrics*.txt parse (the image checks the CPU). */
    struct pmu_desc d = { .vendor = vendor, .n_gp = 8, .amd_ext_core = vendor == VENDOR_AMD,
                          .n_fixed = vendor == VENDOR_INTEL ? 4 : 0, .perf_metrics = vendor == VENDOR_INTEL,
                          .perf_metrics_l2 = vendor == VENDOR_INTEL };
    size_t n_events[METRIC_CONFIG_MAX] = { 0 };
    for (unsigned c = 0; c < f.n_configs; c++) {
        const char *cfg;
        char *owned = NULL;
        if (strcmp(f.configs[c], "builtin") == 0) {
            cfg = pmu_arch_events(vendor);
            len = strlen(cfg);
        } else {
            snprintf(path, sizeof(path), "configs/%.60s", f.configs[c]);
            owned = slurp(path, &len);
            if (!CHECK(owned)) {
                nb_test_note("%s: config %s does not exist", name, f.configs[c]);
                continue;
            }
            cfg = owned;
            CHECK(strstr(cfg, vendor == VENDOR_AMD ? "# vendor: amd" : "# vendor: intel"));
        }
        n_events[c] = pmu_config_parse(cfg, len, &d, events[c], PMU_MAX_EVENTS, ignore_config_error, NULL);
        free(owned);
    }
    for (unsigned i = 0; i < f.n_idents; i++) {
        const struct metric_ident *id = &f.idents[i];
        if (id->kind != METRIC_ID_EVENT || metric_fixed_counter(vendor, id->name) >= 0)
            continue;
        bool found = false;
        for (unsigned c = 0; c < f.n_configs && !found; c++)
            for (size_t k = 0; k < n_events[c] && !found; k++)
                found = strcmp(events[c][k].name, id->name) == 0;
        if (!CHECK(found))
            nb_test_note("%s: event %s is in none of its configs", name, id->name);
    }
}

NB_TEST(metric_configs_every_event_exists)
{
    DIR *dir = opendir("configs/metrics");
    REQUIRE(dir);
    size_t len;
    char *map = slurp("configs/cpu_map.txt", &len);
    REQUIRE(map);
    struct dirent *e;
    unsigned n = 0;
    bool arch_intel = false, arch_amd = false;
    while ((e = readdir(dir))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt") != 0)
            continue;
        nb_test_note("file %s", e->d_name);
        check_file(e->d_name);
        n++;
        arch_intel |= strcmp(e->d_name, "arch_intel.txt") == 0;
        arch_amd |= strcmp(e->d_name, "arch_amd.txt") == 0;
        if (strncmp(e->d_name, "arch_", 5) == 0)
            continue;
        /* PREFIX.txt: cpu_map.txt has " PREFIX" as a whole word. */
        char word[128];
        snprintf(word, sizeof(word), " %.*s", (int)(l - 4), e->d_name);
        bool listed = false;
        for (const char *p = strstr(map, word); p && !listed; p = strstr(p + 1, word)) {
            char after = p[strlen(word)];
            listed = after == '\n' || after == ' ' || after == '\0';
        }
        if (!CHECK(listed))
            nb_test_note("%s: no microarchitecture of that name in cpu_map.txt", e->d_name);
    }
    closedir(dir);
    free(map);
    CHECK(arch_intel && arch_amd);
    CHECK(n >= 7);
}
