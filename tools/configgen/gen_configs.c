/*
 * gen_configs — host tool: nanoBench performance-counter configs from libpfm4.
 *
 *   gen_configs list                          libpfm4 PMU names and descriptions
 *   gen_configs PMU OUT_DIR [--prefix NAME]   OUT_DIR/cfg_NAME_{all,common}.txt
 *   gen_configs all OUT_DIR                   every family below + cpu_map.txt
 *   gen_configs verify FILE...                grammar/width/duplicate self-check
 *   gen_configs check DIR                     known values and counter sets vs the tables
 *   gen_configs selftest                      encoder/parser checks (no libpfm4 needed)
 *
 * Supporting a new microarchitecture is one line in `families` and `make configs`.
 * Output is deterministic (libpfm4's listing order, no timestamps) so that
 * `make gen-configs-check` can diff it against the committed configs/.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_check.h"
#include "gen_common.h"
#include "gen_ctr.h"
#include "gen_evtsel.h"
#include "gen_msr.h"
#include "gen_pfm.h"
#include "gen_ppr.h"
#include "gen_selftest.h"
#include "gen_table.h"
#include "gen_tfam.h"
#include "gen_verify.h"
#include "gen_write.h"

struct family {
    const char *prefix;  /* cfg_<prefix>_{all,common}.txt */
    const char *table;   /* configs/tables/<table>.txt; NULL: from libpfm4 (pmus) */
    const char *alias;   /* an older name of the common file, still written */
    const char *pmus;    /* libpfm4 PMUs to try, '|'-separated: the first one present wins */
    const char *note;    /* header note when a later (proxy) PMU had to be used */
    const char *exclude; /* ','-separated name patterns dropped from a proxy PMU */
    const char *exclude_why; /* why they are dropped (shown in the _all file) */
    const char *cpus;    /* "VENDOR FAMILY MODEL,MODEL,..." rows for cpu_map.txt; NULL: none */
    const char *hybrid;  /* E-core prefix sharing these models (hybrid parts) */
    const char *what;    /* cpu_map.txt comment */
    /* libpfm4 families: "EVSEL:COUNTERS ..." restrictions libpfm4 cannot tell (hex event
     * select, counter set), from Linux arch/x86/events/intel/core.c; NULL: none. */
    const char *constraints;
};

/*
 * Families nanoBench ships as cfg_<prefix>_all_core.txt + _all_offcore.txt although
 * their tables have fewer than GEN_OFFCORE_SPLIT offcore events: written split too
 * (besides the combined _all.txt), so that nanoBench's file names all exist.
 */
static const char *const split_families[] = {
    "IvyBridge", "TigerLake", "MeteorLakeP_RedwoodCove", "MeteorLakeE_Crestmont",
    "ArrowLakeP_LionCove", "ArrowLakeE_Skymont",
};

static bool split_family(const char *prefix)
{
    for (size_t i = 0; i < sizeof(split_families) / sizeof(split_families[0]); i++)
        if (strcmp(split_families[i], prefix) == 0)
            return true;
    return false;
}

/*
 * Model numbers: Intel perfmon mapfile.csv (which event file serves which
 * GenuineIntel-FAMILY-MODEL, and on hybrid parts which core type) cross-checked with
 * Linux arch/x86/include/asm/intel-family.h; AMD: the Zen generation ranges in Linux
 * arch/x86/kernel/cpu/amd.c bsp_init_amd().
 */
#define T(prefix, table, cpus, what) \
    {prefix, table, NULL, NULL, NULL, NULL, NULL, cpus, NULL, what, NULL}
