/*
 * test_pmu_constraints.c — counter constraints and what the PMU offers:
 * `.CTR` counter sets in the config parser, the matching scheduler on
 * realistic configs (Skylake with and without Hyper-Threading, Sapphire
 * Rapids with events limited to PMC0-3, after Linux's intel_skl / intel_spr
 * event constraint tables), the counter bitmaps of CPUID.0AH / CPUID.23H and
 * hybrid P-cores, unavailable architectural events and fixed counters,
 * AnyThread deprecation, and the model table `-plan` answers CPUID from.
 */
#include "bench_counters.h"
#include "cpuid_bits.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_arch_events.h"
#include "pmu_config_parse.h"
#include "pmu_models.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <stdio.h>
#include <string.h>

struct log {
    char text[2048];
};

static void log_error(void *arg, unsigned line, const char *message)
{
    struct log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

static size_t parse(const char *text, const struct pmu_desc *d, struct pmu_event *ev, struct log *log)
{
    memset(log, 0, sizeof(*log));
    return pmu_config_parse(text, strlen(text), d, ev, 64, log_error, log);
}

static struct pmu_desc intel(unsigned version, uint32_t gp_mask)
{
    struct pmu_desc d = { .vendor = VENDOR_INTEL, .version = version, .gp_mask = gp_mask,
                          .n_gp = (unsigned)__builtin_popcount(gp_mask), .gp_width = 48, .n_fixed = 3 };
    return d;
}

NB_TEST(pmu_ctr_sets_parse_into_masks)
{
    struct pmu_desc d = intel(4, 0xFF);
    struct pmu_event ev[8];
    struct log log;
    size_t n = parse("D1.01.CTR=0-3 RANGE\n"
                     "D1.02.CTR=0,1,2,3 LIST\n"
                     "D1.04.CTR=0-1,4 MIXED\n"
                     "D1.08.CTR=2 PINNED\n"
                     "D1.10.CTR=5,3 UNORDERED\n"
                     "D1.20.CTR=2-2 RANGE_OF_ONE\n"
                     "C0.00 FREE\n",
                     &d, ev, &log);
    CHECK_EQ_STR(log.text, "");
    REQUIRE(n == 7);
    CHECK_EQ_U64(ev[0].ctr_mask, 0xF);
    CHECK_EQ_INT(ev[0].ctr, -1);
    CHECK_EQ_U64(ev[1].ctr_mask, 0xF);
    CHECK_EQ_U64(ev[2].ctr_mask, 0x13);
    CHECK_EQ_U64(ev[3].ctr_mask, 0x4);
    CHECK_EQ_INT(ev[3].ctr, 2);
    CHECK_EQ_U64(ev[4].ctr_mask, 0x28);
    CHECK_EQ_U64(ev[5].ctr_mask, 0x4);
    CHECK_EQ_INT(ev[5].ctr, -1);
    CHECK_EQ_U64(ev[6].ctr_mask, 0);
    CHECK_EQ_INT(ev[6].ctr, -1);
}

NB_TEST(pmu_ctr_sets_cut_to_this_cpu_and_bad_sets_reported)
{
    /* Skylake with Hyper-Threading on: 4 counters. */
    struct pmu_desc d = intel(4, 0xF);
    struct pmu_event ev[16];
    struct log log;
    size_t n = parse("D1.01.CTR=0-7 CUT\n"
                     "D1.02.CTR=4-7 NONE_LEFT\n"
                     "D1.04.CTR= EMPTY\n"
                     "D1.08.CTR=3-1 BACKWARDS\n"
                     "D1.10.CTR=0,,1 DOUBLE_COMMA\n"
                     "D1.20.CTR=1, TRAILING_COMMA\n"
                     "D1.40.CTR=0-x BAD_NUMBER\n"
                     "D1.80.CTR=32 TOO_BIG\n"
                     "D1.01.CTR=4 PINNED_BEYOND\n"
                     "D1.01.CTR=2,6 PARTLY\n",
                     &d, ev, &log);
    REQUIRE(n == 2);
    CHECK_EQ_STR(ev[0].name, "CUT");
    CHECK_EQ_U64(ev[0].ctr_mask, 0xF);
    CHECK_EQ_STR(ev[1].name, "PARTLY");
    CHECK_EQ_U64(ev[1].ctr_mask, 0x4);
    CHECK_EQ_STR(log.text,
                 "2: .CTR=4-7: none of these counters exists on this CPU (its counters: 0-3)\n"
                 "3: .CTR= has an empty counter set\n"
                 "4: bad counter set '.CTR=3-1' (n, a-b or a,b,... with counters 0..31)\n"
                 "5: bad counter set '.CTR=0,,1' (n, a-b or a,b,... with counters 0..31)\n"
                 "6: bad counter set '.CTR=1,' (n, a-b or a,b,... with counters 0..31)\n"
                 "7: bad counter set '.CTR=0-x' (n, a-b or a,b,... with counters 0..31)\n"
                 "8: bad counter set '.CTR=32' (n, a-b or a,b,... with counters 0..31)\n"
                 "9: .CTR=4 is beyond the 4 counters of this CPU\n");

    /* A bitmap with a hole (CPUID.23H): no counter 1. */
    d = intel(5, 0xFD);
    n = parse("D1.01.CTR=1 HOLE\nD1.01.CTR=1-2 AROUND\n", &d, ev, &log);
    REQUIRE(n == 1);
    CHECK_EQ_U64(ev[0].ctr_mask, 0x4);
    CHECK_EQ_STR(log.text, "1: .CTR=1: this CPU has no counter 1 (its counters: 0,2-7)\n");
}

NB_TEST(pmu_anythread_refused_when_deprecated)
{
    struct pmu_desc d = intel(5, 0xFF);
    d.anythread_deprecated = true;
    struct pmu_event ev[2];
    struct log log;
    CHECK_EQ_INT(parse("3C.00.AnyT CPU_CLK_UNHALTED.THREAD_ANY\n", &d, ev, &log), 0);
    CHECK_EQ_STR(log.text, "1: '.AnyT': AnyThread is deprecated on this CPU (CPUID.0AH:EDX[15]), "
                           "the bit would be ignored and count this thread only\n");
    d = intel(4, 0xF);
    REQUIRE(parse("3C.00.AnyT CPU_CLK_UNHALTED.THREAD_ANY\n", &d, ev, &log) == 1);
    CHECK(ev[0].any);
}

/* "NAME@PMCn ..." per group, as -plan prints them (without the sets). */
static void groups_text(const struct pmu_event *ev, const struct pmu_group *g, size_t n_groups,
                        char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n_groups; i++) {
        len += snprintf(out + len, cap - len, "group %zu:", i + 1);
        for (unsigned k = 0; k < g[i].n; k++)
            len += snprintf(out + len, cap - len, " %s@PMC%u", ev[g[i].event_index[k]].name,
                            g[i].counter[k]);
        len += snprintf(out + len, cap - len, "\n");
    }
}

