/*
 * test_pmu.c — performance-counter programming through the fake seam:
 * config parsing, PERFEVTSEL / PERF_CTL values checked against the bit
 * layouts of the Intel SDM (vol. 3B figure 20-1) and AMD APM (vol. 2
 * 13.2.1), scheduling constraints, the save/program/restore sequence, CPUID
 * detection and the probe.
 */
#include "host_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_config_map.h"
#include "pmu_config_parse.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <stdio.h>
#include <string.h>

struct parse_log {
    char text[1024];
};

static void log_error(void *arg, unsigned line, const char *message)
{
    struct parse_log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

static size_t parse_desc(const char *text, const struct pmu_desc *d, struct pmu_event *ev,
                         struct parse_log *log)
{
    memset(log, 0, sizeof(*log));
    return pmu_config_parse(text, strlen(text), d, ev, 64, log_error, log);
}

static size_t parse(const char *text, enum cpu_vendor vendor, unsigned n_gp, struct pmu_event *ev,
                    struct parse_log *log)
{
    struct pmu_desc d = { .vendor = vendor, .n_gp = n_gp };
    return parse_desc(text, &d, ev, log);
}

static const struct {
    const char *line;
    uint64_t perfevtsel; /* USR | OS | EN always set */
} INTEL_ENCODINGS[] = {
    { "0E.01.CMSK=1.INV UOPS_ISSUED.STALL_CYCLES", 0x01C3010Eull }, /* PMU-FACTS example */
    { "C0.00 INST_RETIRED.ANY_P", 0x004300C0ull },
    { "3C.00.AnyT CPU_CLK_UNHALTED.THREAD_ANY", 0x0063003Cull },   /* ANY = bit 21 */
    { "A3.04.CMSK=4 CYCLE_ACTIVITY.STALLS_TOTAL", 0x044304A3ull },
    { "C1.02.EDG OTHER_ASSISTS", 0x004702C1ull },                  /* EDGE = bit 18 */
    { "d1.20.cmsk=0x3 LOWER_CASE_HEX", 0 },                        /* CMSK is case-sensitive */
};

NB_TEST(pmu_intel_perfevtsel_values)
{
    for (size_t i = 0; i < NB_ARRAY_SIZE(INTEL_ENCODINGS); i++) {
        struct pmu_event ev[2];
        struct parse_log log;
        size_t n = parse(INTEL_ENCODINGS[i].line, VENDOR_INTEL, 4, ev, &log);
        if (INTEL_ENCODINGS[i].perfevtsel == 0) {
            CHECK_EQ_INT(n, 0);
            CHECK_EQ_STR(log.text, "1: unknown modifier '.cmsk=0x3'\n");
            continue;
        }
        REQUIRE(n == 1);
        CHECK_EQ_U64(pmu_intel_ops.encode(&ev[0]), INTEL_ENCODINGS[i].perfevtsel);
    }
}

NB_TEST(pmu_amd_perf_ctl_values)
{
    static const struct {
        const char *line;
        uint64_t perf_ctl;
    } cases[] = {
        { "1CF.04 EVENT_WITH_HIGH_BITS", 0x1004304CFull }, /* event[11:8] at 35:32 */
        { "0C0.00 RETIRED_INSTRUCTIONS", 0x004300C0ull },
        { "076.00.CMSK=2.INV CYCLES", 0x02C30076ull },
        { "0AF.FF.CMSK=255.EDG FULL_MASK", 0xFF47FFAFull },   /* 8-bit CntMask (APM) */
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct pmu_event ev[1];
        struct parse_log log;
        REQUIRE(parse(cases[i].line, VENDOR_AMD, 6, ev, &log) == 1);
        CHECK_EQ_U64(pmu_amd_ops.encode(&ev[0]), cases[i].perf_ctl);
    }
}

NB_TEST(pmu_config_modifiers_and_aux)
{
    struct pmu_event ev[4];
    struct parse_log log;
    size_t n = parse("# comment\n\nB7.01.MSR_RSP0=0x10001.MSR_RSP1=10002.TakenAlone.CTR=3 OFFCORE\n"
                     "CD.01.MSR_3F6H=4.MSR_PF=0x11 LOAD_LATENCY\n",
                     VENDOR_INTEL, 4, ev, &log);
    REQUIRE(n == 2);
    CHECK_EQ_STR(log.text, "");
    CHECK_EQ_STR(ev[0].name, "OFFCORE");
    CHECK_EQ_INT(ev[0].line, 3);
    CHECK(ev[0].taken_alone);
    CHECK_EQ_INT(ev[0].ctr, 3);
    CHECK(ev[0].has_aux[AUX_RSP0] && ev[0].aux[AUX_RSP0] == 0x10001);
    CHECK(ev[0].has_aux[AUX_RSP1] && ev[0].aux[AUX_RSP1] == 0x10002);
    CHECK(!ev[0].has_aux[AUX_3F6H]);
    CHECK(ev[1].has_aux[AUX_3F6H] && ev[1].aux[AUX_3F6H] == 4);
    CHECK(ev[1].has_aux[AUX_PF] && ev[1].aux[AUX_PF] == 0x11);
    CHECK_EQ_INT(ev[1].ctr, -1);
}

NB_TEST(pmu_config_bad_lines_are_reported_and_skipped)
{
    struct pmu_event ev[8];
    struct parse_log log;
    size_t n = parse("C0.00 GOOD_1\n"
                     "C0.00.FOO BAD_MODIFIER\n"
                     "ZZ.01 BAD_HEX\n"
                     "C0.00\n"
                     "C0.00.CTR=4 BEYOND\n"
                     "1C0.00 THREE_DIGITS_ON_INTEL\n"
                     "C0 NO_UMASK\n"
                     "3C.00 GOOD_2\n",
                     VENDOR_INTEL, 4, ev, &log);
    REQUIRE(n == 2);
    CHECK_EQ_STR(ev[0].name, "GOOD_1");
    CHECK_EQ_STR(ev[1].name, "GOOD_2");
    CHECK_EQ_INT(ev[1].line, 8);
    CHECK_EQ_STR(log.text, "2: unknown modifier '.FOO'\n"
                           "3: bad event code 'ZZ' (1-2 hex digits)\n"
                           "4: event 'C0.00' has no name\n"
                           "5: .CTR=4 is beyond the 4 counters of this CPU\n"
                           "6: bad event code '1C0' (1-2 hex digits)\n"
                           "7: 'C0' needs EVENT.UMASK\n");
}

static size_t schedule(const char *config, unsigned n_gp, struct pmu_event *ev, struct pmu_group *g)
{
    struct parse_log log;
    size_t n = parse(config, VENDOR_INTEL, n_gp, ev, &log);
    return pmu_schedule(ev, n, pmu_low_bits(n_gp), g);
}

NB_TEST(pmu_schedule_fills_groups_in_order)
{
    struct pmu_event ev[8];
    struct pmu_group g[8];
    size_t n = schedule("C0.00 A\n3C.00 B\n0E.01 C\nB1.01 D\nC4.00 E\nC5.00 F\n", 4, ev, g);
    REQUIRE(n == 2);
    CHECK_EQ_INT(g[0].n, 4);
    CHECK_EQ_INT(g[1].n, 2);
    CHECK_EQ_INT(g[1].event_index[0], 4);
    CHECK_EQ_INT(g[1].counter[0], 0);
    CHECK_EQ_INT(g[1].event_index[1], 5);
    CHECK_EQ_INT(g[1].counter[1], 1);
}

NB_TEST(pmu_schedule_pinned_counters_first)
{
    struct pmu_event ev[8];
    struct pmu_group g[8];
    /* B and D both need counter 2: they cannot share a group. */
    size_t n = schedule("C0.00 A\n3C.00.CTR=2 B\n0E.01 C\nB1.01.CTR=2 D\nC4.00 E\n", 4, ev, g);
    REQUIRE(n == 2);
    CHECK_EQ_INT(g[0].n, 4); /* B on 2, then A, C, E first-fit on 0, 1, 3 */
    CHECK_EQ_INT(g[0].event_index[0], 0);
    CHECK_EQ_INT(g[0].counter[0], 0);
    CHECK_EQ_INT(g[0].event_index[1], 1);
    CHECK_EQ_INT(g[0].counter[1], 2);
    CHECK_EQ_INT(g[0].event_index[3], 4);
    CHECK_EQ_INT(g[0].counter[3], 3);
    CHECK_EQ_INT(g[1].n, 1);
    CHECK_EQ_INT(g[1].event_index[0], 3);
    CHECK_EQ_INT(g[1].counter[0], 2);
}

NB_TEST(pmu_schedule_taken_alone_and_aux_conflicts)
{
    struct pmu_event ev[8];
    struct pmu_group g[8];
    size_t n = schedule("C0.00 A\n"
                        "B7.01.MSR_RSP0=1 R1\n"
                        "B7.01.MSR_RSP0=2 R2\n"
                        "BB.01.MSR_RSP0=1 R1_AGAIN\n"
                        "A3.08.TakenAlone ALONE\n"
                        "3C.00 B\n",
                        4, ev, g);
    REQUIRE(n == 3);
    /* A, R1, R1_AGAIN (same RSP0 value), B */
    CHECK_EQ_INT(g[0].n, 4);
    CHECK_EQ_INT(g[0].event_index[2], 3);
    CHECK(g[0].has_aux[AUX_RSP0] && g[0].aux[AUX_RSP0] == 1);
    /* R2 needs another RSP0 value */
    CHECK_EQ_INT(g[1].n, 1);
    CHECK_EQ_INT(g[1].event_index[0], 2);
    /* ALONE gets a group of its own */
    CHECK_EQ_INT(g[2].n, 1);
    CHECK_EQ_INT(g[2].event_index[0], 4);
    CHECK(g[2].alone);
}

/* A 4-counter Intel perfmon v4 with 3 fixed counters (Skylake). */
static void intel_desc(struct pmu_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->vendor = VENDOR_INTEL;
    d->version = 4;
    d->n_gp = 4;
    d->gp_width = 48;
    d->n_fixed = 3;
}

NB_TEST(pmu_session_programs_and_restores)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    intel_desc(&d);
    /* Whatever was there before must be there after. */
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full);
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0 + 1, 0x4300c0);
    host_msr_set(&h, MSR_IA32_FIXED_CTR_CTRL, 0x222);
    host_msr_set(&h, MSR_OFFCORE_RSP_0, 0x77);

    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("C0.00 A\nB7.01.MSR_RSP0=0x10001 R\n", 4, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    h.n_writes = 0;
    pmu_program_group(&s, ev, &g[0], true);
    static const struct host_msr_write expected[] = {
        { MSR_IA32_PERF_GLOBAL_CTRL, 0 },
        { MSR_IA32_PERFEVTSEL0 + 2, 0 },
        { MSR_IA32_PERFEVTSEL0 + 3, 0 },
        { MSR_OFFCORE_RSP_0, 0x10001 },
        { MSR_IA32_PERFEVTSEL0, 0 },
        { MSR_IA32_PMC0, 0 },
        { MSR_IA32_PERFEVTSEL0, 0x4300C0 },
        { MSR_IA32_PERFEVTSEL0 + 1, 0 },
        { MSR_IA32_PMC0 + 1, 0 },
        { MSR_IA32_PERFEVTSEL0 + 1, 0x4301B7 },
        { MSR_IA32_FIXED_CTR_CTRL, 0 },
        { MSR_IA32_FIXED_CTR0, 0 },
        { MSR_IA32_FIXED_CTR0 + 1, 0 },
        { MSR_IA32_FIXED_CTR0 + 2, 0 },
        { MSR_IA32_FIXED_CTR_CTRL, 0x333 },
        { MSR_IA32_PERF_GLOBAL_CTRL, 0x700000003ull },
    };
    REQUIRE(h.n_writes == NB_ARRAY_SIZE(expected));
    for (size_t i = 0; i < NB_ARRAY_SIZE(expected); i++) {
        CHECK_EQ_U64(h.writes[i].msr, expected[i].msr);
        CHECK_EQ_U64(h.writes[i].value, expected[i].value);
    }

    struct counter_read reads[NB_MAX_COUNTERS];
    size_t n = pmu_group_reads(&s, ev, &g[0], true, reads);
    REQUIRE(n == 6);
    CHECK_EQ_INT(reads[0].kind, READ_TSC);
    CHECK_EQ_STR(reads[1].name, "Instructions retired");
    CHECK_EQ_U64(reads[3].ecx, RDPMC_FIXED | 2);
    CHECK_EQ_STR(reads[5].name, "R");
    CHECK_EQ_U64(reads[5].ecx, 1);

    pmu_session_end(&s);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0x70000000full);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0 + 1), 0x4300c0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0x222);
    CHECK_EQ_U64(host_msr_get(&h, MSR_OFFCORE_RSP_0), 0x77);
    /* The global control is the last write: nothing counts while the rest is restored. */
    CHECK_EQ_U64(h.writes[h.n_writes - 1].msr, MSR_IA32_PERF_GLOBAL_CTRL);
    host_platform_free(&h);
}

