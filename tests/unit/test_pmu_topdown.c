/*
 * test_pmu_topdown.c — Intel top-down level 1 through fixed counter 3
 * (TOPDOWN.SLOTS) and IA32_PERF_METRICS on Ice Lake and later P-cores
 * (level 2, bytes 4-7, on Golden Cove and later only):
 * the pseudo events of the config format, their group, the exact MSR
 * writes (zeroing FIXED_CTR3 and PERF_METRICS together, FIXED_CTR_CTRL
 * bits 15:12, GLOBAL_CTRL bits 35 and 48), save/restore, a faulting write,
 * and how a field becomes slots (slots x field / 0xFF per read).
 */
#include "bench_batch.h"
#include "host_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <stdio.h>
#include <string.h>

struct td_log {
    char text[1024];
};

static void td_error(void *arg, unsigned line, const char *message)
{
    struct td_log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

/* Ice Lake-SP as the image detects it: perfmon v5, 8 GP, fixed 0-3, PERF_METRICS. */
static struct pmu_desc icx(void)
{
    struct pmu_desc d = { .vendor = VENDOR_INTEL, .version = 5, .n_gp = 8, .gp_width = 48,
                          .n_fixed = 4, .fixed_width = 48, .full_width_writes = true,
                          .perf_metrics = true, .anythread_deprecated = true };
    return d;
}

static size_t td_parse(const char *text, const struct pmu_desc *d, struct pmu_event *ev, struct td_log *log)
{
    memset(log, 0, sizeof(*log));
    return pmu_config_parse(text, strlen(text), d, ev, 16, td_error, log);
}

#define TD_CONFIG                                                                                   \
    "C0.00 INST\n00.04 TOPDOWN.SLOTS\n00.80 TOPDOWN.RETIRING\n00.81 TOPDOWN.BAD_SPEC\n"           \
    "00.82 TOPDOWN.FE_BOUND\n00.83 TOPDOWN.BE_BOUND\n"

NB_TEST(topdown_pseudo_events_parse_on_ice_lake_only)
{
    struct pmu_desc d = icx();
    struct pmu_event ev[16];
    struct td_log log;
    REQUIRE(td_parse(TD_CONFIG, &d, ev, &log) == 6);
    CHECK_EQ_STR(log.text, "");
    CHECK_EQ_INT(ev[0].topdown, TOPDOWN_NONE);
    CHECK_EQ_INT(ev[1].topdown, TOPDOWN_SLOTS);
    CHECK_EQ_INT(ev[2].topdown, TOPDOWN_METRIC);
    CHECK_EQ_INT(ev[5].umask, 0x83);
    /*
     * Modifiers and other 00H codes are refused; so are the level-2 fields
     * 00.84-00.87 on Ice Lake, whose IA32_PERF_METRICS has only bytes 0-3
     * (METRICS-FACTS 2b): bytes 4-7 there are not Heavy Operations etc.
     */
    REQUIRE(td_parse("00.80.CMSK=1 X\n00.02 CYC\n00.84 HEAVY\n00.87 MB\n00.88 NONE\n", &d, ev, &log) == 0);
    CHECK_EQ_STR(log.text,
                 "1: a top-down pseudo event (00.04, 00.80-00.87) takes no modifiers\n"
                 "2: event 00H is a fixed-counter-only event (00.01-00.03: use -fixed_counters; "
                 "00.04, 00.80-00.87: top-down)\n"
                 "3: top-down level 2 (00.84-00.87) needs the level-2 fields of IA32_PERF_METRICS "
                 "(bits 63:32, Golden Cove and later P-cores), which this CPU does not have\n"
                 "4: top-down level 2 (00.84-00.87) needs the level-2 fields of IA32_PERF_METRICS "
                 "(bits 63:32, Golden Cove and later P-cores), which this CPU does not have\n"
                 "5: event 00H is a fixed-counter-only event (00.01-00.03: use -fixed_counters; "
                 "00.04, 00.80-00.87: top-down)\n");
    /* Skylake: no fixed counter 3; a CPU with fixed 3 but no PERF_METRICS (Gracemont-like) keeps SLOTS. */
    d.n_fixed = 3;
    d.perf_metrics = false;
    REQUIRE(td_parse("00.04 S\n", &d, ev, &log) == 0);
    CHECK_EQ_STR(log.text, "1: top-down events need fixed counter 3 (TOPDOWN.SLOTS), which this CPU does not have (CPUID.0AH)\n");
    d.n_fixed = 4;
    REQUIRE(td_parse("00.04 S\n00.82 FE\n", &d, ev, &log) == 1);
    CHECK_EQ_STR(log.text, "2: top-down metrics need IA32_PERF_METRICS, which this CPU does not have "
                           "(IA32_PERF_CAPABILITIES[15])\n");
}

NB_TEST(topdown_events_share_one_group_without_gp_counters)
{
    struct pmu_desc d = icx();
    struct pmu_event ev[16];
    struct pmu_group g[16];
    struct td_log log;
    size_t n = td_parse("C0.00.TakenAlone ALONE\n" TD_CONFIG, &d, ev, &log);
    REQUIRE(n == 7);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 2);
    /* Group 1 is taken alone: the top-down events join group 2 with INST. */
    CHECK_EQ_INT(g[0].n_topdown, 0);
    CHECK_EQ_INT(g[1].n, 1);
    CHECK_EQ_INT(g[1].counter[0], 0);
    REQUIRE(g[1].n_topdown == 5);
    CHECK_EQ_INT(g[1].topdown_index[0], 2);
    CHECK_EQ_INT(g[1].topdown_index[4], 6);
    /* Only top-down events: one group with no GP counter. */
    n = td_parse("00.81 BS\n", &d, ev, &log);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    CHECK_EQ_INT(g[0].n, 0);
    CHECK_EQ_INT(g[0].n_topdown, 1);
}