static void schedule_text(const char *config, const struct pmu_desc *d, char *out, size_t cap)
{
    static struct pmu_event ev[64];
    static struct pmu_group g[64];
    struct log log;
    size_t n = parse(config, d, ev, &log);
    CHECK_EQ_STR(log.text, "");
    groups_text(ev, g, pmu_schedule(ev, n, pmu_gp_mask(d), g), out, cap);
}

/*
 * A Skylake config as the generator writes it from Intel's event list:
 * MEM_LOAD_RETIRED.* may use PMC0-3 only (they are 8-counter-safe only there
 * with Hyper-Threading off).
 */
static const char SKYLAKE_MEM[] = "C0.00 INST_RETIRED.ANY_P\n"
                                  "3C.00 CPU_CLK_UNHALTED.THREAD_P\n"
                                  "D1.01.CTR=0-3 MEM_LOAD_RETIRED.L1_HIT\n"
                                  "D1.02.CTR=0-3 MEM_LOAD_RETIRED.L2_HIT\n"
                                  "D1.04.CTR=0-3 MEM_LOAD_RETIRED.L3_HIT\n"
                                  "D1.08.CTR=0-3 MEM_LOAD_RETIRED.L1_MISS\n"
                                  "D1.10.CTR=0-3 MEM_LOAD_RETIRED.L2_MISS\n"
                                  "C4.00 BR_INST_RETIRED.ALL_BRANCHES\n";

