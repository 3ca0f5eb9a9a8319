/*
 * Every model of configs/cpu_map.txt is in the PMU model table
 * (pmu/pmu_models.c), so `-plan -plan_cpu` describes every CPU we ship
 * configs for, and the image's own detection on that row finds the counter
 * counts Intel's event files name for the microarchitecture (expected counts
 * below, per config prefix: the highest GP/fixed counter in intel/perfmon's
 * Counter fields; AMD: six PerfCtrExtCore counters).
 */
#include <stdio.h>
#include <string.h>

#include "cpuid_bits.h"
#include "machine.h"
#include "nb_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_models.h"
#include "pmu_msrs.h"

struct expected_counters {
    const char *prefix;
    unsigned n_gp, n_fixed;
};

static const struct expected_counters EXPECTED[] = {
    { "Core", 2, 3 }, { "Bonnell", 2, 3 }, { "Silvermont", 2, 3 }, { "KnightsLanding", 2, 3 },
    { "Nehalem", 4, 3 }, { "NehalemEX", 4, 3 }, { "Westmere", 4, 3 }, { "WestmereEPDP", 4, 3 },
    { "WestmereEX", 4, 3 }, { "SandyBridge", 4, 3 }, { "SandyBridgeEP", 4, 3 },
    { "IvyBridge", 4, 3 }, { "IvyBridgeEP", 4, 3 }, { "Haswell", 4, 3 }, { "HaswellX", 4, 3 },
    { "Broadwell", 4, 3 }, { "BroadwellDE", 4, 3 }, { "BroadwellX", 4, 3 }, { "Skylake", 4, 3 },
    { "SkylakeX", 4, 3 }, { "Goldmont", 4, 3 }, { "GoldmontPlus", 4, 3 }, { "Tremont", 4, 3 },
    { "SnowRidgeX", 4, 3 }, { "IceLake", 8, 4 }, { "IceLakeX", 8, 4 }, { "TigerLake", 8, 4 },
    { "RocketLake", 8, 4 }, { "SapphireRapids", 8, 4 }, { "EmeraldRapids", 8, 4 },
    { "GraniteRapids", 8, 4 }, { "SierraForest", 8, 3 }, { "AlderLakeP", 8, 4 },
    { "AlderLakeE", 6, 3 }, { "MeteorLakeP_RedwoodCove", 8, 4 }, { "MeteorLakeE_Crestmont", 8, 3 },
    /* Skymont also has fixed counters 4-6; the image uses 0-3 (PMU_MAX_FIXED). */
    { "LunarLakeP_LionCove", 10, 4 }, { "LunarLakeE_Skymont", 8, 3 },
    { "ArrowLakeP_LionCove", 10, 4 }, { "ArrowLakeE_Skymont", 8, 3 }, { "CascadeLakeX", 4, 3 },
    { "ArrowLakeLPE_Crestmont", 8, 3 },
    { "GrandRidge", 8, 3 }, { "ClearwaterForest", 8, 3 }, { "PantherLakeP_CougarCove", 10, 4 },
    { "PantherLakeE_Darkmont", 8, 3 }, { "NovaLakeP_CoyoteCove", 8, 4 },
    { "NovaLakeE_ArcticWolf", 8, 3 },
    { "Zen", 6, 0 }, { "Zen2", 6, 0 }, { "Zen3", 6, 0 }, { "Zen4", 6, 0 }, { "Zen5", 6, 0 },
};

static const struct expected_counters *expected_for(const char *prefix)
{
    for (size_t i = 0; i < NB_ARRAY_SIZE(EXPECTED); i++)
        if (strcmp(EXPECTED[i].prefix, prefix) == 0)
            return &EXPECTED[i];
    return NULL;
}

static void row_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    pmu_model_cpuid(ctx, leaf, subleaf, r);
}

static int row_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    *value = msr == MSR_IA32_PERF_CAPABILITIES ? pmu_model_perf_capabilities(ctx) : 0;
    return NB_OK;
}

static int row_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx, (void)msr, (void)value;
    return NB_OK;
}

/* Detects the row's CPU as the image would; returns false with a message on a mismatch. */
static bool check_core(const struct pmu_model *row, uint32_t model, unsigned core_type,
                       const char *prefix, const char *line)
{
    const struct expected_counters *want = expected_for(prefix);
    if (!want) {
        printf("    cpu_map.txt line '%s': no expected counts for %s in this test\n", line, prefix);
        return false;
    }
    struct pmu_model_cpu cpu = { .row = *row, .core_type = core_type };
    cpu.row.model = model;
    struct nb_platform p = { .ctx = &cpu, .cpuid = row_cpuid, .read_msr = row_read_msr,
                             .write_msr = row_write_msr };
    struct machine_info m;
    struct pmu_desc d;
    char why[200] = "";
    machine_identify(&p, &m);
    if (!pmu_detect(&p, &m, &d, why, sizeof(why))) {
        printf("    cpu_map.txt line '%s': detection refused: %s\n", line, why);
        return false;
    }
    if (m.model != model || d.n_gp != want->n_gp || d.n_fixed != want->n_fixed) {
        printf("    cpu_map.txt line '%s' (%s): model 0x%x, %u GP %u fixed; expected %u GP %u fixed\n",
               line, prefix, m.model, d.n_gp, d.n_fixed, want->n_gp, want->n_fixed);
        return false;
    }
    return true;
}

NB_TEST(pmu_models_cover_every_cpu_map_model)
{
    FILE *f = fopen("configs/cpu_map.txt", "r");
    REQUIRE(f != NULL);
    char line[256];
    unsigned models = 0, bad = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = 0;
        char vendor[16], prefix[64], e_prefix[64] = "";
        unsigned family, model;
        if (line[0] == '#' || sscanf(line, "%15s %i %i %63s %63s", vendor, &family, &model, prefix,
                                     e_prefix) < 4)
            continue;
        models++;
        /* stepping= / native= qualifiers are not prefixes; a native= line names the
         * config of the cores with that native model ID: the E-cores of a hybrid part. */
        bool native_line = strstr(line, " native=") != NULL;
        if (strchr(e_prefix, '='))
            e_prefix[0] = 0;
        enum cpu_vendor v = strcmp(vendor, "intel") == 0 ? VENDOR_INTEL : VENDOR_AMD;
        const struct pmu_model *row = pmu_model_find(v, family, model);
        if (!row) {
            printf("    cpu_map.txt line '%s': not in pmu/pmu_models.c\n", line);
            bad++;
            continue;
        }
        if (native_line && row->hybrid && !e_prefix[0]) {
            bad += !check_core(row, model, HYBRID_CORE_ATOM, prefix, line);
            continue;
        }
        if (row->hybrid != (e_prefix[0] != 0)) {
            printf("    cpu_map.txt line '%s': the table calls it %shybrid\n", line,
                   row->hybrid ? "" : "not ");
            bad++;
            continue;
        }
        if (row->hybrid) {
            bad += !check_core(row, model, HYBRID_CORE_CORE, prefix, line);
            bad += !check_core(row, model, HYBRID_CORE_ATOM, e_prefix, line);
        } else {
            bad += !check_core(row, model, 0, prefix, line);
        }
    }
    fclose(f);
    CHECK(models >= 240);
    CHECK_EQ_INT(bad, 0);
}