NB_TEST(pmu_amd_addresses_and_global_control)
{
    struct pmu_desc d = { .vendor = VENDOR_AMD, .n_gp = 6, .amd_ext_core = true };
    CHECK_EQ_U64(pmu_amd_ops.ctl_msr(&d, 0), 0xC0010200u);
    CHECK_EQ_U64(pmu_amd_ops.ctr_msr(&d, 5), 0xC001020Bu);
    CHECK(!pmu_amd_ops.has_global(&d));
    d.amd_perfmon_v2 = true;
    CHECK(pmu_amd_ops.has_global(&d));
    CHECK_EQ_U64(pmu_amd_ops.global_enable(&d, 0x5, PMU_FIXED_ARCH, false), 0x5);
    struct pmu_desc legacy = { .vendor = VENDOR_AMD, .n_gp = 4 };
    CHECK_EQ_U64(pmu_amd_ops.ctl_msr(&legacy, 3), 0xC0010003u);
    CHECK_EQ_U64(pmu_amd_ops.ctr_msr(&legacy, 3), 0xC0010007u);
    struct counter_read reads[2];
    REQUIRE(pmu_amd_ops.fixed_reads(&d, reads) == 2);
    CHECK_EQ_STR(reads[0].name, "MPERF");
    CHECK_EQ_U64(reads[0].ecx, 0xE7);
    CHECK_EQ_U64(reads[1].ecx, 0xE8);
}