NB_TEST(pmu_schedule_skylake_ht_off_8_counters)
{
    struct pmu_desc d = intel(4, 0xFF);
    char text[1024];
    schedule_text(SKYLAKE_MEM, &d, text, sizeof(text));
    /* Five PMC0-3 events need two groups; the free events fill PMC4-6 of the first. */
    CHECK_EQ_STR(text, "group 1: INST_RETIRED.ANY_P@PMC4 CPU_CLK_UNHALTED.THREAD_P@PMC5 "
                       "MEM_LOAD_RETIRED.L1_HIT@PMC0 MEM_LOAD_RETIRED.L2_HIT@PMC1 "
                       "MEM_LOAD_RETIRED.L3_HIT@PMC2 MEM_LOAD_RETIRED.L1_MISS@PMC3 "
                       "BR_INST_RETIRED.ALL_BRANCHES@PMC6\n"
                       "group 2: MEM_LOAD_RETIRED.L2_MISS@PMC0\n");
}

NB_TEST(pmu_schedule_skylake_ht_on_4_counters)
{
    struct pmu_desc d = intel(4, 0xF);
    char text[1024];
    schedule_text(SKYLAKE_MEM, &d, text, sizeof(text));
    /* 0-3 is every counter here: no constraint left, config order, four per group. */
    CHECK_EQ_STR(text, "group 1: INST_RETIRED.ANY_P@PMC0 CPU_CLK_UNHALTED.THREAD_P@PMC1 "
                       "MEM_LOAD_RETIRED.L1_HIT@PMC2 MEM_LOAD_RETIRED.L2_HIT@PMC3\n"
                       "group 2: MEM_LOAD_RETIRED.L3_HIT@PMC0 MEM_LOAD_RETIRED.L1_MISS@PMC1 "
                       "MEM_LOAD_RETIRED.L2_MISS@PMC2 BR_INST_RETIRED.ALL_BRANCHES@PMC3\n");
}

NB_TEST(pmu_schedule_sapphire_rapids_events_limited_to_pmc0_3)
{
    /*
     * Golden Cove (Linux intel_glc_event_constraints): event codes below 90H
     * and D0H-DFH on PMC0-3 (written as .CTR=0-3), some pinned (.CTR=0 here
     * stands for a PMC0-only event). First-fit in config order would put the
     * free events on PMC0-3 and need a group per limited event.
     */
    struct pmu_desc d = intel(5, 0xFF);
    char text[1024];
    schedule_text("C0.00 INST_RETIRED.ANY_P\n"
                  "C4.00 BR_INST_RETIRED.ALL_BRANCHES\n"
                  "C5.00 BR_MISP_RETIRED.ALL_BRANCHES\n"
                  "C2.02 UOPS_RETIRED.SLOTS\n"
                  "B1.01 UOPS_EXECUTED.THREAD\n"
                  "D1.01.CTR=0-3 MEM_LOAD_RETIRED.L1_HIT\n"
                  "A3.04.CTR=0-3 CYCLE_ACTIVITY.STALLS_TOTAL\n"
                  "CD.01.CTR=0 PMC0_ONLY\n"
                  "A6.02 EXE_ACTIVITY.1_PORTS_UTIL\n",
                  &d, text, sizeof(text));
    CHECK_EQ_STR(text, "group 1: INST_RETIRED.ANY_P@PMC3 BR_INST_RETIRED.ALL_BRANCHES@PMC4 "
                       "BR_MISP_RETIRED.ALL_BRANCHES@PMC5 UOPS_RETIRED.SLOTS@PMC6 "
                       "UOPS_EXECUTED.THREAD@PMC7 MEM_LOAD_RETIRED.L1_HIT@PMC1 "
                       "CYCLE_ACTIVITY.STALLS_TOTAL@PMC2 PMC0_ONLY@PMC0\n"
                       "group 2: EXE_ACTIVITY.1_PORTS_UTIL@PMC0\n");
}