static const struct family families[] = {
    T("Bonnell", "Bonnell", "intel 6 0x1C,0x26,0x27,0x35,0x36",
      "Bonnell / Saltwell Atom (1C 26 27 35 36)"),
    T("Nehalem", "Nehalem", "intel 6 0x1A,0x1E,0x1F", "Nehalem EP / client (1A 1E 1F)"),
    T("NehalemEX", "NehalemEX", "intel 6 0x2E", "Nehalem EX (2E)"),
    T("Westmere", "Westmere", "intel 6 0x25", "Westmere client (25)"),
    T("WestmereEPDP", "WestmereEPDP", "intel 6 0x2C", "Westmere EP (2C)"),
    T("WestmereEX", "WestmereEX", "intel 6 0x2F", "Westmere EX (2F)"),
    T("SandyBridge", "SandyBridge", "intel 6 0x2A", "Sandy Bridge (2A)"),
    T("SandyBridgeEP", "SandyBridgeEP", "intel 6 0x2D", "Sandy Bridge EP, Jaketown (2D)"),
    T("IvyBridge", "IvyBridge", "intel 6 0x3A", "Ivy Bridge (3A)"),
    T("IvyBridgeEP", "IvyBridgeEP", "intel 6 0x3E", "Ivy Bridge EP, Ivytown (3E)"),
    T("Haswell", "Haswell", "intel 6 0x3C,0x45,0x46", "Haswell (3C 45 46)"),
    T("HaswellX", "HaswellX", "intel 6 0x3F", "Haswell-X (3F)"),
    T("Broadwell", "Broadwell", "intel 6 0x3D,0x47", "Broadwell (3D 47)"),
    T("BroadwellX", "BroadwellX", "intel 6 0x4F", "Broadwell-X (4F)"),
    T("BroadwellDE", "BroadwellDE", "intel 6 0x56", "Broadwell-DE (56)"),
    T("Silvermont", "Silvermont", "intel 6 0x37,0x4A,0x4C,0x4D,0x5A",
      "Silvermont / Airmont (37 4A 4C 4D 5A)"),
    T("KnightsLanding", "KnightsLanding", "intel 6 0x57,0x85",
      "Knights Landing (57), Knights Mill (85)"),
    T("Skylake", "Skylake", "intel 6 0x4E,0x5E,0x8E,0x9E,0xA5,0xA6",
      "Skylake (4E 5E), Kaby / Coffee / Whiskey Lake (8E 9E), Comet Lake (A5 A6)"),
    T("SkylakeX", "SkylakeX", "intel 6 0x55 stepping=0-4",
      "Skylake-SP (55, steppings 0-4; Intel's mapfile: 6-55-[01234])"),
    T("CascadeLakeX", "CascadeLakeX", "intel 6 0x55 stepping=5-15",
      "Cascade Lake (55, steppings 5-F; Intel's mapfile: 6-55-[56789ABCDEF])"),
    T("Goldmont", "Goldmont", "intel 6 0x5C,0x5F", "Goldmont (5C 5F)"),
    T("GoldmontPlus", "GoldmontPlus", "intel 6 0x7A", "Goldmont Plus (7A)"),
    T("IceLake", "IceLake", "intel 6 0x7D,0x7E", "Ice Lake client (7D 7E)"),
    T("IceLakeX", "IceLakeX", "intel 6 0x6A,0x6C", "Ice Lake-SP (6A), Ice Lake-D (6C)"),
    T("Tremont", "Tremont", "intel 6 0x96,0x9C", "Tremont: Elkhart Lake (96), Jasper Lake (9C)"),
    T("SnowRidgeX", "SnowRidgeX", "intel 6 0x86", "Tremont: Snow Ridge (86)"),
    T("TigerLake", "TigerLake", "intel 6 0x8C,0x8D", "Tiger Lake (8C 8D)"),
    T("RocketLake", "RocketLake", "intel 6 0xA7", "Rocket Lake (A7)"),
    {"AlderLakeP", "AlderLakeP", "AlderLake-P", NULL, NULL, NULL, NULL,
     "intel 6 0x97,0x9A,0xB7,0xBA,0xBF", "AlderLakeE",
     "Alder Lake (97 9A), Raptor Lake (B7 BA BF): Intel's mapfile serves Raptor Lake\n"
     "with the Alder Lake tables (Golden Cove / Gracemont); hybrid: P-core, E-core", NULL},
    {"AlderLakeE", "AlderLakeE", "AlderLake-E", NULL, NULL, NULL, NULL, "intel 6 0xBE", NULL,
     "Alder Lake-N (BE, E-cores only)", NULL},
    T("SapphireRapids", "SapphireRapids", "intel 6 0x8F", "Sapphire Rapids (8F)"),
    T("EmeraldRapids", "EmeraldRapids", "intel 6 0xCF", "Emerald Rapids (CF)"),
    {"MeteorLakeP_RedwoodCove", "MeteorLakeP_RedwoodCove", NULL, NULL, NULL, NULL, NULL,
     "intel 6 0xAA,0xAC,0xB5", "MeteorLakeE_Crestmont",
     "Meteor Lake (AA AC B5); hybrid: Redwood Cove P-core, Crestmont E-core", NULL},
    {"MeteorLakeE_Crestmont", "MeteorLakeE_Crestmont", NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL},
    T("SierraForest", "SierraForest", "intel 6 0xAF", "Sierra Forest (AF, Crestmont)"),
    T("GraniteRapids", "GraniteRapids", "intel 6 0xAD,0xAE", "Granite Rapids (AD AE)"),
    {"ArrowLakeP_LionCove", "ArrowLakeP_LionCove", NULL, NULL, NULL, NULL, NULL,
     "intel 6 0xC5,0xC6", "ArrowLakeE_Skymont",
     "Arrow Lake (C5 C6); hybrid: Lion Cove P-core, Skymont E-core (native model ID\n"
     "000003H); the low-power E-cores of C5 follow", NULL},
    {"ArrowLakeE_Skymont", "ArrowLakeE_Skymont", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL},
    {"ArrowLakeLPE_Crestmont", "ArrowLakeLPE_Crestmont", NULL, NULL, NULL, NULL, NULL,
     "intel 6 0xC5 native=0x000002", NULL,
     "Arrow Lake-H (C5) low-power Crestmont E-cores: the same core type (20H) as its\n"
     "Skymont E-cores, told apart by the native model ID 000002H (CPUID.1AH:EAX[23:0],\n"
     "Intel's mapfile)", NULL},
    {"LunarLakeP_LionCove", "LunarLakeP_LionCove", NULL, NULL, NULL, NULL, NULL,
     "intel 6 0xBD", "LunarLakeE_Skymont",
     "Lunar Lake (BD); hybrid: Lion Cove P-core, Skymont E-core", NULL},
    {"LunarLakeE_Skymont", "LunarLakeE_Skymont", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL},
    T("GrandRidge", "GrandRidge", "intel 6 0xB6", "Grand Ridge (B6, Crestmont)"),
    T("ClearwaterForest", "ClearwaterForest", "intel 6 0xDD", "Clearwater Forest (DD, Darkmont)"),
    {"PantherLakeP_CougarCove", "PantherLakeP_CougarCove", NULL, NULL, NULL, NULL, NULL,
     "intel 6 0xCC,0xD5,0xE5", "PantherLakeE_Darkmont",
     "Panther Lake (CC D5 E5); hybrid: Cougar Cove P-core, Darkmont E-core", NULL},
    {"PantherLakeE_Darkmont", "PantherLakeE_Darkmont", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL},
    {"NovaLakeP_CoyoteCove", "NovaLakeP_CoyoteCove", NULL, NULL, NULL, NULL, NULL,
     "intel 18 0x01,0x03", "NovaLakeE_ArcticWolf",
     "Nova Lake (family 18 (12H), models 01 03); hybrid: Coyote Cove P-core, Arctic Wolf\n"
     "E-core", NULL},
    {"NovaLakeE_ArcticWolf", "NovaLakeE_ArcticWolf", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL},
    T("Zen5", "Zen5",
      "amd 0x1A 0x00-0x2F,0x40-0x4F,0x60-0x7F",
      "Zen 5: every model of Linux's family 1Ah Zen 5 ranges (Turin 02/11,\n"
      "Strix Point 24, Granite Ridge 44, Krackan 60, Strix Halo 70, ...)"),
    {"Core", NULL, NULL, "core", NULL, NULL, NULL, "intel 6 0x0F,0x16,0x17,0x1D", NULL,
     "Core 2: Merom (0F 16), Penryn (17), Dunnington (1D)",
     /* Linux intel_core2_event_constraints: FP_COMP_OPS_EXE, CYCLES_DIV_BUSY,
      * IDLE_DURING_DIV, RS_UOPS_DISPATCH_CYCLES, ITLB_MISS_RETIRED, MEM_LOAD_RETIRED on
      * counter 0; FP_ASSIST, MUL, DIV, DELAYED_BYPASS on counter 1. */
     "10:0 14:0 18:0 A1:0 C9:0 CB:0 11:1 12:1 13:1 19:1"},
    {"Zen", NULL, NULL, "amd64_fam17h_zen1", NULL, NULL, NULL,
     "amd 0x17 0x00-0x2F,0x50-0x5F", NULL,
     "Zen and Zen+: every model of Linux's family 17h Zen 1 ranges (Naples/Summit\n"
     "Ridge 01, Raven Ridge 11, Pinnacle Ridge 08, Picasso 18, Dali 20, ...)", NULL},
    {"Zen2", NULL, NULL, "amd64_fam17h_zen2", NULL, NULL, NULL,
     "amd 0x17 0x31,0x60,0x68,0x71,0x90,0xA0", NULL,
     "Rome (31), Renoir (60), Lucienne (68), Matisse (71), Van Gogh (90),\n"
     "Mendocino (A0)", NULL},
    {"Zen3", NULL, NULL, "amd64_fam19h_zen3", NULL, NULL, NULL,
     "amd 0x19 0x01,0x08,0x21,0x40,0x44,0x50", NULL,
     "Milan (01), Chagall (08), Vermeer (21), Rembrandt (40/44), Cezanne (50)", NULL},
    {"Zen4", NULL, NULL, "amd64_fam19h_zen4", NULL, NULL, NULL,
     "amd 0x19 0x11,0x18,0x61,0x74,0x78", NULL,
     "Genoa (11), Storm Peak (18), Raphael (61), Phoenix (74), Phoenix 2 (78)", NULL},
};
#undef T
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