NB_TEST(pmu_detect_intel_and_amd)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x1A);
    host_cpuid_set(&h, 1, 0, 0x000906EA, 0, 1u << 15, 1u << 4); /* PDCM */
    /* version 4, 4 counters of 48 bits; 3 fixed counters of 48 bits */
    host_cpuid_set(&h, 0xA, 0, 0x07300404, 0, 0, 0x603);
    host_cpuid_set(&h, 0x1A, 0, 0x20000000, 0, 0, 0);
    host_msr_set(&h, MSR_IA32_PERF_CAPABILITIES, 1u << 13);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct pmu_desc d;
    char why[200] = "";
    REQUIRE(pmu_detect(&h.p, &m, &d, why, sizeof(why)));
    CHECK_EQ_INT(d.version, 4);
    CHECK_EQ_INT(d.n_gp, 4);
    CHECK_EQ_INT(d.gp_width, 48);
    CHECK_EQ_INT(d.n_fixed, 3);
    CHECK(d.full_width_writes);
    CHECK_EQ_INT(d.core_type, 0x20);

    host_cpuid_set(&h, 0xA, 0, 0, 0, 0, 0);
    CHECK(!pmu_detect(&h.p, &m, &d, why, sizeof(why)));
    CHECK_EQ_STR(why, "CPUID.0AH reports architectural perfmon version 0 with 0 counters "
                      "(version 2 or later needed)");
    host_platform_free(&h);

    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "AuthenticAMD", 0x10);
    host_cpuid_set(&h, 1, 0, 0x00A20F10, 0, 0, 1u << 4); /* family 19h model 21h */
    host_cpuid_set(&h, 0x80000000u, 0, 0x80000022u, 0, 0, 0);
    host_cpuid_set(&h, 0x80000001u, 0, 0, 0, 1u << 23, 0);
    host_cpuid_set(&h, 0x80000022u, 0, 1, 6, 0, 0);
    machine_identify(&h.p, &m);
    REQUIRE(pmu_detect(&h.p, &m, &d, why, sizeof(why)));
    CHECK(d.amd_ext_core);
    CHECK(d.amd_perfmon_v2);
    CHECK_EQ_INT(d.n_gp, 6);
    host_platform_free(&h);
}