NB_TEST(pmu_schedule_rematches_earlier_events_of_the_same_width)
{
    /* P takes PMC0, Q PMC2; R (PMC0 or PMC2) fits only if P moves to PMC1. */
    struct pmu_desc d = intel(4, 0x7);
    char text[256];
    schedule_text("C0.00.CTR=0-1 P\nC0.01.CTR=0,2 Q\nC0.02.CTR=0,2 R\n", &d, text, sizeof(text));
    CHECK_EQ_STR(text, "group 1: P@PMC1 Q@PMC2 R@PMC0\n");
    /* Three events on two counters: the third opens a group. */
    schedule_text("C0.00.CTR=0-1 A\nC0.01.CTR=0-1 B\nC0.02.CTR=0-1 C\nC0.03 D\n", &d, text, sizeof(text));
    CHECK_EQ_STR(text, "group 1: A@PMC0 B@PMC1 D@PMC2\ngroup 2: C@PMC0\n");
}

NB_TEST(pmu_schedule_honours_a_bitmap_with_holes)
{
    struct pmu_desc d = intel(5, 0xF3); /* counters 0, 1, 4-7 */
    char text[256];
    schedule_text("C0.00 A\nC0.01 B\nC0.02 C\nC0.03.CTR=0-3 D\n", &d, text, sizeof(text));
    CHECK_EQ_STR(text, "group 1: A@PMC1 B@PMC4 C@PMC5 D@PMC0\n");
}

NB_TEST(pmu_counter_set_format_ranges)
{
    char s[64];
    pmu_counter_set_format(0xF, s, sizeof(s));
    CHECK_EQ_STR(s, "0-3");
    pmu_counter_set_format(0x35, s, sizeof(s));
    CHECK_EQ_STR(s, "0,2,4-5");
    pmu_counter_set_format(0, s, sizeof(s));
    CHECK_EQ_STR(s, "");
}

/* A fake Intel processor: family 6, `model`, CPUID.0AH as given, max leaf as given. */
static void intel_cpu(struct host_platform *h, uint32_t model, uint32_t max_leaf, uint32_t eax_0a,
                      uint32_t ebx_0a, uint32_t ecx_0a, uint32_t edx_0a)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", max_leaf);
    host_cpuid_set(h, 1, 0, (model >> 4) << 16 | 6u << 8 | (model & 0xF) << 4, 0, 1u << 15, 1u << 4);
    host_cpuid_set(h, 0xA, 0, eax_0a, ebx_0a, ecx_0a, edx_0a);
    host_msr_set(h, MSR_IA32_PERF_CAPABILITIES, PERF_CAPABILITIES_FW_WRITE | PERF_CAPABILITIES_PERF_METRICS);
}

static bool detect(struct host_platform *h, struct pmu_desc *d, char *why, size_t cap)
{
    struct machine_info m;
    machine_identify(&h->p, &m);
    return pmu_detect(&h->p, &m, d, why, cap);
}

NB_TEST(pmu_detect_leaf_23h_bitmaps)
{
    struct host_platform h;
    /* v5, 8 GP, 4 fixed by CPUID.0AH; leaf 23H says GP 0,1,4-7 and fixed 0-2. */
    intel_cpu(&h, 0xAD, 0x23, 0x07300805, 0, 0, 0x8604);
    host_cpuid_set(&h, 0x7, 1, CPUID_07_1_EAX_ARCH_PERFMON_EXT, 0, 0, 0);
    host_cpuid_set(&h, 0x23, 0, 0x3, 0, 0, 0);
    host_cpuid_set(&h, 0x23, 1, 0xF3, 0x7, 0, 0);
    struct pmu_desc d;
    char why[200] = "", line[200];
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0xF3);
    CHECK_EQ_U64(d.fixed_mask, 0x7);
    CHECK_EQ_INT(d.n_gp, 6);
    CHECK_EQ_INT(d.n_fixed, 3);
    CHECK(d.anythread_deprecated);
    CHECK(d.perf_metrics);
    pmu_desc_summary(&d, line, sizeof(line));
    CHECK_EQ_STR(line, "intel, 6 general-purpose counters (48 bits), 3 fixed, bitmaps GP 0xf3 "
                       "fixed 0x7 (CPUID.23H), AnyThread deprecated");

    /* The session never touches the missing counters 2 and 3. */
    struct pmu_session s;
    h.n_writes = 0;
    pmu_session_begin(&s, &h.p, &d);
    pmu_program_group(&s, NULL, NULL, false);
    for (size_t i = 0; i < h.n_writes; i++) {
        CHECK(h.writes[i].msr != MSR_IA32_PERFEVTSEL0 + 2 && h.writes[i].msr != MSR_IA32_PERFEVTSEL0 + 3);
    }
    pmu_session_end(&s);

    /* Subleaf 1 not valid (CPUID.23H.0:EAX[1] clear): CPUID.0AH counts. */
    host_cpuid_set(&h, 0x23, 0, 0x1, 0, 0, 0);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0xFF);
    CHECK_EQ_U64(d.fixed_mask, 0xF);
    /* No CPUID.(7,1):EAX[8]: leaf 23H is not read at all. */
    host_cpuid_set(&h, 0x23, 0, 0x3, 0, 0, 0);
    host_cpuid_set(&h, 0x7, 1, 0, 0, 0, 0);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0xFF);
    host_platform_free(&h);
}