#define GEN_TOOL_PATH "build/host/gen_configs"

/* Our event tables (tools/configgen/perfmon_table.py output), relative to the repository. */
#define GEN_TABLES_DIR "configs/tables"

/* What one generation run is for. */
struct target {
    const char *prefix;
    const struct family *fam; /* NULL: a PMU named on the command line, no family */
    bool proxy;               /* fam's first-choice PMU is missing; a later one is used */
    struct gen_pmu pmu;
};

static void usage(void)
{
    fprintf(stderr,
            "usage: gen_configs list\n"
            "       gen_configs PMU OUT_DIR [--prefix NAME]\n"
            "       gen_configs all OUT_DIR\n"
            "       gen_configs verify FILE...\n"
            "       gen_configs check DIR\n"
            "       gen_configs selftest\n");
}

static const struct family *family_by_prefix(const char *prefix)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i].prefix, prefix) == 0)
            return &families[i];
    return NULL;
}

/* The first PMU of fam->pmus this libpfm4 knows; 0 when found. */
static int resolve_family(const struct family *fam, struct target *t)
{
    const char *p = fam->pmus;
    bool first = true;

    while (*p) {
        const char *end = strchr(p, '|');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[64];

        snprintf(name, sizeof(name), "%.*s", (int)len, p);
        if (gen_pfm_find(name, &t->pmu) == 0) {
            t->prefix = fam->prefix;
            t->fam = fam;
            t->proxy = !first;
            return 0;
        }
        first = false;
        p += len + (end ? 1 : 0);
    }
    fprintf(stderr, "gen_configs: %s: libpfm4 %s has none of the PMUs %s\n", fam->prefix,
            gen_pfm_version(), fam->pmus);
    return -1;
}