/* Hardware-like MSRs: FIXED_CTR_CTRL fields past counter 3 and GLOBAL_CTRL bits past 48 reserved. */
static void icx_msrs(struct host_platform *h)
{
    host_msr_reserved(h, MSR_IA32_FIXED_CTR_CTRL, ~0xFFFFull);
    host_msr_reserved(h, MSR_IA32_PERF_GLOBAL_CTRL, ~(0xFFull | 0xFull << 32 | GLOBAL_CTRL_EN_PERF_METRICS));
    for (unsigned i = 0; i < 4; i++)
        host_msr_counter(h, MSR_IA32_FIXED_CTR0 + i, 48);
    host_msr_set(h, MSR_IA32_FIXED_CTR3, 0x123456789ull);
    host_msr_set(h, MSR_IA32_PERF_METRICS, 0x40302010ull);
    host_msr_set(h, MSR_IA32_FIXED_CTR_CTRL, 0x2000);
}

/* Sapphire Rapids (Golden Cove): IA32_PERF_METRICS has the level-2 bytes 4-7 as well (METRICS-FACTS 2b). */
static struct pmu_desc spr(void)
{
    struct pmu_desc d = icx();
    d.perf_metrics_l2 = true;
    return d;
}

#define TD_L2_CONFIG                                                                                \
    "00.84 TOPDOWN.HEAVY_OPS\n00.85 TOPDOWN.BR_MISPREDICT\n00.86 TOPDOWN.FETCH_LAT\n"             \
    "00.87 TOPDOWN.MEM_BOUND\n"