NB_TEST(pmu_detect_hybrid_p_core_counters)
{
    struct host_platform h;
    /* Alder Lake (97H): CPUID.0AH reports the common subset, 6 GP and 3 fixed. */
    intel_cpu(&h, 0x97, 0x1A, 0x07300605, 0, 0, 0x8603);
    host_cpuid_set(&h, 0x7, 0, 0, 0, 0, CPUID_07_EDX_HYBRID);
    host_cpuid_set(&h, 0x1A, 0, HYBRID_CORE_CORE << 24, 0, 0, 0);
    struct pmu_desc d;
    char why[200] = "", line[200];
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0xFF);
    CHECK_EQ_U64(d.fixed_mask, 0xF);
    pmu_desc_summary(&d, line, sizeof(line));
    CHECK_EQ_STR(line, "intel, 8 general-purpose counters (48 bits), 4 fixed, bitmaps GP 0xff fixed "
                       "0xf (hybrid P-core: more than CPUID.0AH's common subset), AnyThread deprecated");
    host_cpuid_set(&h, 0x1A, 0, HYBRID_CORE_ATOM << 24, 0, 0, 0);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0x3F);
    CHECK_EQ_U64(d.fixed_mask, 0x7);
    /*
     * E-cores disabled in the firmware: CPUID.07H:EDX[15] (Hybrid) is clear and
     * CPUID.0AH reports the P-core's own 8 and 4, which stand as they are.
     */
    host_cpuid_set(&h, 0x7, 0, 0, 0, 0, 0);
    host_cpuid_set(&h, 0xA, 0, 0x07300805, 0, 0, 0x8604);
    host_cpuid_set(&h, 0x1A, 0, HYBRID_CORE_CORE << 24, 0, 0, 0);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0xFF);
    CHECK_EQ_U64(d.fixed_mask, 0xF);
    CHECK(!d.hybrid_p_core_counters);
    host_cpuid_set(&h, 0x7, 0, 0, 0, 0, CPUID_07_EDX_HYBRID);
    host_cpuid_set(&h, 0xA, 0, 0x07300605, 0, 0, 0x8603);
    /* A model the table does not call hybrid keeps CPUID.0AH's counts even with a core type. */
    host_cpuid_set(&h, 1, 0, 0xA << 16 | 6u << 8 | 0x7 << 4, 0, 1u << 15, 1u << 4);
    host_cpuid_set(&h, 0x1A, 0, HYBRID_CORE_CORE << 24, 0, 0, 0);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.gp_mask, 0x3F);
    host_platform_free(&h);
}

