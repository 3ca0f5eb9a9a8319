/*
 * gen_configs — host tool: nanoBench performance-counter configs from libpfm4.
 *
 *   gen_configs list                          libpfm4 PMU names and descriptions
 *   gen_configs PMU OUT_DIR [--prefix NAME]   OUT_DIR/cfg_NAME_{all,common}.txt
 *   gen_configs all OUT_DIR                   every family below + cpu_map.txt
 *   gen_configs verify FILE...                grammar/width/duplicate self-check
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

#include "gen_common.h"
#include "gen_evtsel.h"
#include "gen_pfm.h"
#include "gen_selftest.h"
#include "gen_verify.h"
#include "gen_write.h"

struct family {
    const char *prefix;  /* cfg_<prefix>_{all,common}.txt */
    const char *pmus;    /* libpfm4 PMUs to try, '|'-separated: the first one present wins */
    const char *note;    /* header note when a later (proxy) PMU had to be used */
    const char *exclude; /* ','-separated name patterns dropped from a proxy PMU */
    const char *exclude_why; /* why they are dropped (shown in the _all file) */
    const char *cpus;    /* "VENDOR FAMILY MODEL,MODEL,..." rows for cpu_map.txt */
    const char *hybrid;  /* E-core prefix sharing these models (hybrid parts) */
    const char *what;    /* cpu_map.txt comment */
};

/*
 * Model numbers: Linux arch/x86/include/asm/intel-family.h (Intel) and the Zen
 * generation ranges in arch/x86/kernel/cpu/amd.c bsp_init_amd() (AMD).
 */