NB_TEST(topdown_level2_fields_parse_on_golden_cove)
{
    struct pmu_desc d = spr();
    struct pmu_event ev[16];
    struct pmu_group g[16];
    struct td_log log;
    size_t n = td_parse(TD_CONFIG TD_L2_CONFIG, &d, ev, &log);
    REQUIRE(n == 10);
    CHECK_EQ_STR(log.text, "");
    CHECK_EQ_INT(ev[6].topdown, TOPDOWN_METRIC);
    CHECK_EQ_INT(ev[6].umask, 0x84);
    CHECK_EQ_INT(ev[9].umask, 0x87);
    /* SLOTS and all eight fields fit one group; their reads are fields 1..8 (byte + 1). */
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    REQUIRE(g[0].n_topdown == 9);
    CHECK_EQ_INT(g[0].topdown_index[8], 9);
    struct host_platform h;
    host_platform_init(&h);
    icx_msrs(&h);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    struct counter_read reads[NB_MAX_COUNTERS];
    REQUIRE(pmu_group_reads(&s, ev, &g[0], false, reads) == 11);
    CHECK_EQ_STR(reads[2].name, "TOPDOWN.SLOTS");
    CHECK_EQ_STR(reads[7].name, "TOPDOWN.HEAVY_OPS");
    CHECK_EQ_INT(reads[7].metric, PERF_METRICS_HEAVY_OPS + 1);
    CHECK_EQ_STR(reads[10].name, "TOPDOWN.MEM_BOUND");
    CHECK_EQ_INT(reads[10].metric, PERF_METRICS_MEM_BOUND + 1);
    CHECK_EQ_INT(reads[10].metric_slots, 2);
    pmu_session_end(&s);
    host_platform_free(&h);
    /* Byte 7 of 0x40..: 5100 x 0x40 / 0xFF = 1280 slots of Memory Bound. */
    CHECK_EQ_U64(counter_metric_slots(5100, 0x4000000080201050ull, PERF_METRICS_MEM_BOUND), 1280);
}

NB_TEST(topdown_programs_fixed3_and_perf_metrics_together)
{
    struct host_platform h;
    host_platform_init(&h);
    icx_msrs(&h);
    struct pmu_desc d = icx();
    struct pmu_event ev[16];
    struct pmu_group g[16];
    struct td_log log;
    size_t n = td_parse(TD_CONFIG, &d, ev, &log);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    h.n_writes = 0;
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    CHECK(!s.last.topdown_failed);
    /* The fixed-counter part of the writes: stop, zero FIXED_CTR3 then PERF_METRICS, enable 3 (OS+USR). */
    static const struct host_msr_write expected[] = {
        { MSR_IA32_FIXED_CTR_CTRL, 0 },
        { MSR_IA32_FIXED_CTR3, 0 },
        { MSR_IA32_PERF_METRICS, 0 },
        { MSR_IA32_FIXED_CTR_CTRL, 0x3000 },
        { MSR_IA32_PERF_GLOBAL_CTRL, 0x1000800000001ull }, /* PMC0, FIXED_CTR3 (35), EN_PERF_METRICS (48) */
    };
    size_t at = 0;
    while (at < h.n_writes && h.writes[at].msr != MSR_IA32_FIXED_CTR_CTRL)
        at++;
    REQUIRE(h.n_writes - at == NB_ARRAY_SIZE(expected));
    for (size_t i = 0; i < NB_ARRAY_SIZE(expected); i++) {
        CHECK_EQ_U64(h.writes[at + i].msr, expected[i].msr);
        CHECK_EQ_U64(h.writes[at + i].value, expected[i].value);
    }
    /* With -fixed_counters too: fields 0-3 and bits 32-35. */
    h.n_writes = 0;
    REQUIRE(pmu_program_group(&s, ev, &g[0], true));
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0x3333);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0x1000F00000001ull);

    /* Reads: RDTSC, INST, then TOPDOWN.SLOTS (RDPMC fixed 3) and the four fields (RDPMC ECX bit 29). */
    struct counter_read reads[NB_MAX_COUNTERS];
    REQUIRE(pmu_group_reads(&s, ev, &g[0], false, reads) == 7);
    CHECK_EQ_U64(reads[2].ecx, RDPMC_FIXED | 3);
    CHECK_EQ_STR(reads[2].name, "TOPDOWN.SLOTS");
    CHECK_EQ_U64(reads[3].ecx, RDPMC_METRICS);
    CHECK_EQ_INT(reads[3].metric, 1);
    CHECK_EQ_INT(reads[3].metric_slots, 2);
    CHECK_EQ_STR(reads[6].name, "TOPDOWN.BE_BOUND");
    CHECK_EQ_INT(reads[6].metric, 4);

    /* Every MSR touched comes back; FIXED_CTR3 before PERF_METRICS (Linux's order). */
    h.n_writes = 0;
    CHECK_EQ_INT(pmu_session_end(&s), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR3), 0x123456789ull);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_METRICS), 0x40302010ull);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0x2000);
    long ctr3 = -1, metrics = -1;
    for (size_t i = 0; i < h.n_writes; i++) {
        if (h.writes[i].msr == MSR_IA32_FIXED_CTR3)
            ctr3 = (long)i;
        if (h.writes[i].msr == MSR_IA32_PERF_METRICS)
            metrics = (long)i;
    }
    CHECK(ctr3 >= 0 && metrics > ctr3);
    host_platform_free(&h);
}

