/*
 * test_ctr_rules.c — the vendor's counter restrictions (pmu_ctr_rules.h) hold for
 * every config, not only for lines carrying `.CTR=`: the ctr_<NAME>.txt reader and
 * its lookup order, the config parser applying them (a `.CTR=` set narrows, never
 * widens), the scheduler keeping nanoBench's `D1.01` (no `.CTR`) off PMC4-7 of an
 * 8-counter Skylake, and every shipped configs/ctr_<NAME>.txt giving each event of
 * its cfg_<NAME>_all*.txt exactly the counter set the vendor's list gives it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb_test.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_ctr_rules.h"
#include "pmu_schedule.h"

struct log {
    char text[1024];
};

static void log_error(void *arg, unsigned line, const char *message)
{
    struct log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

static struct pmu_desc skylake(uint32_t gp_mask, const struct pmu_ctr_rules *rules)
{
    struct pmu_desc d = { .vendor = VENDOR_INTEL, .family = 6, .model = 0x5E, .version = 4,
                          .gp_mask = gp_mask, .n_gp = (unsigned)__builtin_popcount(gp_mask),
                          .gp_width = 48, .n_fixed = 3, .ctr_rules = rules };
    return d;
}

/* The lines configs/ctr_Skylake.txt has for these events (perfmon SKL, 8 counters). */
static const char SKYLAKE_RULES[] = "# test\n"
                                    "A3.14 0-3\n"
                                    "C0.01 1\n"
                                    "C0.01.CMSK=10.INV 0,2-3\n"
                                    "D1 0-3\n";

static struct pmu_ctr_rules rules;

static void load(const char *text, enum cpu_vendor vendor)
{
    struct log log = { "" };
    pmu_ctr_rules_parse(text, strlen(text), vendor, "configs/ctr_Test.txt", &rules, log_error, &log);
    CHECK_EQ_STR(log.text, "");
}

NB_TEST(ctr_rules_lookup_most_specific_line_first)
{
    load(SKYLAKE_RULES, VENDOR_INTEL);
    CHECK_EQ_U64(rules.n, 4);
    struct pmu_event ev = { .event = 0xC0, .umask = 0x01 };
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0x2); /* INST_RETIRED.PREC_DIST */
    ev.cmask = 10;
    ev.inv = true;
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0xD); /* .TOTAL_CYCLES_PS */
    ev.inv = false;
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0x2); /* another encoding: the EVENT.UMASK line */
    ev = (struct pmu_event){ .event = 0xC0, .umask = 0x00 };
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), PMU_CTR_ALL); /* INST_RETIRED.ANY_P */
    ev = (struct pmu_event){ .event = 0xD1, .umask = 0x40 };
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0xF); /* a unit mask no line names: EVENT line */
    ev = (struct pmu_event){ .event = 0xA3, .umask = 0x14, .cmask = 20 };
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0xF);
    CHECK_EQ_U64(pmu_ctr_rules_lookup(NULL, &ev), PMU_CTR_ALL);
}

NB_TEST(ctr_rules_bad_lines_are_reported_and_skipped)
{
    const char *text = "D1 0-3\nXYZ 0-3\nD1.01 0-\nD1.01.FOO 1\n0C0.00 1\nC0.00\n";
    struct log log = { "" };
    CHECK_EQ_U64(pmu_ctr_rules_parse(text, strlen(text), VENDOR_INTEL, "x", &rules, log_error, &log), 1);
    CHECK_EQ_STR(log.text, "2: bad event code 'XYZ'\n"
                           "3: bad counter set '0-' (n, a-b or a,b,...)\n"
                           "4: unknown modifier '.FOO'\n"
                           "5: bad event code '0C0'\n"
                           "6: bad counter set '' (n, a-b or a,b,...)\n");
    /* AMD: 3-digit event codes. */
    load("0C0.00 0-2\n", VENDOR_AMD);
    struct pmu_event ev = { .event = 0xC0, .umask = 0 };
    CHECK_EQ_U64(pmu_ctr_rules_lookup(&rules, &ev), 0x7);
}

