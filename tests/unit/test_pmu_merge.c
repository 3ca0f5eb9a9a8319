/*
 * test_pmu_merge.c — AMD Large Increment per Cycle events (family 17h+ PPR;
 * Linux amd/core.c pair_constraint, AMD_MERGE_EVENT_ENABLE): event 003H
 * runs on an even counter with the MergeEvent (FFFH) on the odd counter
 * after it; the pair counts from 0 and the even counter reads 64 bits.
 */
#include "host_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <stdio.h>
#include <string.h>

static struct pmu_desc zen4(unsigned n_gp)
{
    struct pmu_desc d = { .vendor = VENDOR_AMD, .family = 0x19, .model = 0x61, .n_gp = n_gp,
                          .gp_width = 48, .amd_ext_core = true, .amd_perfmon_v2 = true };
    return d;
}

static size_t merge_parse(const char *text, const struct pmu_desc *d, struct pmu_event *ev)
{
    return pmu_config_parse(text, strlen(text), d, ev, 16, NULL, NULL);
}

NB_TEST(merge_events_are_amd_003h_from_family_17h)
{
    struct pmu_desc d = zen4(6);
    struct pmu_event ev[4];
    REQUIRE(merge_parse("003.1F FLOPS\n0C0.00 INST\n", &d, ev) == 2);
    CHECK(ev[0].merge);
    CHECK(!ev[1].merge);
    d.family = 0x15; /* before Zen: no Large Increment events (Linux: family 17h and later) */
    REQUIRE(merge_parse("003.1F FLOPS\n", &d, ev) == 1);
    CHECK(!ev[0].merge);
    CHECK_EQ_U64(pmu_merge_pairs(0x3F), 0x15);
    CHECK_EQ_U64(pmu_merge_pairs(0x1F), 0x5); /* counter 4 has no partner */
    CHECK_EQ_U64(pmu_merge_pairs(0x36), 0x10); /* counters 1, 2, 4, 5: only the pair 4-5 */
}

/* "NAME@PMCn" per group. */
static void groups_text(const struct pmu_event *ev, const struct pmu_group *g, size_t n, char *out,
                        size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(out + len, cap - len, "%s%zu:", i ? "\n" : "", i + 1);
        for (unsigned k = 0; k < g[i].n; k++)
            len += (size_t)snprintf(out + len, cap - len, " %s@%u", ev[g[i].event_index[k]].name,
                                    g[i].counter[k]);
    }
}

NB_TEST(merge_events_take_an_even_counter_and_its_odd_partner)
{
    struct pmu_desc d = zen4(6);
    struct pmu_event ev[16];
    struct pmu_group g[16];
    char text[256];
    /* Two FLOP events and two others fill six counters: pairs 0-1 and 2-3, then 4 and 5. */
    size_t n = merge_parse("076.00 CYC\n003.1F FLOPS\n0C0.00 INST\n003.08 MAC\n0C1.00 OPS\n", &d, ev);
    REQUIRE(n == 5);
    size_t groups = pmu_schedule(ev, n, pmu_gp_mask(&d), g);
    groups_text(ev, g, groups, text, sizeof(text));
    CHECK_EQ_STR(text, "1: CYC@4 FLOPS@0 INST@5 MAC@2\n2: OPS@0");
    /* Three pairs hold three FLOP events and nothing else. */
    n = merge_parse("003.01 A\n003.02 B\n003.04 C\n0C0.00 INST\n", &d, ev);
    groups = pmu_schedule(ev, n, pmu_gp_mask(&d), g);
    groups_text(ev, g, groups, text, sizeof(text));
    CHECK_EQ_STR(text, "1: A@0 B@2 C@4\n2: INST@0");
    /* A pinned event on an odd counter leaves that pair to the others. */
    n = merge_parse("0C0.00.CTR=1 PINNED\n003.01 A\n003.02 B\n", &d, ev);
    groups = pmu_schedule(ev, n, pmu_gp_mask(&d), g);
    groups_text(ev, g, groups, text, sizeof(text));
    CHECK_EQ_STR(text, "1: PINNED@1 A@2 B@4");
    /* Five counters: only pairs 0-1 and 2-3. */
    d = zen4(5);
    n = merge_parse("003.01 A\n003.02 B\n003.04 C\n", &d, ev);
    groups = pmu_schedule(ev, n, pmu_gp_mask(&d), g);
    groups_text(ev, g, groups, text, sizeof(text));
    CHECK_EQ_STR(text, "1: A@0 B@2\n2: C@0");
}