static bool excluded(const struct target *t, const char *name)
{
    const char *p;

    if (!t->proxy || !t->fam->exclude)
        return false;
    for (p = t->fam->exclude; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char pat[64];

        snprintf(pat, sizeof(pat), "%.*s", (int)len, p);
        if (fnmatch(pat, name, 0) == 0)
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

/* "EVSEL:SET ..." (hex event select, counter set) onto the entries' .CTR. */
static void apply_constraints(const char *spec, struct gen_entry *e, size_t n)
{
    for (const char *p = spec; *p;) {
        unsigned evsel = 0;
        uint32_t mask = 0;
        int used = 0;
        char set[32];

        if (sscanf(p, "%x:%31s%n", &evsel, set, &used) != 2 ||
            gen_ctr_parse(set, strlen(set), &mask) != 0) {
            fprintf(stderr, "gen_configs: bad constraint \"%s\"\n", p);
            return;
        }
        for (size_t i = 0; i < n; i++)
            if (e[i].sel.event == evsel)
                e[i].sel.ctr_mask = mask;
        p += used;
        while (*p == ' ')
            p++;
    }
}

static int generate(const struct target *t, const char *dir)
{
    struct gen_entry *e = NULL;
    size_t n = 0, nall = 0, ncommon = 0, counts[GEN_STATUS_COUNT] = {0};
    struct gen_output out_spec;
    char note[1024];
    const char *why;
    const struct gen_ppr *ppr;
    struct gen_ppr_counts pc = {0};
    int ret = -1;

    if (gen_pfm_check_core(&t->pmu, &why) != 0) {
        fprintf(stderr, "gen_configs: %s: %s\n", t->pmu.name, why);
        return -1;
    }
    if (gen_pfm_collect(&t->pmu, &e, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (e[i].status == GEN_KEEP && excluded(t, e[i].name)) {
            e[i].status = GEN_SKIP_EXCLUDED;
            snprintf(e[i].why, sizeof(e[i].why), "%s; proxy PMU %s", t->fam->exclude_why,
                     t->pmu.name);
        }
    if (t->fam && t->fam->constraints)
        apply_constraints(t->fam->constraints, e, n);
    gen_dedupe(e, n);
    for (size_t i = 0; i < n; i++)
        counts[e[i].status]++;
    out_spec.prefix = t->prefix;
    out_spec.pmu = &t->pmu;
    out_spec.note = NULL;
    if (t->proxy) {
        snprintf(note, sizeof(note), t->fam->note, gen_pfm_version());
        out_spec.note = note;
    }
    if ((ppr = gen_ppr_find(t->prefix)) != NULL) {
        char ppr_note[1024], summary[768], src_full[128];
        size_t nw = 0;
        struct gen_entry *w;

        snprintf(src_full, sizeof(src_full), "libpfm4 %s", t->pmu.name);
        if (!(w = gen_ppr_order(ppr, GEN_TABLES_DIR, "libpfm4", src_full, t->pmu.vendor, e, n,
                                &nw, &pc)))
            goto out;
        gen_ppr_summary(ppr, "libpfm4", &pc, summary, sizeof(summary));
        snprintf(ppr_note, sizeof(ppr_note), "%s%s%s", out_spec.note ? out_spec.note : "",
                 out_spec.note ? "\n" : "", summary);
        out_spec.note = ppr_note;
        if (gen_write_config(dir, &out_spec, true, w, nw, &nall) != 0) {
            free(w);
            goto out;
        }
        free(w);
        out_spec.note = t->proxy ? note : NULL;
    } else if (gen_write_config(dir, &out_spec, true, e, n, &nall) != 0) {
        goto out;
    }
    if (t->fam) {
        /* A family's common file: nanoBench's names first, like the table families. */
        struct gen_table tt = {.vendor = t->pmu.vendor, .gp = t->pmu.num_cntrs, .e = e, .n = n};
        char source[256], regen[256];

        snprintf(tt.path, sizeof(tt.path), "libpfm4 PMU %s", t->pmu.name);
        snprintf(source, sizeof(source), "libpfm4 %s, PMU \"%s\" (%s)", gen_pfm_version(),
                 t->pmu.name, t->pmu.desc);
        snprintf(regen, sizeof(regen), "this PMU only: " GEN_TOOL_PATH " %s configs --prefix %s",
                 t->pmu.name, t->prefix);
        if (gen_tfam_write_common(t->prefix, t->prefix, &tt, GEN_TABLES_DIR, dir, source, regen,
                                  &ncommon) != 0 ||
            gen_ctr_write(dir, t->prefix, t->pmu.vendor, t->pmu.num_cntrs, e, n, source) != 0)
            goto out;
    } else if (gen_write_config(dir, &out_spec, false, e, n, &ncommon) != 0) {
        goto out;
    }

    printf("%-15s %-18s %4zu written, %3zu common; not written:", t->prefix, t->pmu.name,
           nall, ncommon);
    if (counts[GEN_KEEP] == n)
        printf(" none");
    for (int s = GEN_ALIAS; s < GEN_STATUS_COUNT; s++)
        if (counts[s])
            printf(" %zu %s;", counts[s], gen_status_text(s));
    printf("%s\n", t->proxy ? " (proxy PMU)" : "");
    if (ppr)
        printf("%-15s PPR names: %zu (%zu aliased, %zu not in libpfm4); %zu under libpfm4's names\n",
               "", pc.table, pc.aliased, pc.missing, pc.rest);
    if (ncommon < GEN_COMMON_MIN || ncommon > GEN_COMMON_MAX)
        fprintf(stderr, "gen_configs: note: %s common set has %zu events (aim: %d-%d)\n",
                t->prefix, ncommon, GEN_COMMON_MIN, GEN_COMMON_MAX);
    ret = 0;
out:
    free(e);
    return ret;
}

/* cpu_map.txt: one "VENDOR FAMILY MODEL PREFIX [E-PREFIX]" line per CPU model. */
static int write_cpu_map(const char *dir)
{
    char path[4096], tmp[4200];
    FILE *f;

    snprintf(path, sizeof(path), "%s/cpu_map.txt", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        fprintf(stderr, "gen_configs: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f,
            "# CPU -> performance-counter config, used by the image to pick\n"
            "# nanobench/configs/cfg_<PREFIX>_{all,common}.txt for the CPU it runs on.\n"
            "# Generated by tools/configgen/gen_configs.c from its family table; do not edit.\n"
            "# Regenerate: make configs\n"
            "#\n"
            "# Line: VENDOR FAMILY MODEL PREFIX [E_PREFIX]\n"
            "#   VENDOR  intel (GenuineIntel) or amd (AuthenticAMD), from CPUID.0\n"
            "#   FAMILY  display family from CPUID.1:EAX: Family, plus Extended Family when\n"
            "#           Family is 0FH (so 6 for Intel Core, 0x17 Zen/Zen 2, 0x19 Zen 3/Zen 4)\n"
            "#   MODEL   display model: Extended Model << 4 | Model (Family 6 or 0FH)\n"
            "#   Numbers are C literals (decimal or 0x hex); '#' starts a comment line.\n"
            "#   PREFIX  the config for every core; on hybrid Intel parts two prefixes\n"
            "#           follow: the P-core config, then the E-core config, and each logical\n"
            "#           CPU uses the one matching its core type in CPUID.1AH:EAX[31:24]\n"
            "#           (0x40 Intel Core = P-core, 0x20 Intel Atom = E-core).\n"
            "#   Qualifiers (optional, at the end): stepping=FIRST-LAST (CPUID.1:EAX[3:0])\n"
            "#           and native=ID (native model ID, CPUID.1AH:EAX[23:0]): the line is for\n"
            "#           those processors only, and wins over a line without them.\n"
            "#\n"
            "# Sources: Intel model numbers from Linux arch/x86/include/asm/intel-family.h\n"
            "# (SKYLAKE_L 4E, SKYLAKE 5E, SKYLAKE_X 55, KABYLAKE_L 8E, KABYLAKE 9E,\n"
            "# COMETLAKE A5, COMETLAKE_L A6, ICELAKE 7D, ICELAKE_L 7E, ICELAKE_X 6A,\n"
            "# ICELAKE_D 6C, SAPPHIRERAPIDS_X 8F, ALDERLAKE 97, ALDERLAKE_L 9A,\n"
            "# RAPTORLAKE B7, RAPTORLAKE_P BA, RAPTORLAKE_S BF, ATOM_GRACEMONT (ALDERLAKE_N)\n"
            "# BE). AMD: Linux arch/x86/kernel/cpu/amd.c bsp_init_amd() assigns Zen 2 to\n"
            "# family 17h models 30-4F, 60-7F, 90-91, A0-AF; Zen 3 to family 19h models\n"
            "# 00-0F, 20-5F; Zen 4 to family 19h models 10-1F, 60-AF; Zen 5 to family 1Ah\n"
            "# models 00-2F, 40-4F, 60-7F. Listed here are the shipping models inside the\n"
            "# Zen 2-4 ranges and every model of the Zen 5 ranges. Intel: every model that\n"
            "# Intel's perfmon mapfile.csv (commit 6dadedf3) assigns a core event file, with\n"
            "# its steppings and native model IDs (tests/configgen/perfmon_mapfile_test.py).\n"
            "# A model not listed gets no config: the image measures the architectural\n"
            "# events and says so (pmu/pmu_config_map.h).\n");
    for (size_t i = 0; i < NFAMILIES; i++) {
        const struct family *fam = &families[i];
        char vendor[16], famnum[16], models[256], quals[128] = "";
        int used = 0;

        if (!fam->cpus)
            continue; /* E-core half of a hybrid line, or chosen with -config only */
        if (sscanf(fam->cpus, "%15s %15s %255s%n", vendor, famnum, models, &used) != 3) {
            fprintf(stderr, "gen_configs: %s: bad cpus \"%s\"\n", fam->prefix, fam->cpus);
            fclose(f);
            remove(tmp);
            return -1;
        }
        /* stepping=... native=...: written after the prefixes of every line */
        snprintf(quals, sizeof(quals), "%s", fam->cpus + used);
        fprintf(f, "\n# %s:\n", fam->prefix);
        gen_write_comment(f, fam->what);
        /* MODEL or FIRST-LAST (every model of a range, one line each). */
        for (char *save = NULL, *m = strtok_r(models, ",", &save); m;
             m = strtok_r(NULL, ",", &save)) {
            char *dash = strchr(m, '-');
            unsigned long lo = strtoul(m, NULL, 0), hi = dash ? strtoul(dash + 1, NULL, 0) : lo;

            for (unsigned long mod = lo; mod <= hi; mod++) {
                char text[16];
                if (dash)
                    snprintf(text, sizeof(text), "0x%02lX", mod);
                fprintf(f, "%s %s %s %s%s%s%s\n", vendor, famnum, dash ? text : m, fam->prefix,
                        fam->hybrid ? " " : "", fam->hybrid ? fam->hybrid : "", quals);
            }
        }
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "gen_configs: %s: %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* OUT_DIR may be new (one level, like mkdir without -p). */
static int ensure_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_configs: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static int cmd_all(const char *dir)
{
    int failed = 0, pfm_ready = 0;

    if (ensure_dir(dir) != 0)
        return 1;
    for (size_t i = 0; i < NFAMILIES; i++) {
        struct target t;
        if (families[i].table) {
            struct gen_tfam tf = {families[i].prefix, families[i].table, families[i].alias,
                                  split_family(families[i].prefix)};
            if (gen_tfam_generate(&tf, GEN_TABLES_DIR, dir) != 0)
                failed = 1;
        } else if (!pfm_ready && (pfm_ready = gen_pfm_init() == 0 ? 1 : -1) < 0) {
            failed = 1;
        } else if (pfm_ready < 0 || resolve_family(&families[i], &t) != 0 ||
                   generate(&t, dir) != 0) {
            failed = 1;
        }
    }
    if (write_cpu_map(dir) != 0 || gen_msr_write_all(dir) != 0)
        failed = 1;
    return failed;
}

static int cmd_pmu(const char *pmu, const char *dir, const char *prefix)
{
    struct target t = {0};
    const struct family *fam;

    if (gen_pfm_find(pmu, &t.pmu) != 0) {
        fprintf(stderr, "gen_configs: libpfm4 %s has no PMU \"%s\" (see: gen_configs list)\n",
                gen_pfm_version(), pmu);
        return 1;
    }
    t.prefix = prefix ? prefix : pmu;
    /* A family prefix brings that family's proxy note and exclusions along. */
    if ((fam = family_by_prefix(t.prefix)) != NULL && fam->pmus) {
        size_t first = strcspn(fam->pmus, "|");
        t.fam = fam;
        t.proxy = !(strlen(pmu) == first && strncmp(fam->pmus, pmu, first) == 0);
        if (t.proxy && !strstr(fam->pmus, pmu)) {
            fprintf(stderr, "gen_configs: %s is not one of %s's PMUs (%s)\n", pmu,
                    fam->prefix, fam->pmus);
            return 1;
        }
    }
    return ensure_dir(dir) != 0 || generate(&t, dir) != 0;
}

/* The MSR configs gen_msr.c writes. */
static const char *const msr_files[] = {"msr_RAPL.txt", "msr_RAPL_AMD.txt",
                                        "msr_uncore_Skylake.txt", "msr_uncore_Zen4.txt"};

/* Known values, counter constraints, cpu_map lookups and MSR configs in dir. */
static int cmd_check(const char *dir)
{
    int problems = gen_check_known(GEN_TABLES_DIR "/known.txt", dir) + gen_check_cpu_map(dir) +
                   gen_check_msr(dir, msr_files, (int)(sizeof(msr_files) / sizeof(msr_files[0])));
    char path[512];

    for (size_t i = 0; i < NFAMILIES; i++) {
        if (!families[i].table)
            continue;
        snprintf(path, sizeof(path), "%s/%s.txt", GEN_TABLES_DIR, families[i].table);
        problems += gen_check_constraints(families[i].prefix, path, dir);
    }
    printf("gen_configs check: %s: %d problems\n", dir, problems);
    return problems != 0;
}

static int cmd_verify(int argc, char **argv)
{
    int problems = 0;

    for (int i = 0; i < argc; i++) {
        int p = gen_verify_file(argv[i], stderr);
        problems += p;
        printf("%s: %s\n", argv[i], p ? "FAILED" : "ok");
    }
    return problems != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "verify") == 0) {
        if (argc < 3) {
            usage();
            return 2;
        }
        return cmd_verify(argc - 2, argv + 2);
    }
    if (argc == 2 && strcmp(argv[1], "selftest") == 0)
        return gen_selftest();
    if (argc < 2) {
        usage();
        return 2;
    }
    if (strcmp(argv[1], "all") == 0 && argc == 3)
        return cmd_all(argv[2]);
    if (strcmp(argv[1], "check") == 0 && argc == 3)
        return cmd_check(argv[2]);
    if (gen_pfm_init() != 0)
        return 1;
    if (strcmp(argv[1], "list") == 0 && argc == 2) {
        gen_pfm_list(stdout);
        return 0;
    }
    if (argc == 3)
        return cmd_pmu(argv[1], argv[2], NULL);
    if (argc == 5 && strcmp(argv[3], "--prefix") == 0)
        return cmd_pmu(argv[1], argv[2], argv[4]);
    usage();
    return 2;
}