NB_TEST(pmu_detect_fixed_bitmap_and_missing_architectural_events)
{
    struct host_platform h;
    /*
     * v5, 4 GP; EDX[4:0] = 0 fixed counters but ECX = 101b: fixed 0 and 2
     * exist (SDM: fixed counter i exists if ECX[i] or i < EDX[4:0]). EBX
     * vector of 7 with bits 3 and 4 set: no LLC references / misses.
     */
    intel_cpu(&h, 0x55, 0x1A, 0x07300405, 0x18, 0x5, 0x600);
    struct pmu_desc d;
    char why[200] = "";
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK_EQ_U64(d.fixed_mask, 0x5);
    CHECK(!d.anythread_deprecated);
    char missing[2][160];
    REQUIRE(pmu_desc_missing(&d, missing) == 2);
    CHECK_EQ_STR(missing[0], "-fixed_counters leaves out Core cycles (fixed counter 1): not on this "
                             "CPU (CPUID.0AH)");
    CHECK_EQ_STR(missing[1], "built-in events leave out LLC_REFERENCES LLC_MISSES: CPUID.0AH:EBX "
                             "marks them unavailable");
    char text[512];
    pmu_arch_events_for(&d, text, sizeof(text));
    CHECK_EQ_STR(text, "3C.00 CORE_CYCLES\nC0.00 INST_RETIRED\n3C.01 REF_CYCLES\n"
                       "C4.00 BR_INST_RETIRED\nC5.00 BR_MISP_RETIRED\n");

    /* -fixed_counters reads and enables fixed counters 0 and 2 only. */
    struct counter_read reads[4];
    REQUIRE(pmu_intel_ops.fixed_reads(&d, reads) == 2);
    CHECK_EQ_STR(reads[0].name, "Instructions retired");
    CHECK_EQ_U64(reads[1].ecx, RDPMC_FIXED | 2);
    CHECK_EQ_U64(pmu_intel_ops.global_enable(&d, 0x1, PMU_FIXED_ARCH, false), 0x500000001ull);
    h.n_writes = 0;
    struct pmu_write_fault fault;
    CHECK_EQ_INT(pmu_intel_ops.program_fixed(&h.p, &d, PMU_FIXED_ARCH, &fault), NB_OK);
    static const struct host_msr_write expected[] = {
        { MSR_IA32_FIXED_CTR_CTRL, 0 },
        { MSR_IA32_FIXED_CTR0, 0 },
        { MSR_IA32_FIXED_CTR0 + 2, 0 },
        { MSR_IA32_FIXED_CTR_CTRL, 0x303 },
    };
    REQUIRE(h.n_writes == NB_ARRAY_SIZE(expected));
    for (size_t i = 0; i < NB_ARRAY_SIZE(expected); i++) {
        CHECK_EQ_U64(h.writes[i].msr, expected[i].msr);
        CHECK_EQ_U64(h.writes[i].value, expected[i].value);
    }

    /* EDX[15] means nothing before version 5; a short EBX vector hides the events past it. */
    host_cpuid_set(&h, 0xA, 0, 0x05300404, 0, 0, 0x8603);
    REQUIRE(detect(&h, &d, why, sizeof(why)));
    CHECK(!d.anythread_deprecated);
    CHECK_EQ_U64(d.fixed_mask, 0x7);
    REQUIRE(pmu_desc_missing(&d, missing) == 1);
    CHECK_EQ_STR(missing[0], "built-in events leave out BR_INST_RETIRED BR_MISP_RETIRED: "
                             "CPUID.0AH:EBX marks them unavailable");
    host_platform_free(&h);
}

/* The model table through the image's detection: what -plan -plan_cpu shows. */
static void model_platform_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    pmu_model_cpuid(ctx, leaf, subleaf, r);
}

static int model_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    *value = msr == MSR_IA32_PERF_CAPABILITIES ? pmu_model_perf_capabilities(ctx) : 0;
    return NB_OK;
}

static int model_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx;
    (void)msr;
    (void)value;
    return NB_OK;
}