/* PERF_CTL: bits 63:42 and 39:36 reserved (APM vol. 2 13.2.1); counters 48 bits. */
static void zen4_msrs(struct host_platform *h)
{
    for (unsigned i = 0; i < 6; i++) {
        host_msr_reserved(h, MSR_AMD_PERF_CTL0 + 2 * i, ~0x3FFFFFFFFFFull | 0xF000000000ull);
        host_msr_counter(h, MSR_AMD_PERF_CTR0 + 2 * i, 48);
        host_msr_set(h, MSR_AMD_PERF_CTR0 + 2 * i, 0x1000 + i);
    }
    host_msr_set(h, MSR_AMD_PERF_CTL0 + 2, 0x430076); /* someone else's event on counter 1 */
    host_msr_reserved(h, MSR_AMD_PERF_CNTR_GLOBAL_CTL, ~0x3Full);
}

NB_TEST(merge_event_programs_the_pair_and_restores_it)
{
    struct host_platform h;
    host_platform_init(&h);
    zen4_msrs(&h);
    struct pmu_desc d = zen4(6);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    size_t n = merge_parse("003.1F FLOPS\n", &d, ev);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    h.n_writes = 0;
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    CHECK(!s.last.skipped[0]);
    /* After the other counters are switched off: odd counter, even counter, MergeEvent, event. */
    static const struct host_msr_write expected[] = {
        { MSR_AMD_PERF_CTL0, 0 },
        { MSR_AMD_PERF_CTL0 + 2, 0 },
        { MSR_AMD_PERF_CTR0 + 2, 0 },
        { MSR_AMD_PERF_CTR0, 0 },
        { MSR_AMD_PERF_CTL0 + 2, 0xF004000FFull }, /* event FFFH (bits 35:32 and 7:0), EN */
        { MSR_AMD_PERF_CTL0, 0x431F03 },
        { MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0x3 },
    };
    size_t at = 0;
    while (at < h.n_writes && !(h.writes[at].msr == MSR_AMD_PERF_CTL0 && h.writes[at].value == 0))
        at++;
    REQUIRE(h.n_writes - at == NB_ARRAY_SIZE(expected));
    for (size_t i = 0; i < NB_ARRAY_SIZE(expected); i++) {
        CHECK_EQ_U64(h.writes[at + i].msr, expected[i].msr);
        CHECK_EQ_U64(h.writes[at + i].value, expected[i].value);
    }
    /* The even counter is read with 64 bits: the pair's full count (PPR). */
    struct counter_read reads[NB_MAX_COUNTERS];
    REQUIRE(pmu_group_reads(&s, ev, &g[0], false, reads) == 2);
    CHECK_EQ_U64(reads[1].ecx, 0);
    CHECK_EQ_INT(reads[1].width, 64);
    /* The next group without it switches the MergeEvent off. */
    n = merge_parse("0C0.00 INST\n", &d, ev);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CTL0 + 2), 0);
    /* Everything comes back. */
    CHECK_EQ_INT(pmu_session_end(&s), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CTL0 + 2), 0x430076);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CTR0 + 2), 0x1001);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CTL0), 0);
    host_platform_free(&h);
}

NB_TEST(merge_event_whose_merge_write_faults_is_skipped)
{
    struct host_platform h;
    host_platform_init(&h);
    zen4_msrs(&h);
    /* A hypervisor that refuses event FFFH: bits 35:32 rejected on counter 1. */
    host_msr_reserved(&h, MSR_AMD_PERF_CTL0 + 2, 0xF00000000ull);
    struct pmu_desc d = zen4(6);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    size_t n = merge_parse("003.1F FLOPS\n0C0.00 INST\n", &d, ev);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    CHECK(s.last.skipped[0]);
    CHECK_EQ_U64(s.last.skip_fault[0].msr, MSR_AMD_PERF_CTL0 + 2);
    CHECK_EQ_U64(s.last.skip_fault[0].value, 0xF004000FFull);
    CHECK(!s.last.skipped[1]);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CTL0), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CNTR_GLOBAL_CTL), 1u << g[0].counter[1]);
    pmu_session_end(&s);
    host_platform_free(&h);
}