NB_TEST(ctr_rules_apply_to_events_without_ctr_and_narrow_ctr_sets)
{
    load(SKYLAKE_RULES, VENDOR_INTEL);
    struct pmu_desc d = skylake(0xFF, &rules);
    struct pmu_event ev[8];
    struct log log = { "" };
    const char *cfg = "D1.01 MEM_LOAD_RETIRED.L1_HIT\n"
                      "D1.01.CTR=2-7 NARROWED\n"
                      "C0.01 PREC_DIST\n"
                      "C0.00 ANY_P\n"
                      "D1.01.CTR=5 PINNED_OUTSIDE\n"
                      "D1.01.CTR=4-7 SET_OUTSIDE\n"
                      "D1.01.CTR=3 PINNED_INSIDE\n";
    size_t n = pmu_config_parse(cfg, strlen(cfg), &d, ev, 8, log_error, &log);
    CHECK_EQ_STR(log.text,
                 "5: .CTR=5: this processor counts D1.01 only on counters 0-3 (configs/ctr_Test.txt)\n"
                 "6: .CTR=4-7: this processor counts D1.01 only on counters 0-3 (configs/ctr_Test.txt)\n");
    REQUIRE(n == 5);
    CHECK_EQ_U64(ev[0].ctr_mask, 0xF);
    CHECK_EQ_INT(ev[0].ctr, -1);
    CHECK_EQ_U64(ev[1].ctr_mask, 0xC);
    CHECK_EQ_U64(ev[2].ctr_mask, 0x2);
    CHECK_EQ_U64(ev[3].ctr_mask, 0);
    CHECK_EQ_U64(ev[4].ctr_mask, 0x8);
    CHECK_EQ_INT(ev[4].ctr, 3);
    /* Hyper-Threading on: 4 counters, all of them allowed; nothing to restrict. */
    d = skylake(0xF, &rules);
    memset(&log, 0, sizeof(log));
    const char *two = "D1.01 MEM_LOAD_RETIRED.L1_HIT\nD1.01.CTR=2-7 NARROWED\n";
    n = pmu_config_parse(two, strlen(two), &d, ev, 8, log_error, &log);
    CHECK_EQ_STR(log.text, "");
    REQUIRE(n == 2);
    CHECK_EQ_U64(ev[0].ctr_mask, 0);
    CHECK_EQ_U64(ev[1].ctr_mask, 0xC);
    /* Counters 4-7 only (a bitmap with a hole): the restricted event has none left. */
    d = skylake(0xF0, &rules);
    memset(&log, 0, sizeof(log));
    n = pmu_config_parse("D1.01 L1_HIT\n", 13, &d, ev, 8, log_error, &log);
    CHECK_EQ_U64(n, 0);
    CHECK_EQ_STR(log.text, "1: this processor counts D1.01 only on counters 0-3 "
                           "(configs/ctr_Test.txt), none of which is here\n");
}