NB_TEST(pmu_models_detected_as_the_image_would)
{
    static const struct {
        enum cpu_vendor vendor;
        uint32_t family, model;
        unsigned core_type;
        const char *summary;
        bool full_width, perf_metrics;
        bool perf_metrics_l2; /* bytes 4-7 (METRICS-FACTS 2b): Golden Cove P-cores, not Ice Lake */
    } cases[] = {
        { VENDOR_INTEL, 6, 0x55, 0, "intel, 4 general-purpose counters (48 bits), 3 fixed", true, false, false },
        { VENDOR_INTEL, 6, 0x7E, 0,
          "intel, 8 general-purpose counters (48 bits), 4 fixed, AnyThread deprecated", true, true, false },
        { VENDOR_INTEL, 6, 0x6A, 0,
          "intel, 8 general-purpose counters (48 bits), 4 fixed, AnyThread deprecated", true, true, false },
        { VENDOR_INTEL, 6, 0x97, HYBRID_CORE_CORE,
          "intel, 8 general-purpose counters (48 bits), 4 fixed, bitmaps GP 0xff fixed 0xf (hybrid "
          "P-core: more than CPUID.0AH's common subset), AnyThread deprecated", true, true, true },
        { VENDOR_INTEL, 6, 0x97, HYBRID_CORE_ATOM,
          "intel, 6 general-purpose counters (48 bits), 3 fixed, AnyThread deprecated", true, false, false },
        { VENDOR_INTEL, 6, 0x8F, 0,
          "intel, 8 general-purpose counters (48 bits), 4 fixed, AnyThread deprecated", true, true, true },
        { VENDOR_INTEL, 6, 0xAD, 0,
          "intel, 8 general-purpose counters (48 bits), 4 fixed, AnyThread deprecated", true, true, true },
        { VENDOR_AMD, 0x17, 0x71, 0, "amd PerfCtrExtCore, 6 general-purpose counters (48 bits), 0 fixed",
          false, false, false },
        { VENDOR_AMD, 0x19, 0x21, 0, "amd PerfCtrExtCore, 6 general-purpose counters (48 bits), 0 fixed",
          false, false, false },
        { VENDOR_AMD, 0x19, 0x61, 0, "amd PerfMonV2, 6 general-purpose counters (48 bits), 0 fixed",
          false, false, false },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        const struct pmu_model *row = pmu_model_find(cases[i].vendor, cases[i].family, cases[i].model);
        REQUIRE(row != NULL);
        struct pmu_model_cpu cpu = { .row = *row, .core_type = cases[i].core_type };
        cpu.row.model = cases[i].model; /* a row may cover a range of models */
        struct nb_platform p = { .ctx = &cpu, .cpuid = model_platform_cpuid,
                                 .read_msr = model_read_msr, .write_msr = model_write_msr };
        struct machine_info m;
        struct pmu_desc d;
        char why[200] = "", line[256];
        machine_identify(&p, &m);
        CHECK_EQ_U64(m.family, cases[i].family);
        CHECK_EQ_U64(m.model, cases[i].model);
        REQUIRE(pmu_detect(&p, &m, &d, why, sizeof(why)));
        pmu_desc_summary(&d, line, sizeof(line));
        CHECK_EQ_STR(line, cases[i].summary);
        CHECK_EQ_INT(d.full_width_writes, cases[i].full_width);
        CHECK_EQ_INT(d.perf_metrics, cases[i].perf_metrics);
        CHECK_EQ_INT(d.perf_metrics_l2, cases[i].perf_metrics_l2);
        CHECK_EQ_INT(d.core_type, cases[i].core_type);
    }
}

/* Counter 0 "counts" the probe loop while enabled. */
static void counting_pmc(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
}

NB_TEST(pmu_fingerprint_names_bitmaps_and_what_is_missing)
{
    struct host_platform h;
    intel_cpu(&h, 0x97, 0x1A, 0x07300605, 0x10, 0x0, 0x8602); /* 2 fixed, no LLC misses */
    host_cpuid_set(&h, 0x7, 0, 0, 0, 0, CPUID_07_EDX_HYBRID);
    host_cpuid_set(&h, 0x1A, 0, HYBRID_CORE_CORE << 24, 0, 0, 0);
    host_msr_fault(&h, 0x8B);
    h.on_msr_write = counting_pmc;
    struct machine_info m;
    struct report r;
    struct counter_env env;
    machine_identify(&h.p, &m);
    report_init(&r, &h.p);
    counters_init(&env, &h.p, &m, &r);
    CHECK(env.usable);
    /* P-core: GP 0x3f -> 0xff, fixed 0x3 -> 0x7. */
    CHECK(strstr(host_text(&h),
                 "pmu: intel, 8 general-purpose counters (48 bits), 3 fixed, bitmaps GP 0xff fixed "
                 "0x7 (hybrid P-core: more than CPUID.0AH's common subset), AnyThread deprecated; "
                 "probe ok\n"
                 "pmu: built-in events leave out LLC_MISSES: CPUID.0AH:EBX marks them unavailable\n"
                 "pmu: hybrid core type 0x40 (P-core)\n") != NULL);
    counters_finish(&env);
    host_platform_free(&h);
}