static void run_nothing(void *arg)
{
    (void)arg;
}

/* A counter that "counts" 2002 instructions while globally enabled. */
static void counting_pmc(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
}

NB_TEST(pmu_probe_before_trust)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    intel_desc(&d);
    struct pmu_probe_loop loop = { NULL, run_nothing, NULL, 2000, 100000 };
    char why[200] = "";
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0, 0x1234);
    h.on_msr_write = counting_pmc;
    CHECK(pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0), 0x1234); /* left as found */

    /* A counter that counts nothing. */
    h.on_msr_write = NULL;
    CHECK(!pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_STR(why, "counter 0 counted 0 retired instructions for a loop of 2000 to 100000");

    /* A counter MSR that faults. */
    host_msr_fault(&h, MSR_IA32_PMC0);
    CHECK(!pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_STR(why, "reading counter 0 (MSR 0xc1) faulted");
    host_platform_free(&h);
}

NB_TEST(pmu_config_map_lookup_by_model_and_core_type)
{
    const char *map = "# vendor family model prefix [e-core prefix]\n"
                      "intel 6 0x55 Skylake\n"
                      "intel 6 0x97 AlderLake-P AlderLake-E\n"
                      "amd 0x19 0x21 Zen3\n";
    char out[96];
    CHECK(pmu_config_map_lookup(map, strlen(map), VENDOR_INTEL, 6, 0x55, 0, out, sizeof(out)));
    CHECK_EQ_STR(out, "configs/cfg_Skylake_common.txt");
    CHECK(pmu_config_map_lookup(map, strlen(map), VENDOR_INTEL, 6, 0x97, 0x40, out, sizeof(out)));
    CHECK_EQ_STR(out, "configs/cfg_AlderLake-P_common.txt");
    CHECK(pmu_config_map_lookup(map, strlen(map), VENDOR_INTEL, 6, 0x97, 0x20, out, sizeof(out)));
    CHECK_EQ_STR(out, "configs/cfg_AlderLake-E_common.txt");
    CHECK(pmu_config_map_lookup(map, strlen(map), VENDOR_AMD, 0x19, 0x21, 0, out, sizeof(out)));
    CHECK_EQ_STR(out, "configs/cfg_Zen3_common.txt");
    CHECK(!pmu_config_map_lookup(map, strlen(map), VENDOR_AMD, 0x17, 0x21, 0, out, sizeof(out)));
    CHECK(!pmu_config_map_lookup(map, strlen(map), VENDOR_INTEL, 6, 0x21, 0, out, sizeof(out)));
}

NB_TEST(pmu_config_map_choose_takes_the_exact_model_only)
{
    const char *map = "intel 6 0x55 SkylakeX\n"
                      "intel 6 0x5E Skylake\n"
                      "intel 6 0x97 AlderLakeP AlderLakeE\n"
                      "intel 6 0xCF EmeraldRapids\n"
                      "amd 0x19 0x21 Zen3\n";
    struct config_choice c;
    /* Listed: exact, with the line's model and prefix. */
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_INTEL, 6, 0x5E, 0, &c),
                 CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_Skylake_common.txt");
    CHECK_EQ_STR(c.prefix, "Skylake");
    CHECK_EQ_U64(c.model, 0x5E);
    CHECK(!c.ecore);
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_INTEL, 6, 0x97, 0x20, &c),
                 CONFIG_MATCH_EXACT);
    CHECK_EQ_STR(c.path, "configs/cfg_AlderLakeE_common.txt");
    CHECK_EQ_STR(c.prefix, "AlderLakeE");
    CHECK(c.ecore);
    /*
     * Not listed, of a listed family: no config at all. Intel model numbers are not
     * ordered by microarchitecture: Panther Lake (0xCC) and Clearwater Forest (0xDD)
     * are next to Emerald Rapids (0xCF) and share none of its events.
     */
    c.path[0] = 'x';
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_INTEL, 6, 0xCC, 0, &c),
                 CONFIG_MATCH_UNKNOWN_MODEL);
    CHECK_EQ_STR(c.path, "");
    CHECK_EQ_STR(c.prefix, "");
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_INTEL, 6, 0xDD, 0x20, &c),
                 CONFIG_MATCH_UNKNOWN_MODEL);
    CHECK_EQ_STR(c.path, "");
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_INTEL, 6, 0x5A, 0, &c),
                 CONFIG_MATCH_UNKNOWN_MODEL);
    CHECK(!pmu_config_map_lookup(map, strlen(map), VENDOR_INTEL, 6, 0xCC, 0, c.path, sizeof(c.path)));
    /* A family nobody listed: no config either. */
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_AMD, 0x1A, 0x21, 0, &c),
                 CONFIG_MATCH_NONE);
    CHECK_EQ_U64(pmu_config_map_choose(map, strlen(map), VENDOR_OTHER, 6, 0x5E, 0, &c),
                 CONFIG_MATCH_NONE);
}