/* nanoBench's cfg lines carry no .CTR: four unrestricted events first, D1.01 fifth. */
NB_TEST(ctr_rules_keep_nanobench_d1_01_off_pmc4_to_7_on_8_counter_skylake)
{
    const char *cfg = "C0.00 INST_RETIRED.ANY_P\n"
                      "3C.00 CPU_CLK_UNHALTED.THREAD_P\n"
                      "0E.01 UOPS_ISSUED.ANY\n"
                      "C2.02 UOPS_RETIRED.RETIRE_SLOTS\n"
                      "D1.01 MEM_LOAD_RETIRED.L1_HIT\n";
    struct pmu_event ev[8];
    struct pmu_group g[8];
    struct log log = { "" };
    /* Without the restrictions (the bug): config order puts D1.01 on PMC4. */
    struct pmu_desc d = skylake(0xFF, NULL);
    size_t n = pmu_config_parse(cfg, strlen(cfg), &d, ev, 8, log_error, &log);
    REQUIRE(n == 5 && pmu_schedule(ev, n, 0xFF, g) == 1);
    CHECK_EQ_U64(g[0].counter[4], 4);
    load(SKYLAKE_RULES, VENDOR_INTEL);
    d = skylake(0xFF, &rules);
    n = pmu_config_parse(cfg, strlen(cfg), &d, ev, 8, log_error, &log);
    CHECK_EQ_STR(log.text, "");
    REQUIRE(n == 5 && pmu_schedule(ev, n, 0xFF, g) == 1);
    for (unsigned k = 0; k < g[0].n; k++) {
        if (g[0].event_index[k] == 4)
            CHECK(g[0].counter[k] <= 3);
    }
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
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void ignore(void *arg, unsigned line, const char *message)
{
    (void)arg;
    (void)line;
    (void)message;
}

static struct pmu_event plain_events[PMU_MAX_EVENTS], ruled_events[PMU_MAX_EVENTS];

/*
 * The generator and the image agree: each event of a family's _all files gets,
 * under that family's ctr file, exactly the set its own .CTR= gives (none: every
 * counter), on a PMU with more counters than any table lists.
 */
NB_TEST(ctr_rules_shipped_files_match_every_all_config)
{
    DIR *dir = opendir("configs");
    REQUIRE(dir);
    unsigned files = 0, checked = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        char prefix[128], path[300];
        size_t len = strlen(de->d_name);
        if (strncmp(de->d_name, "ctr_", 4) != 0 || len < 9 || strcmp(de->d_name + len - 4, ".txt"))
            continue;
        snprintf(prefix, sizeof(prefix), "%.*s", (int)(len - 8), de->d_name + 4);
        snprintf(path, sizeof(path), "configs/%s", de->d_name);
        size_t rlen;
        char *rtext = slurp(path, &rlen);
        REQUIRE(rtext);
        const char *kinds[] = { "all", "all_core", "all_offcore" };
        for (unsigned k = 0; k < 3; k++) {
            char cfg_path[300];
            size_t clen;
            snprintf(cfg_path, sizeof(cfg_path), "configs/cfg_%s_%s.txt", prefix, kinds[k]);
            char *ctext = slurp(cfg_path, &clen);
            if (!ctext)
                continue;
            enum cpu_vendor vendor = strstr(ctext, "# vendor: amd") ? VENDOR_AMD : VENDOR_INTEL;
            struct log log = { "" };
            pmu_ctr_rules_parse(rtext, rlen, vendor, path, &rules, log_error, &log);
            CHECK_EQ_STR(log.text, "");
            struct pmu_desc d = { .vendor = vendor, .family = vendor == VENDOR_AMD ? 0x19 : 6,
                                  .version = 4, .n_gp = PMU_MAX_GP, .gp_width = 48, .n_fixed = 3 };
            size_t n = pmu_config_parse(ctext, clen, &d, plain_events, PMU_MAX_EVENTS, ignore, NULL);
            d.ctr_rules = &rules;
            size_t m = pmu_config_parse(ctext, clen, &d, ruled_events, PMU_MAX_EVENTS, ignore, NULL);
            CHECK_EQ_U64(m, n);
            for (size_t i = 0; i < n && i < m; i++) {
                if (plain_events[i].ctr_mask != ruled_events[i].ctr_mask) {
                    nb_test_note("%s line %u %s: .CTR %#x, rules %#x", cfg_path, plain_events[i].line,
                                 plain_events[i].name, plain_events[i].ctr_mask,
                                 ruled_events[i].ctr_mask);
                    CHECK(!"ctr file and config disagree");
                }
                checked++;
            }
            files++;
            free(ctext);
        }
        free(rtext);
    }
    closedir(dir);
    CHECK(files >= 50);
    CHECK(checked >= 10000);
    nb_test_note("%u configs, %u events", files, checked);
}