/* Counter 1 "counts" the probe loop while enabled. */
static void counting_pmc1(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0 + 1))
        host_msr_set(h, MSR_IA32_PMC0 + 1, 2002);
}

static void run_nothing(void *arg)
{
    (void)arg;
}

NB_TEST(pmu_probe_uses_the_lowest_counter_that_exists)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d = intel(5, 0xFE); /* no counter 0 */
    struct pmu_probe_loop loop = { NULL, run_nothing, NULL, 2000, 100000 };
    char why[200] = "";
    h.on_msr_write = counting_pmc1;
    CHECK(pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_STR(why, "");
    for (size_t i = 0; i < h.n_writes; i++) {
        CHECK(h.writes[i].msr != MSR_IA32_PERFEVTSEL0 && h.writes[i].msr != MSR_IA32_PMC0);
    }
    /* Global enable of counter 1 only. */
    bool enabled = false;
    for (size_t i = 0; i < h.n_writes; i++)
        enabled |= h.writes[i].msr == MSR_IA32_PERF_GLOBAL_CTRL && h.writes[i].value == 0x2;
    CHECK(enabled);
    host_platform_free(&h);
}

/*
 * Event select 00H is Intel's pseudo-encoding of the fixed-counter-only events
 * (Intel's event lists: 00.01 INST_RETIRED.ANY, 00.02 CPU_CLK_UNHALTED.THREAD,
 * 00.03 CPU_CLK_UNHALTED.REF_TSC, 00.04 TOPDOWN.SLOTS; Linux
 * FIXED_EVENT_CONSTRAINT): a general-purpose counter programmed with it
 * counts nothing useful, so the line is refused, not measured as 0
 * (TOPDOWN.SLOTS only where fixed counter 3 exists: test_pmu_topdown.c).
 */
NB_TEST(pmu_fixed_counter_only_events_refused)
{
    struct pmu_desc d = intel(5, 0xFF);
    struct pmu_event ev[4];
    struct log log;
    size_t n = parse("00.03 CPU_CLK_UNHALTED.REF_TSC\n00.04 TOPDOWN.SLOTS\nC0.00 INST_RETIRED.ANY_P\n",
                     &d, ev, &log);
    REQUIRE(n == 1);
    CHECK_EQ_STR(ev[0].name, "INST_RETIRED.ANY_P");
    CHECK_EQ_STR(log.text,
                 "1: event 00H is a fixed-counter-only event (00.01-00.03: use -fixed_counters; "
                 "00.04, 00.80-00.87: top-down)\n"
                 "2: top-down events need fixed counter 3 (TOPDOWN.SLOTS), which this CPU does not have (CPUID.0AH)\n");
    /* AMD event 000H is an ordinary code. */
    d.vendor = VENDOR_AMD;
    CHECK_EQ_INT(parse("000.01 AMD_ZERO\n", &d, ev, &log), 1);
}

/* -no_mem keeps the lowest counters that exist: a set outside them is not measured. */
NB_TEST(pmu_lowest_counters_for_no_mem)
{
    CHECK_EQ_U64(pmu_lowest_counters(0xFF, 3), 0x7);
    CHECK_EQ_U64(pmu_lowest_counters(0xF3, 3), 0x13);
    CHECK_EQ_U64(pmu_lowest_counters(0x3, 5), 0x3);
    CHECK_EQ_U64(pmu_lowest_counters(0xFF, 0), 0);
    struct pmu_event ev = { .ctr = -1, .ctr_mask = 0xF0 };
    CHECK_EQ_U64(pmu_event_counters(&ev, pmu_lowest_counters(0xFF, 3)), 0);
}