NB_TEST(topdown_fault_skips_only_the_topdown_events)
{
    struct host_platform h;
    host_platform_init(&h);
    icx_msrs(&h);
    /* A hypervisor that hides PERF_METRICS although PERF_CAPABILITIES[15] says it exists: #GP. */
    host_msr_fault(&h, MSR_IA32_PERF_METRICS);
    struct pmu_desc d = icx();
    struct pmu_event ev[16];
    struct pmu_group g[16];
    struct td_log log;
    size_t n = td_parse(TD_CONFIG, &d, ev, &log);
    REQUIRE(pmu_schedule(ev, n, pmu_gp_mask(&d), g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    REQUIRE(pmu_program_group(&s, ev, &g[0], false));
    CHECK(s.last.topdown_failed);
    CHECK_EQ_U64(s.last.fixed_fault.msr, MSR_IA32_PERF_METRICS);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0x1); /* INST still counts */
    struct counter_read reads[NB_MAX_COUNTERS];
    CHECK_EQ_INT(pmu_group_reads(&s, ev, &g[0], false, reads), 2);
    pmu_session_end(&s);
    host_platform_free(&h);
}

/* A field is slots x field / 0xFF at each read; the measurement is the difference. */
static void td_run(void *arg, struct codegen_data *data, const struct counter_read *reads, size_t n_reads,
                   int64_t copies)
{
    (void)arg;
    (void)reads;
    (void)n_reads;
    (void)copies;
    /* Slot 0: slots; slot 1: PERF_METRICS (retiring 0x33, bad spec 0x11, FE 0x22, BE 0x9B). */
    data->m1[0] = 255;
    data->m1[1] = 0x9B221133ull;
    data->m2[0] = 255 + 5100;
    data->m2[1] = 0x80201050ull; /* retiring 0x50, bad spec 0x10, FE 0x20, BE 0x80 */
}

NB_TEST(topdown_metric_fields_become_slots)
{
    CHECK_EQ_U64(counter_metric_slots(5100, 0x80201050ull, PERF_METRICS_RETIRING), 1600);
    CHECK_EQ_U64(counter_metric_slots(5100, 0x80201050ull, PERF_METRICS_BE_BOUND), 2560);
    CHECK_EQ_U64(counter_metric_slots(0, 0xFFull, PERF_METRICS_RETIRING), 0);
    static struct codegen_data data;
    struct counter_read reads[2] = { { READ_PMC, RDPMC_FIXED | 3, "TOPDOWN.SLOTS", 48, 0, 0 },
                                     { READ_PMC, RDPMC_METRICS, "TOPDOWN.RETIRING", 0, 1, 0 } };
    int64_t slots[1], retiring[1];
    int64_t *values[2] = { slots, retiring };
    struct run_batch b = { NULL, &data, 2, 0, 0, 1, values, false, 0, 0, reads, 1, td_run, NULL, NULL, 0, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(slots[0], 5100);
    /* 5355 x 0x50 / 0xFF - 255 x 0x33 / 0xFF = 1680 - 51 */
    CHECK_EQ_INT(retiring[0], 1629);
}
