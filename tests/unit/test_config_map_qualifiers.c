/*
 * test_config_map_qualifiers.c — cpu_map.txt lines told apart by stepping and by native
 * model ID (pmu/pmu_config_map.h), as Intel's perfmon mapfile.csv does: 6-55 steppings
 * 0-4 are Skylake-SP and 5-F Cascade Lake; the E-cores of 6-C5 with native model ID
 * 000002H (CPUID.1AH:EAX[23:0]) are low-power Crestmont, 000003H Skymont, both of core
 * type 20H. Then the shipped map, and the image's CPUID read of the native model ID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuid_bits.h"
#include "nb_test.h"
#include "pmu_config_map.h"

static const char MAP[] =
    "intel 6 0x55 SkylakeX stepping=0-4\n"
    "intel 6 0x55 CascadeLakeX stepping=5-15\n"
    "intel 6 0xC5 ArrowLakeP_LionCove ArrowLakeE_Skymont\n"
    "intel 6 0xC5 ArrowLakeLPE_Crestmont native=0x000002\n";

static const char *choose(const char *map, uint32_t model, int stepping, unsigned core_type,
                          uint32_t native, enum config_match *m)
{
    static struct config_choice c;
    struct config_cpu cpu = { VENDOR_INTEL, 6, model, stepping, core_type, native };
    memset(&c, 0, sizeof(c));
    *m = pmu_config_map_choose_cpu(map, strlen(map), &cpu, &c);
    return *m == CONFIG_MATCH_NONE ? "" : c.path;
}

NB_TEST(config_map_stepping_tells_skylake_sp_from_cascade_lake)
{
    enum config_match m;
    for (int s = 0; s <= 4; s++) {
        CHECK_EQ_STR(choose(MAP, 0x55, s, 0, 0, &m), "configs/cfg_SkylakeX_common.txt");
        CHECK_EQ_INT(m, CONFIG_MATCH_EXACT);
    }
    for (int s = 5; s <= 15; s++) {
        CHECK_EQ_STR(choose(MAP, 0x55, s, 0, 0, &m), "configs/cfg_CascadeLakeX_common.txt");
        CHECK_EQ_INT(m, CONFIG_MATCH_EXACT);
    }
}

NB_TEST(config_map_native_model_tells_lp_crestmont_from_skymont)
{
    enum config_match m;
    CHECK_EQ_STR(choose(MAP, 0xC5, 2, HYBRID_CORE_CORE, 0x000003, &m),
                 "configs/cfg_ArrowLakeP_LionCove_common.txt");
    CHECK_EQ_STR(choose(MAP, 0xC5, 2, HYBRID_CORE_ATOM, 0x000003, &m),
                 "configs/cfg_ArrowLakeE_Skymont_common.txt");
    CHECK_EQ_STR(choose(MAP, 0xC5, 2, HYBRID_CORE_ATOM, 0x000002, &m),
                 "configs/cfg_ArrowLakeLPE_Crestmont_common.txt");
    CHECK_EQ_INT(m, CONFIG_MATCH_EXACT);
    /* Unknown native model ID (0): the line without a qualifier. */
    CHECK_EQ_STR(choose(MAP, 0xC5, 2, HYBRID_CORE_ATOM, 0, &m),
                 "configs/cfg_ArrowLakeE_Skymont_common.txt");
}

/* The old entry point (no stepping, no native model ID) still reads lines with qualifiers. */
NB_TEST(config_map_old_lookup_ignores_qualified_lines_it_cannot_decide)
{
    struct config_choice c;
    CHECK_EQ_INT(pmu_config_map_choose(MAP, strlen(MAP), VENDOR_INTEL, 6, 0xC5, HYBRID_CORE_ATOM, &c),
                 CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_ArrowLakeE_Skymont_common.txt");
}

NB_TEST(config_map_bad_qualifier_matches_nothing)
{
    enum config_match m;
    const char *bad = "intel 6 0x55 SkylakeX stepping=x\nintel 6 0x55 Other colour=blue\n";
    choose(bad, 0x55, 3, 0, 0, &m);
    /* The family is listed but no line applies: no config, the architectural events. */
    CHECK_EQ_INT(m, CONFIG_MATCH_UNKNOWN_MODEL);
}

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
    buf[*len] = 0;
    fclose(f);
    return buf;
}

/* The shipped map makes the same distinctions. */
NB_TEST(config_map_shipped_steppings_and_native_models)
{
    size_t len;
    char *map = slurp("configs/cpu_map.txt", &len);
    REQUIRE(map);
    struct config_choice c;
    struct config_cpu skx = { VENDOR_INTEL, 6, 0x55, 4, 0, 0 }, clx = { VENDOR_INTEL, 6, 0x55, 7, 0, 0 };
    struct config_cpu lpe = { VENDOR_INTEL, 6, 0xC5, 2, HYBRID_CORE_ATOM, 0x000002 };
    struct config_cpu skt = { VENDOR_INTEL, 6, 0xC5, 2, HYBRID_CORE_ATOM, 0x000003 };
    CHECK_EQ_INT(pmu_config_map_choose_cpu(map, len, &skx, &c), CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_SkylakeX_common.txt");
    CHECK_EQ_INT(pmu_config_map_choose_cpu(map, len, &clx, &c), CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_CascadeLakeX_common.txt");
    CHECK_EQ_INT(pmu_config_map_choose_cpu(map, len, &lpe, &c), CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_ArrowLakeLPE_Crestmont_common.txt");
    CHECK_EQ_INT(pmu_config_map_choose_cpu(map, len, &skt, &c), CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_ArrowLakeE_Skymont_common.txt");
    free(map);
}

/* CPUID.1AH:EAX = 20000002H: core type 20H, native model ID 000002H. */
NB_TEST(config_map_native_model_id_bits)
{
    CHECK_EQ_INT(HYBRID_CORE_TYPE(0x20000002u), 0x20);
    CHECK_EQ_INT(HYBRID_NATIVE_MODEL(0x20000002u), 0x000002);
    CHECK_EQ_INT(HYBRID_NATIVE_MODEL(0x40000003u), 0x000003);
}