/* AMD PERF_CTL has no AnyThread bit and no offcore/PEBS MSRs: refuse, never drop silently. */
NB_TEST(pmu_config_amd_refuses_intel_only_modifiers)
{
    struct pmu_event ev[8];
    struct parse_log log;
    size_t n = parse("076.00.AnyT CYCLES_ANY\n"
                     "0C0.00.MSR_RSP0=0x1 RSP0\n"
                     "0C0.00.MSR_RSP1=0x1 RSP1\n"
                     "0C0.00.MSR_3F6H=0x3 LAT\n"
                     "0C0.00.MSR_PF=0x11 PF\n"
                     "0C0.00 GOOD\n",
                     VENDOR_AMD, 6, ev, &log);
    REQUIRE(n == 1);
    CHECK_EQ_STR(ev[0].name, "GOOD");
    CHECK_EQ_STR(log.text,
                 "1: '.AnyT' is Intel's AnyThread bit; AMD PERF_CTL has none\n"
                 "2: '.MSR_RSP0' is an Intel-only auxiliary MSR (MSR_OFFCORE_RSP_0); AMD has none\n"
                 "3: '.MSR_RSP1' is an Intel-only auxiliary MSR (MSR_OFFCORE_RSP_1); AMD has none\n"
                 "4: '.MSR_3F6H' is an Intel-only auxiliary MSR (MSR_PEBS_LD_LAT_THRESHOLD); AMD has none\n"
                 "5: '.MSR_PF' is an Intel-only auxiliary MSR (MSR_PEBS_FRONTEND); AMD has none\n");
}

/*
 * First-fit in config order fails here: X (PMC0 or PMC1) takes PMC0, and Y
 * (PMC0 only) would need a second group although X could use PMC1.
 */
NB_TEST(pmu_schedule_matching_beats_first_fit)
{
    struct pmu_event ev[8];
    struct pmu_group g[8];
    size_t n = schedule("D1.01.CTR=0-1 X\nD1.02.CTR=0 Y\nC0.00 Z\n", 4, ev, g);
    REQUIRE(n == 1);
    REQUIRE(g[0].n == 3);
    CHECK_EQ_INT(g[0].counter[0], 1); /* X */
    CHECK_EQ_INT(g[0].counter[1], 0); /* Y */
    CHECK_EQ_INT(g[0].counter[2], 2); /* Z */
}