static const struct family families[] = {
    {"Skylake", "skl", NULL, NULL, NULL, "intel 6 0x4E,0x5E,0x55,0x8E,0x9E,0xA5,0xA6", NULL,
     "Skylake (4E/5E), Skylake-SP/Cascade Lake (55), Kaby/Coffee Lake (8E/9E),\n"
     "Comet Lake (A5/A6)"},
    {"IceLake", "icl", NULL, NULL, NULL, "intel 6 0x7D,0x7E,0x6A,0x6C", NULL,
     "Ice Lake client (7D/7E), Ice Lake-SP (6A), Ice Lake-D (6C)"},
    {"AlderLake-P", "adl_glc|spr",
     "libpfm4 %s has no Alder Lake P-core (Golden Cove) table (adl_glc came after 4.13).\n"
     "These events come from its Sapphire Rapids table (spr): the same Golden Cove core.\n"
     "Server-only events (remote socket, SNC, PMM, local socket) are left out.\n"
     "With a libpfm4 that has adl_glc, `make configs` uses it instead.",
     "*REMOTE*,*SNC*,*PMM*,*SOCKET*", "server-only (remote socket, SNC or PMM)",
     "intel 6 0x97,0x9A,0xB7,0xBA,0xBF", "AlderLake-E",
     "Alder Lake (97/9A), Raptor Lake (B7/BA/BF); hybrid: P-core, then E-core config"},
    {"AlderLake-E", "adl_grt|tmt",
     "libpfm4 %s has no Alder Lake E-core (Gracemont) table (adl_grt came after 4.13).\n"
     "These events come from its Tremont table (tmt), the Atom core before Gracemont,\n"
     "under libpfm4's Tremont names. Each encoding was checked against Intel's Gracemont\n"
     "event list (perfmon ADL/events/alderlake_gracemont_core.json, v1.29); the Tremont\n"
     "events Gracemont lacks or encodes differently are left out. Gracemont has many\n"
     "more events (e.g. UOPS_ISSUED.ANY 0E.00, TOPDOWN_*) that libpfm4 4.13 cannot give.\n"
     "With a libpfm4 that has adl_grt, `make configs` uses it instead.",
     /* Tremont encodings absent from (or different in) the Gracemont list, v1.29. */
     "CYCLES_DIV_BUSY.*,MACHINE_CLEARS.ANY,ITLB.FILLS,*.WALK_COMPLETED_*,*_L3_MISS",
     "not in Intel's Gracemont event list with this encoding", "intel 6 0xBE", NULL,
     "Alder Lake-N (E-cores only)"},
    {"SapphireRapids", "spr", NULL, NULL, NULL, "intel 6 0x8F", NULL, "Sapphire Rapids"},
    {"Zen2", "amd64_fam17h_zen2", NULL, NULL, NULL, "amd 0x17 0x31,0x60,0x68,0x71,0x90,0xA0",
     NULL, "Rome (31), Renoir (60), Lucienne (68), Matisse (71), Van Gogh (90),\n"
     "Mendocino (A0)"},
    {"Zen3", "amd64_fam19h_zen3", NULL, NULL, NULL, "amd 0x19 0x01,0x08,0x21,0x40,0x44,0x50",
     NULL, "Milan (01), Chagall (08), Vermeer (21), Rembrandt (40/44), Cezanne (50)"},
    {"Zen4", "amd64_fam19h_zen4", NULL, NULL, NULL, "amd 0x19 0x11,0x18,0x61,0x74,0x78", NULL,
     "Genoa (11), Storm Peak (18), Raphael (61), Phoenix (74), Phoenix 2 (78)"},
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

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

static int generate(const struct target *t, const char *dir)
{
    struct gen_entry *e = NULL;
    size_t n = 0, nall = 0, ncommon = 0, counts[GEN_STATUS_COUNT] = {0};
    struct gen_output out_spec;
    char note[1024];
    const char *why;
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
    if (gen_write_config(dir, &out_spec, true, e, n, &nall) != 0 ||
        gen_write_config(dir, &out_spec, false, e, n, &ncommon) != 0)
        goto out;

    printf("%-15s %-18s %4zu written, %3zu common; not written:", t->prefix, t->pmu.name,
           nall, ncommon);
    if (nall == n)
        printf(" none");
    for (int s = GEN_ALIAS; s < GEN_STATUS_COUNT; s++)
        if (counts[s])
            printf(" %zu %s;", counts[s], gen_status_text(s));
    printf("%s\n", t->proxy ? " (proxy PMU)" : "");
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
            "# Generated by tools/gen_configs.c from its family table; do not edit.\n"
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
            "#\n"
            "# Sources: Intel model numbers from Linux arch/x86/include/asm/intel-family.h\n"
            "# (SKYLAKE_L 4E, SKYLAKE 5E, SKYLAKE_X 55, KABYLAKE_L 8E, KABYLAKE 9E,\n"
            "# COMETLAKE A5, COMETLAKE_L A6, ICELAKE 7D, ICELAKE_L 7E, ICELAKE_X 6A,\n"
            "# ICELAKE_D 6C, SAPPHIRERAPIDS_X 8F, ALDERLAKE 97, ALDERLAKE_L 9A,\n"
            "# RAPTORLAKE B7, RAPTORLAKE_P BA, RAPTORLAKE_S BF, ATOM_GRACEMONT (ALDERLAKE_N)\n"
            "# BE). AMD: Linux arch/x86/kernel/cpu/amd.c bsp_init_amd() assigns Zen 2 to\n"
            "# family 17h models 30-4F, 60-7F, 90-91, A0-AF; Zen 3 to family 19h models\n"
            "# 00-0F, 20-5F; Zen 4 to family 19h models 10-1F, 60-AF. Listed here are the\n"
            "# shipping models inside those ranges.\n");
    for (size_t i = 0; i < NFAMILIES; i++) {
        const struct family *fam = &families[i];
        char vendor[16], famnum[16], models[256];

        if (sscanf(fam->cpus, "%15s %15s %255s", vendor, famnum, models) != 3) {
            fprintf(stderr, "gen_configs: %s: bad cpus \"%s\"\n", fam->prefix, fam->cpus);
            fclose(f);
            remove(tmp);
            return -1;
        }
        fprintf(f, "\n# %s:\n", fam->prefix);
        gen_write_comment(f, fam->what);
        for (char *save = NULL, *m = strtok_r(models, ",", &save); m;
             m = strtok_r(NULL, ",", &save))
            fprintf(f, "%s %s %s %s%s%s\n", vendor, famnum, m, fam->prefix,
                    fam->hybrid ? " " : "", fam->hybrid ? fam->hybrid : "");
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
    int failed = 0;

    if (ensure_dir(dir) != 0)
        return 1;
    for (size_t i = 0; i < NFAMILIES; i++) {
        struct target t;
        if (resolve_family(&families[i], &t) != 0 || generate(&t, dir) != 0)
            failed = 1;
    }
    if (write_cpu_map(dir) != 0)
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
    if ((fam = family_by_prefix(t.prefix)) != NULL) {
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
    if (gen_pfm_init() != 0)
        return 1;
    if (strcmp(argv[1], "list") == 0 && argc == 2) {
        gen_pfm_list(stdout);
        return 0;
    }
    if (strcmp(argv[1], "all") == 0 && argc == 3)
        return cmd_all(argv[2]);
    if (argc == 3)
        return cmd_pmu(argv[1], argv[2], NULL);
    if (argc == 5 && strcmp(argv[3], "--prefix") == 0)
        return cmd_pmu(argv[1], argv[2], argv[4]);
    usage();
    return 2;
}
