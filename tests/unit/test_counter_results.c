/*
 * test_counter_results.c — the whole counter result path of the image
 * (counters_measure → measure_pmu_events → pmu_program_group → bench_measure
 * → deltas, aggregates, report) on a fake machine.
 *
 * The generated code cannot read counters on the host (RDPMC and RDMSR fault
 * in user mode), so the bench_context's fake_run hook stands in for one run
 * of it: it looks at the fake MSR map the way the hardware would (is the
 * event selected and enabled in its control register and in the global
 * control?) and writes m1/m2 for every read. Every event counts a scripted
 * number of events per copy of the main code, so with the default
 * 1000/2000 copies the printed result is exactly that number.
 */
#include "bench_calibrate.h"
#include "bench_counters.h"
#include "host_platform.h"
#include "msr_names.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_msrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events per copy of the main code, in hundredths (300 prints "3.00"). */
struct rate {
    uint16_t event;
    uint8_t umask;
    int64_t centi;
    uint8_t cmask; /* counter mask (bits 31:24); a rate with 0 also stands for any other cmask */
};

static struct fake_hw {
    struct host_platform *h;
    bool amd;
    const struct rate *rates;
    size_t n_rates;
    int64_t tsc_centi;
    int64_t fixed_centi[3];       /* Intel fixed counters 0-2 */
    int64_t mperf_centi, aperf_centi;
    uint64_t gp_start;            /* what every general-purpose counter reads at m1 */
    unsigned gp_width;
    uint16_t ud_event;            /* the code raises #UD in runs where PMC0 counts this event */
    uint64_t tsc_per_run;         /* TSC ticks each run takes (the -timeout budget) */
    int runs;
    /* Intel top-down: fixed_centi3 slots per copy, split by the IA32_PERF_METRICS bytes `metrics`. */
    int64_t fixed3_centi;
    uint64_t metrics;
    const struct bench_context *bench;
    uint64_t topdown_reset_seen;  /* bench->topdown_global_ctrl during the runs */
    /* Core cycles per copy by the R14 area's size (the calibration's footprints), when bench is set. */
    const struct area_cycles *area_cycles;
    size_t n_area_cycles;
} hw;

struct area_cycles {
    uint64_t r14_bytes;
    int64_t centi;
};

/* The core cycles per copy for this run: by the R14 area's size when scripted, else `centi`. */
static int64_t cycles_now(int64_t centi)
{
    for (size_t i = 0; hw.bench && i < hw.n_area_cycles; i++) {
        if (hw.bench->area_size[AREA_R14] == hw.area_cycles[i].r14_bytes)
            return hw.area_cycles[i].centi;
    }
    return centi;
}

/* The reads themselves add the same few events to every run: they cancel out. */
#define READ_OVERHEAD 17

static uint64_t count(int64_t centi, int64_t copies)
{
    return (uint64_t)(centi * copies / 100) + READ_OVERHEAD;
}

static int64_t rate_of(uint16_t event, uint8_t umask, uint8_t cmask)
{
    for (size_t i = 0; i < hw.n_rates; i++) {
        if (hw.rates[i].event == event && hw.rates[i].umask == umask && hw.rates[i].cmask == cmask)
            return hw.rates[i].centi;
    }
    for (size_t i = 0; i < hw.n_rates; i++) {
        if (hw.rates[i].event == event && hw.rates[i].umask == umask && hw.rates[i].cmask == 0)
            return hw.rates[i].centi;
    }
    return 0;
}

/* A general-purpose counter counts when its control register and the global control enable it. */
static bool gp_counting_cmask(unsigned i, uint16_t *event, uint8_t *umask, uint8_t *cmask)
{
    uint64_t sel, global;
    if (hw.amd) {
        sel = host_msr_get(hw.h, MSR_AMD_PERF_CTL0 + 2 * i);
        global = host_msr_get(hw.h, MSR_AMD_PERF_CNTR_GLOBAL_CTL);
        *event = (uint16_t)((sel & 0xFF) | ((sel >> AMD_PERF_CTL_EVENT_HI_SHIFT) & 0xF) << 8);
        *umask = (uint8_t)(sel >> AMD_PERF_CTL_UMASK_SHIFT);
        *cmask = (uint8_t)(sel >> AMD_PERF_CTL_CMASK_SHIFT);
        return (sel & AMD_PERF_CTL_EN) && (global >> i & 1);
    }
    sel = host_msr_get(hw.h, MSR_IA32_PERFEVTSEL0 + i);
    global = host_msr_get(hw.h, MSR_IA32_PERF_GLOBAL_CTRL);
    *event = (uint16_t)(sel & 0xFF);
    *umask = (uint8_t)(sel >> PERFEVTSEL_UMASK_SHIFT);
    *cmask = (uint8_t)(sel >> PERFEVTSEL_CMASK_SHIFT);
    return (sel & PERFEVTSEL_EN) && (global >> i & 1);
}

/*
 * AMD Large Increment event (003H, Retired SSE/AVX FLOPs) on counter i: it
 * counts in full only when the odd counter i+1 holds the enabled MergeEvent
 * (and PerfCntrGlobalCtl enables it); otherwise it is capped at 15 per cycle.
 */
static bool merged_with_next(unsigned i)
{
    uint64_t odd = host_msr_get(hw.h, MSR_AMD_PERF_CTL0 + 2 * (i + 1));
    uint64_t global = host_msr_get(hw.h, MSR_AMD_PERF_CNTR_GLOBAL_CTL);
    return i % 2 == 0 && (odd & AMD_PERF_CTL_MERGE_ENABLE) == AMD_PERF_CTL_MERGE_ENABLE &&
           (global >> (i + 1) & 1);
}

static bool gp_counting(unsigned i, uint16_t *event, uint8_t *umask)
{
    uint8_t cmask;
    return gp_counting_cmask(i, event, umask, &cmask);
}

static bool fixed_counting(unsigned i)
{
    uint64_t ctrl = host_msr_get(hw.h, MSR_IA32_FIXED_CTR_CTRL) >> (4 * i);
    uint64_t global = host_msr_get(hw.h, MSR_IA32_PERF_GLOBAL_CTRL);
    return (ctrl & (FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR)) && (global >> (GLOBAL_CTRL_FIXED_SHIFT + i) & 1);
}

static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads,
                     size_t n_reads, int64_t copies)
{
    (void)arg;
    hw.runs++;
    hw.h->tsc += hw.tsc_per_run;
    uint16_t event0;
    uint8_t umask0;
    if (hw.ud_event && gp_counting(0, &event0, &umask0) && event0 == hw.ud_event) {
        data->fault_happened = 1;
        data->fault_vector = 6;
        data->fault_rip = 0;
        return;
    }
    for (size_t k = 0; k < n_reads; k++) {
        const struct counter_read *r = &reads[k];
        uint64_t m1 = 0, n = 0, mask = ~0ull;
        if (r->kind == READ_TSC) {
            m1 = 123456789;
            n = count(hw.tsc_centi, copies);
        } else if (r->kind == READ_MSR) {
            m1 = 5000;
            n = count(r->ecx == MSR_IA32_MPERF ? hw.mperf_centi : cycles_now(hw.aperf_centi), copies);
        } else if (r->ecx == RDPMC_METRICS) {
            /*
             * IA32_PERF_METRICS: the generated code zeroed it with FIXED_CTR3
             * before m1 (so any bytes do at m1: the slots are 0), and it
             * follows fixed counter 3 when GLOBAL_CTRL bit 48 is set.
             */
            bool on = fixed_counting(3) &&
                      (host_msr_get(hw.h, MSR_IA32_PERF_GLOBAL_CTRL) & GLOBAL_CTRL_EN_PERF_METRICS);
            if (hw.bench)
                hw.topdown_reset_seen = hw.bench->topdown_global_ctrl;
            data->m1[k] = 0x01020304;
            data->m2[k] = on ? hw.metrics : 0;
            continue;
        } else if (r->ecx & RDPMC_FIXED) {
            unsigned i = r->ecx & 0xFF;
            m1 = i == 3 ? 0 : 1000; /* fixed counter 3 was zeroed before m1 */
            n = fixed_counting(i) ? count(i == 3 ? hw.fixed3_centi : i == 1 ? cycles_now(hw.fixed_centi[1])
                                                                           : hw.fixed_centi[i], copies)
                                  : 0;
        } else {
            uint16_t event;
            uint8_t umask, cmask;
            bool on = gp_counting_cmask(r->ecx, &event, &umask, &cmask);
            /* RDPMC returns the counter's width only (SDM vol. 2B RDPMC). */
            mask = (1ull << hw.gp_width) - 1;
            m1 = hw.gp_start & mask;
            int64_t centi = rate_of(event, umask, cmask);
            if (hw.amd && event == 0x003 && !merged_with_next(r->ecx)) {
                /* A counter alone adds at most 15 per cycle (PPR "Large Increment per Cycle Events"). */
                int64_t cap = 15 * rate_of(0x076, 0x00, 0);
                centi = centi < cap ? centi : cap;
            }
            n = on ? count(centi, copies) : 0;
        }
        data->m1[k] = m1;
        data->m2[k] = (m1 + n) & mask;
    }
}

/* The probe's loop "retires" 2002 instructions on counter 0 while it is enabled. */
static void probe_counts(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
    if (msr == MSR_AMD_PERF_CNTR_GLOBAL_CTL && value == 0 && host_msr_get(h, MSR_AMD_PERF_CTL0))
        host_msr_set(h, MSR_AMD_PERF_CTR0, 2002);
}

/* Skylake: perfmon v4, 4 general-purpose counters of 48 bits, 3 fixed of 48 bits. */
static void intel_machine(struct host_platform *h)
{
    host_intel_perfmon_v4(h, 0x00050654, 1u << 4);
    h->on_msr_write = probe_counts;
}

/* Zen 4: PerfCtrExtCore and PerfMonV2, 6 counters; PERF_CTL bits 63:42, 39:36, 21, 19 reserved. */
#define AMD_PERF_CTL_RESERVED (0xFFFFFC0000000000ull | 0xF000000000ull | (1ull << 21) | (1ull << 19))

static void amd_machine(struct host_platform *h)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "AuthenticAMD", 0x10);
    host_cpuid_set(h, 1, 0, 0x00A60F12, 0, 0, 1u << 4); /* family 19h model 61h */
    host_cpuid_set(h, 0x80000000u, 0, 0x80000022u, 0, 0, 0);
    host_cpuid_set(h, 0x80000001u, 0, 0, 0, 1u << 23, 0);
    host_cpuid_set(h, 0x80000022u, 0, 1, 6, 0, 0);
    host_msr_fault(h, 0x8B);
    for (unsigned i = 0; i < 6; i++) {
        host_msr_reserved(h, MSR_AMD_PERF_CTL0 + 2 * i, AMD_PERF_CTL_RESERVED);
        host_msr_counter(h, MSR_AMD_PERF_CTR0 + 2 * i, 48);
    }
    h->on_msr_write = probe_counts;
}

struct rig {
    char init_text[2048]; /* what counters_init printed */
    struct host_platform h;
    struct report r;
    struct counter_env env;
    struct bench_context bench;
    struct bench_options o;
    struct bench_code code;
};

static const uint8_t NOP = 0x90;

/* Called by rig_up between the machine's description and counters_init, when set. */
static void (*machine_tweak)(struct host_platform *h);

static bool rig_up(struct rig *x, bool amd, const struct rate *rates, size_t n_rates)
{
    struct machine_info m;
    if (amd)
        amd_machine(&x->h);
    else
        intel_machine(&x->h);
    if (machine_tweak)
        machine_tweak(&x->h);
    machine_tweak = NULL;
    memset(&hw, 0, sizeof(hw));
    hw.h = &x->h;
    hw.amd = amd;
    hw.rates = rates;
    hw.n_rates = n_rates;
    hw.gp_width = 48;
    hw.tsc_centi = 200;
    machine_identify(&x->h.p, &m);
    report_init(&x->r, &x->h.p);
    counters_init(&x->env, &x->h.p, &m, &x->r);
    snprintf(x->init_text, sizeof(x->init_text), "%s", host_text(&x->h));
    if (!CHECK(x->env.usable) || !CHECK(bench_context_init(&x->bench, &x->h.p) == NB_OK))
        return false;
    x->bench.fake_run = fake_run;
    bench_options_init(&x->o);
    x->o.config_path = "cfg.txt";
    memset(&x->code, 0, sizeof(x->code));
    x->code.part[PART_MAIN] = &NOP;
    x->code.len[PART_MAIN] = 1;
    host_text_reset(&x->h);
    return true;
}

/* Measures one benchmark with `config` as its -config file; returns what it printed. */
static const char *measure(struct rig *x, const char *config)
{
    host_fs_add_text(&x->h, "nanobench/cfg.txt", config);
    host_text_reset(&x->h);
    x->r.serial_seq = 0; /* the text starts afresh: its frames are numbered from 0 */
    counters_measure(&x->env, &x->bench, &x->o, &x->code, &x->r);
    return host_text(&x->h);
}

static void rig_down(struct rig *x)
{
    bench_context_free(&x->bench);
    counters_finish(&x->env);
    host_platform_free(&x->h);
}

static const struct rate SIX_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0x3C, 0x00, 150, 0 }, { 0x0E, 0x01, 400, 0 },
    { 0xA3, 0x04, 25, 0 },  { 0xC4, 0x00, 100, 0 }, { 0xD1, 0x01, 50, 0 },
};

NB_TEST(results_several_groups_print_in_config_order)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /*
     * BRANCHES is pinned to counter 0, so it goes into group 1 first; INST,
     * CYCLES and UOPS fill counters 1-3; STALLS and L1_HIT form group 2.
     * The report still follows the config.
     */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04.CMSK=4 STALLS\n"
                             "C4.00.CTR=0 BRANCHES\nD1.01 L1_HIT\n"),
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n"
                 "BRANCHES: 1.00\nL1_HIT: 0.50\n");
    /* Two groups: (1 + 5 warm-up + 10 measured) x (base + main) runs each, no initial warm-up. */
    CHECK_EQ_INT(hw.runs, 2 * 2 * 15);
    rig_down(&x);
}

NB_TEST(results_intel_fixed_counters)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 700;
    hw.fixed_centi[1] = 350;
    hw.fixed_centi[2] = 200;
    x.o.fixed_counters = true;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00 BRANCHES\n"),
                 "RDTSC: 2.00\nInstructions retired: 7.00\nCore cycles: 3.50\nReference cycles: 2.00\n"
                 "INST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\nBRANCHES: 1.00\n");
    rig_down(&x);
}

NB_TEST(results_amd_fixed_counters_are_mperf_and_aperf)
{
    static const struct rate rates[] = { { 0x0C0, 0x00, 300, 0 }, { 0x1CF, 0x04, 125, 0 } };
    struct rig x;
    REQUIRE(rig_up(&x, true, rates, NB_ARRAY_SIZE(rates)));
    hw.mperf_centi = 100;
    hw.aperf_centi = 180;
    x.o.fixed_counters = true;
    CHECK_EQ_STR(measure(&x, "0C0.00 RETIRED_INSTRUCTIONS\n1CF.04 HIGH_EVENT\n"),
                 "RDTSC: 2.00\nMPERF: 1.00\nAPERF: 1.80\nRETIRED_INSTRUCTIONS: 3.00\nHIGH_EVENT: 1.25\n");
    /* No write hit a reserved PERF_CTL bit (APM vol. 2 13.2.1: 63:42, 39:36, 21, 19). */
    CHECK_EQ_INT(x.h.n_write_faults, 0);
    rig_down(&x);
}

NB_TEST(results_remove_empty_events)
{
    static const struct rate rates[] = { { 0xC0, 0x00, 1000, 0 }, { 0x3C, 0x00, 0, 0 } };
    struct rig x;
    REQUIRE(rig_up(&x, false, rates, NB_ARRAY_SIZE(rates)));
    hw.tsc_centi = 0;        /* RDTSC is printed even when it is 0 */
    hw.fixed_centi[0] = 0;   /* a fixed counter that counted nothing is dropped */
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 0;
    x.o.fixed_counters = true;
    x.o.remove_empty_events = true;
    /* 10.00 is kept (nanoBench drops it: it compares the text with "0"). */
    CHECK_EQ_STR(measure(&x, "C0.00 TEN\n3C.00 ZERO\n"), "RDTSC: 0.00\nCore cycles: 10.00\nTEN: 10.00\n");
    rig_down(&x);
}

NB_TEST(results_no_mem_leaves_room_for_the_fixed_counters)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 100;
    x.o.no_mem = true;
    x.o.fixed_counters = true;
    /* R8..R13: RDTSC and 3 fixed counters leave 2 registers: three groups of two. */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00 BRANCHES\nD1.01 L1_HIT\n"),
                 "RDTSC: 2.00\nInstructions retired: 1.00\nCore cycles: 0.00\nReference cycles: 0.00\n"
                 "INST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\nBRANCHES: 1.00\nL1_HIT: 0.50\n");
    CHECK_EQ_INT(hw.runs, 3 * 2 * 15);
    rig_down(&x);
}

NB_TEST(results_no_mem_says_the_smi_check_is_off)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    x.env.power.smi_count = true; /* an Intel part with MSR_SMI_COUNT */
    x.o.no_mem = true;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\n"
                 "smi: not checked with -no_mem (R8..R13 hold the counters: no register is left for "
                 "MSR_SMI_COUNT)\n");
    rig_down(&x);
}

/* -timeout bounds the whole benchmark: the second counter group spends what the first left. */
NB_TEST(results_timeout_covers_every_group)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    x.bench.tsc_hz = 1000;
    x.o.timeout = 1;
    hw.tsc_per_run = 25; /* a group: 2 x (5 warm-up + 10) runs = 750 ticks of the 1000 */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00 BRANCHES\n"
                             "D1.01 L1_HIT\n"),
                 "error: timeout after 1 s (before the main run) (counter group 2 of 2)\n"
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n");
    rig_down(&x);
}

NB_TEST(results_counter_wrap_between_m1_and_m2)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /* Every counter is 100 events short of wrapping at m1: the main run's 6017 events wrap it. */
    hw.gp_start = (1ull << 48) - 100;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"), "RDTSC: 2.00\nINST: 3.00\n");
    rig_down(&x);
}

NB_TEST(results_faulting_perfevtsel_write_skips_the_event)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /*
     * KVM's vPMU reserves PERFEVTSEL bits 63:32 and AnyThread (bit 21): an
     * .AnyT event's write faults there (as on perfmon v5 parts that dropped
     * AnyThread). The other events are still measured.
     */
    for (unsigned i = 0; i < 4; i++)
        host_msr_reserved(&x.h, MSR_IA32_PERFEVTSEL0 + i, 0xFFFFFFFF00000000ull | PERFEVTSEL_ANY);
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00.AnyT CYCLES_ANY\n0E.01 UOPS\n"),
                 "warning: cfg.txt line 2: CYCLES_ANY: IA32_PERFEVTSEL1 (MSR 0x187) rejected 0x63003C "
                 "(#GP; event skipped)\n"
                 "RDTSC: 2.00\nINST: 3.00\nUOPS: 4.00\n");
    CHECK_EQ_INT(x.r.n_errors, 0);
    rig_down(&x);
}

NB_TEST(results_faulting_aux_msr_skips_its_events)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    host_msr_reserved(&x.h, MSR_OFFCORE_RSP_0, 0xFFFF000000000000ull);
    CHECK_EQ_STR(measure(&x, "C0.00 INST\nB7.01.MSR_RSP0=0x1000000000000001 OFFCORE\n3C.00 CYCLES\n"),
                 "warning: cfg.txt line 2: OFFCORE: MSR_OFFCORE_RSP_0 (MSR 0x1a6) rejected "
                 "0x1000000000000001 (#GP; event skipped)\n"
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\n");
    /* The counter of the skipped event was left off. */
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_IA32_PERFEVTSEL0 + 1), 0);
    rig_down(&x);
}

NB_TEST(results_faulting_fixed_control_is_an_error_for_the_fixed_counters)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 100;
    /* A part whose IA32_FIXED_CTR_CTRL rejects the fields of fixed counter 2. */
    host_msr_reserved(&x.h, MSR_IA32_FIXED_CTR_CTRL, 0xF00);
    x.o.fixed_counters = true;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "error: fixed counters: IA32_FIXED_CTR_CTRL (MSR 0x38d) rejected 0x333 (#GP); "
                 "fixed counters not measured\n"
                 "RDTSC: 2.00\nINST: 3.00\n");
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_IA32_FIXED_CTR_CTRL), 0);
    rig_down(&x);
}

NB_TEST(results_faulting_global_control_is_an_error_for_the_group)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /* Enabling counter 3 faults: the first group (4 events) cannot count, the second can. */
    host_msr_reserved(&x.h, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 3);
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00 BRANCHES\n"),
                 "error: counter group 1 of 2: IA32_PERF_GLOBAL_CTRL (MSR 0x38f) rejected 0xF (#GP); "
                 "INST, CYCLES, UOPS, STALLS not measured\n"
                 "RDTSC: 2.00\nBRANCHES: 1.00\n");
    /* Nothing was left programmed by the failed group. */
    for (unsigned i = 1; i < 4; i++)
        CHECK_EQ_U64(host_msr_get(&x.h, MSR_IA32_PERFEVTSEL0 + i), 0);
    rig_down(&x);
}

NB_TEST(results_no_schedulable_event_does_not_read_stale_groups)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /* A first benchmark leaves its groups in the table... */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n"), "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\n");
    /* ...the next one has only an event pinned beyond the 2 counters -no_mem leaves. */
    hw.fixed_centi[0] = 100;
    x.o.no_mem = true;
    x.o.fixed_counters = true;
    x.r.n_errors = 2; /* earlier benchmarks of the suite had errors: not this one's business */
    CHECK_EQ_STR(measure(&x, "C0.00.CTR=3 PINNED\n"),
                 "RDTSC: 2.00\nInstructions retired: 1.00\nCore cycles: 0.00\nReference cycles: 0.00\n"
                 "warning: PINNED: .CTR=3 has none of the counters left with -no_mem (0-1; not measured)\n");
    rig_down(&x);
}

/* CPUID.(7,0):EDX[13]: MSR_TSX_FORCE_ABORT exists; bits 63:1 reserved. */
static void tsx_force_abort_part(struct host_platform *h)
{
    host_cpuid_set(h, 7, 0, 0, 0, 0, 1u << 13);
    host_msr_reserved(h, MSR_TSX_FORCE_ABORT, ~TSX_FORCE_ABORT_RTM);
}

/* The same, but the write faults (e.g. a hypervisor that reports the bit and hides the MSR). */
static void tsx_force_abort_rejected(struct host_platform *h)
{
    host_cpuid_set(h, 7, 0, 0, 0, 0, 1u << 13);
    host_msr_reserved(h, MSR_TSX_FORCE_ABORT, ~0ull);
}

NB_TEST(results_tsx_force_abort_is_set_while_pmc3_counts)
{
    struct rig x;
    machine_tweak = tsx_force_abort_part;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    CHECK(strstr(x.init_text, "pmu: TSX force-abort: RTM transactions abort while a group uses PMC3 "
                              "(MSR_TSX_FORCE_ABORT set for those runs, restored after)\n"));
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\n"),
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n");
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_TSX_FORCE_ABORT), TSX_FORCE_ABORT_RTM);
    rig_down(&x);
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_TSX_FORCE_ABORT), 0);
}

NB_TEST(results_tsx_force_abort_rejected_keeps_events_off_pmc3)
{
    struct rig x;
    machine_tweak = tsx_force_abort_rejected;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    CHECK(strstr(x.init_text, "pmu: TSX force-abort: MSR_TSX_FORCE_ABORT (0x10f) cannot be set; PMC3 "
                              "stays with the microcode and is not used\n"));
    /* Four events on three counters: two groups, PMC3 never programmed. */
    x.h.n_writes = 0;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nA3.04.CTR=3 PINNED\n"),
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n"
                 "warning: PINNED: .CTR=3 has none of the counters usable here (PMC3 stays with TSX, "
                 "see the pmu: line) (0-2; not measured)\n");
    CHECK_EQ_INT(hw.runs, 2 * 2 * 15);
    for (size_t i = 0; i < x.h.n_writes; i++) {
        if (x.h.writes[i].msr == MSR_IA32_PERFEVTSEL0 + 3)
            CHECK_EQ_U64(x.h.writes[i].value, 0);
    }
    rig_down(&x);
}

NB_TEST(results_amd_faulting_perf_ctl_skips_the_event)
{
    static const struct rate rates[] = { { 0x0C0, 0x00, 300, 0 }, { 0x076, 0x00, 200, 0 }, { 0x1CF, 0x04, 125, 0 } };
    struct rig x;
    REQUIRE(rig_up(&x, true, rates, NB_ARRAY_SIZE(rates)));
    /* A counter whose control register rejects every enabled value (say, taken by firmware). */
    host_msr_reserved(&x.h, MSR_AMD_PERF_CTL0 + 2 * 1, ~0xFFFFull);
    CHECK_EQ_STR(measure(&x, "0C0.00 RETIRED_INSTRUCTIONS\n076.00 CYCLES\n1CF.04 HIGH_EVENT\n"),
                 "warning: cfg.txt line 2: CYCLES: PERF_CTL1 (MSR 0xc0010202) rejected 0x430076 "
                 "(#GP; event skipped)\n"
                 "RDTSC: 2.00\nRETIRED_INSTRUCTIONS: 3.00\nHIGH_EVENT: 1.25\n");
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_AMD_PERF_CTL0 + 2 * 1), 0);
    rig_down(&x);
}

NB_TEST(results_a_failing_group_keeps_what_was_measured)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.ud_event = 0xC4; /* group 2 (BRANCHES on PMC0, L1_HIT) faults */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00 BRANCHES\nD1.01 L1_HIT\n"),
                 "error: #UD at 0x0, outside the benchmark's code (base run) (counter group 2 of 2)\n"
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n");
    rig_down(&x);
}

NB_TEST(results_restore_that_faults_is_reported)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n"), "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\n");
    /* The value found in IA32_PERFEVTSEL1 (enabled) cannot be written back any more. */
    x.env.session.saved[3].value = 0x4300C0;
    CHECK_EQ_U64(x.env.session.saved[3].msr, MSR_IA32_PERFEVTSEL0 + 1);
    host_msr_reserved(&x.h, MSR_IA32_PERFEVTSEL0 + 1, PERFEVTSEL_EN);
    host_text_reset(&x.h);
    x.r.serial_seq = 0;
    counters_finish(&x.env);
    CHECK_EQ_STR(host_text(&x.h), "warning: pmu: 1 counter MSR could not be restored to the value "
                                  "found at start\n");
    bench_context_free(&x.bench);
    host_platform_free(&x.h);
}

NB_TEST(results_empty_config_measures_rdtsc_only)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    /* An empty -config file has no events (not the built-in ones). */
    CHECK_EQ_STR(measure(&x, ""), "RDTSC: 2.00\n");
    CHECK_EQ_STR(measure(&x, "# only a comment\n"), "RDTSC: 2.00\n");
    rig_down(&x);
}

/* Newer microcode: RTM always aborts (CPUID.(7,0):EDX[11]) and PMC3 is free; MSR 10FH still exists. */
static void rtm_always_abort_part(struct host_platform *h)
{
    host_cpuid_set(h, 7, 0, 0, 0, 0, (1u << 13) | (1u << 11));
    host_msr_reserved(h, MSR_TSX_FORCE_ABORT, ~3ull);
}

NB_TEST(results_rtm_always_abort_needs_no_tsx_force_abort)
{
    struct rig x;
    machine_tweak = rtm_always_abort_part;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    CHECK(strstr(x.init_text, "pmu: TSX force-abort not needed: RTM always aborts "
                              "(CPUID.(7,0):EDX[11]), PMC3 is free\n"));
    x.h.n_writes = 0;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\n"),
                 "RDTSC: 2.00\nINST: 3.00\nCYCLES: 1.50\nUOPS: 4.00\nSTALLS: 0.25\n");
    for (size_t i = 0; i < x.h.n_writes; i++)
        CHECK(x.h.writes[i].msr != MSR_TSX_FORCE_ABORT);
    rig_down(&x);
}

/*
 * -verbose: nanoBench's blocks, each with its base run, then its main run
 * (m2 - m1 of every measurement): RDTSC and the fixed counters, then a block
 * per counter group; a group after the first leaves out RDTSC, whose result
 * comes from the first. A verbose: line names each column. -basic_mode: the
 * base run has no copies and no loop.
 */
NB_TEST(results_verbose_prints_nanobench_blocks)
{
    struct rig x;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 700;
    hw.fixed_centi[1] = 350;
    hw.fixed_centi[2] = 200;
    x.bench.report = &x.r;
    x.o.fixed_counters = true;
    x.o.verbose = true;
    x.o.basic_mode = true;
    x.o.unroll_count = 10;
    x.o.loop_count = 3;
    x.o.n_measurements = 2;
    x.o.warm_up_count = 0;
    /* The fake counts per copy, not per loop round: 10 copies x 3 rounds give a third of each rate. */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n3C.00 CYCLES\n0E.01 UOPS\nA3.04 STALLS\nC4.00.CTR=0 BRANCHES\n"),
                 "verbose: Ctr0 = RDTSC\n"
                 "verbose: Ctr1 = Instructions retired\n"
                 "verbose: Ctr2 = Core cycles\n"
                 "verbose: Ctr3 = Reference cycles\n"
                 "\n"
                 "RDTSC and fixed-function counter results (unroll_count=0, loop_count=0):\n"
                 "\n"
                 "\t               Ctr0        Ctr1        Ctr2        Ctr3\n"
                 "\trun 0:           17          17          17          17\n"
                 "\trun 1:           17          17          17          17\n"
                 "\n"
                 "RDTSC and fixed-function counter results (unroll_count=10, loop_count=3):\n"
                 "\n"
                 "\t               Ctr0        Ctr1        Ctr2        Ctr3\n"
                 "\trun 0:           37          87          52          37\n"
                 "\trun 1:           37          87          52          37\n"
                 "\n"
                 "verbose: Ctr0 = INST\n"
                 "verbose: Ctr1 = CYCLES\n"
                 "verbose: Ctr2 = UOPS\n"
                 "verbose: Ctr3 = BRANCHES\n"
                 "\n"
                 "Programmable counter results (unroll_count=0, loop_count=0):\n"
                 "\n"
                 "\t               Ctr0        Ctr1        Ctr2        Ctr3\n"
                 "\trun 0:           17          17          17          17\n"
                 "\trun 1:           17          17          17          17\n"
                 "\n"
                 "Programmable counter results (unroll_count=10, loop_count=3):\n"
                 "\n"
                 "\t               Ctr0        Ctr1        Ctr2        Ctr3\n"
                 "\trun 0:           47          32          57          27\n"
                 "\trun 1:           47          32          57          27\n"
                 "\n"
                 "verbose: Ctr0 = STALLS\n"
                 "\n"
                 "Programmable counter results (unroll_count=0, loop_count=0):\n"
                 "\n"
                 "\t               Ctr0\n"
                 "\trun 0:           17\n"
                 "\trun 1:           17\n"
                 "\n"
                 "Programmable counter results (unroll_count=10, loop_count=3):\n"
                 "\n"
                 "\t               Ctr0\n"
                 "\trun 0:           19\n"
                 "\trun 1:           19\n"
                 "\n"
                 "RDTSC: 0.67\nInstructions retired: 2.33\nCore cycles: 1.17\nReference cycles: 0.67\n"
                 "INST: 1.00\nCYCLES: 0.50\nUOPS: 1.33\nSTALLS: 0.07\nBRANCHES: 0.33\n");
    rig_down(&x);
}

/*
 * AMD: MPERF and APERF are RDMSR reads but belong to the first block, under
 * nanoBench's AMD title; an -msr_config event gets an "MSR results" block
 * with its MSR only. More than 10 measurements widen the run numbers.
 */
NB_TEST(results_verbose_amd_fixed_and_msr_blocks)
{
    static const struct rate rates[] = { { 0x0C0, 0x00, 300, 0 } };
    struct rig x;
    REQUIRE(rig_up(&x, true, rates, NB_ARRAY_SIZE(rates)));
    hw.mperf_centi = 100;
    hw.aperf_centi = 180;
    host_msr_set(&x.h, 0x611, 0);
    host_fs_add_text(&x.h, "nanobench/msr.txt", "msr_611 PKG_ENERGY\n");
    x.bench.report = &x.r;
    x.o.fixed_counters = true;
    x.o.verbose = true;
    x.o.msr_config_path = "msr.txt";
    x.o.unroll_count = 10;
    x.o.n_measurements = 11;
    x.o.warm_up_count = 0;
    char row_base[64], row_main[64], want[8192];
    size_t n = 0;
    n += (size_t)snprintf(want + n, sizeof(want) - n,
                          "verbose: Ctr0 = RDTSC\nverbose: Ctr1 = MPERF\nverbose: Ctr2 = APERF\n");
    static const char *const titles[] = { "RDTSC, MPERF, and APERF results", "Programmable counter results",
                                          "MSR results" };
    static const char *const heads[] = { "        Ctr0        Ctr1        Ctr2", "        Ctr0", "        Ctr0" };
    static const char *const base[] = { "          37          27          35", "          47", "          35" };
    static const char *const main_[] = { "          57          37          53", "          77", "          53" };
    for (int b = 0; b < 3; b++) {
        if (b == 1)
            n += (size_t)snprintf(want + n, sizeof(want) - n, "verbose: Ctr0 = RETIRED_INSTRUCTIONS\n");
        if (b == 2)
            n += (size_t)snprintf(want + n, sizeof(want) - n, "verbose: Ctr0 = PKG_ENERGY\n");
        for (int run = 0; run < 2; run++) {
            n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s (unroll_count=%d, loop_count=0):\n\n"
                                  "\t        %s\n", run ? "" : "\n", titles[b], run ? 20 : 10, heads[b]);
            for (int i = 0; i < 11; i++) {
                snprintf(row_base, sizeof(row_base), "\trun %2d: %s\n", i, base[b]);
                snprintf(row_main, sizeof(row_main), "\trun %2d: %s\n", i, main_[b]);
                n += (size_t)snprintf(want + n, sizeof(want) - n, "%s", run ? row_main : row_base);
            }
            n += (size_t)snprintf(want + n, sizeof(want) - n, "\n");
        }
        if (b == 1)
            n += (size_t)snprintf(want + n, sizeof(want) - n,
                                  "RDTSC: 2.00\nMPERF: 1.00\nAPERF: 1.80\nRETIRED_INSTRUCTIONS: 3.00\n");
    }
    snprintf(want + n, sizeof(want) - n, "PKG_ENERGY: 1.80\n");
    CHECK_EQ_STR(measure(&x, "0C0.00 RETIRED_INSTRUCTIONS\n"), want);
    rig_down(&x);
}

/* Puts a repository file onto the fake medium as nanobench/PATH. */
static void add_repo_file(struct host_platform *h, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static char text[1 << 21];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    char target[256];
    snprintf(target, sizeof(target), "nanobench/%s", path);
    host_fs_add_text(h, target, text);
}

/* The medium as tools/nanobench fills it for -metrics on Skylake-X (cpu_map picks the model). */
static void skylake_x_medium(struct host_platform *h)
{
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_SkylakeX_common.txt");
    add_repo_file(h, "configs/cfg_SkylakeX_all_core.txt");
    add_repo_file(h, "configs/metrics/SkylakeX.txt");
}

/*
 * -metrics cpi on the Skylake-X rig, from the shipped metric file and
 * configs: per copy 3.00 instructions (fixed 0), 1.50 core cycles (fixed
 * 1), 1.20 reference cycles (fixed 2) and 2.00 TSC ticks. By hand:
 * CPI 1.50/3.00 = 0.50, NOMINAL_CPI 1.20/3.00 = 0.40, TSC_PER_INST
 * 2.00/3.00 = 0.67, IPC 3.00/1.50 = 2.00, REF_PER_TSC 1.20/2.00 = 0.60;
 * EFFECTIVE_MHZ needs the TSC frequency, which the rig does not know.
 */
NB_TEST(results_metrics_cpi_skylake)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 300;
    hw.fixed_centi[1] = 150;
    hw.fixed_centi[2] = 120;
    x.o.metrics = "cpi";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\nCPI: 0.50\nNOMINAL_CPI: 0.40\nTSC_PER_INST: 0.67\nIPC: 2.00\n"
                 "EFFECTIVE_MHZ: n/a (TSC frequency unknown)\nREF_PER_TSC: 0.60\n"
                 "cpi: reference cycles are 60.0% of the TSC ticks (more than 0.1% apart): the core halted, "
                 "was throttled (TM duty cycle) or spent time in SMM, or the TSC is not invariant\n");
    rig_down(&x);
}

/*
 * The seed's equality check (METRICS-FACTS.md 4): reference cycles equal to
 * the TSC ticks (1.20 per copy each) print no flag; 1.21 against 1.20 is
 * within the hundredths the values are kept in, so no flag either.
 */
NB_TEST(results_metrics_cpi_reference_equals_tsc)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.tsc_centi = 120;
    hw.fixed_centi[0] = 300;
    hw.fixed_centi[1] = 150;
    hw.fixed_centi[2] = 120;
    x.o.metrics = "cpi";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 1.20\nINST: 3.00\nCPI: 0.50\nNOMINAL_CPI: 0.40\nTSC_PER_INST: 0.40\nIPC: 2.00\n"
                 "EFFECTIVE_MHZ: n/a (TSC frequency unknown)\nREF_PER_TSC: 1.00\n");
    hw.fixed_centi[2] = 121;
    CHECK(strstr(measure(&x, "C0.00 INST\n"), "cpi: reference") == NULL);
    rig_down(&x);
}

/* Per copy: 4 loads, 1 L1 miss (0.25 hit the fill buffer), 0.5 L2 and 0.1 L3 misses, LLC 0.2 of 0.8, 0.03 walks, 25 pending cycles. */
static const struct rate MEMORY_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0xD0, 0x81, 400, 0 }, { 0xD1, 0x08, 100, 0 }, { 0xD1, 0x10, 50, 0 }, { 0xD1, 0x20, 10, 0 },
    { 0xD1, 0x40, 25, 0 },
    { 0x2E, 0x41, 20, 0 },  { 0x2E, 0x4F, 80, 0 },  { 0x08, 0x0E, 3, 0 },  { 0x48, 0x01, 2500, 0 },
};

/*
 * -metrics memory on Skylake-X: the nine events it needs are added to the
 * benchmark's and scheduled (D0/D1 on PMC0-3 only) into several groups. By
 * hand: L1D 1/4 = 0.25, L2 0.5/1 = 0.50, L3 0.1/0.5 = 0.20, LLC 0.2/0.8 =
 * 0.25, DTLB walks per 1000 instructions 1000 x 0.03/3 = 10.00, load miss
 * latency 25/(1 + 0.25) = 20.00.
 */
NB_TEST(results_metrics_memory_skylake)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, MEMORY_RATES, NB_ARRAY_SIZE(MEMORY_RATES)));
    hw.fixed_centi[0] = 300;
    x.o.metrics = "memory";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\nL1D_MISS_RATIO: 0.25\nL2_MISS_RATIO: 0.50\nL3_MISS_RATIO: 0.20\n"
                 "LLC_MISS_RATIO: 0.25\nDTLB_WALKS_PKI: 10.00\nLOAD_MISS_LATENCY: 20.00\n");
    rig_down(&x);
}

/* The medium for -metrics on Zen 4 (cpu_map picks family 19h model 61h). */
static void zen4_medium(struct host_platform *h)
{
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_Zen4_common.txt");
    add_repo_file(h, "configs/cfg_Zen4_all.txt");
    add_repo_file(h, "configs/metrics/Zen4.txt");
}

/* Per copy: 4 instructions, 2 core cycles, 1.6 P0-frequency cycles. */
static const struct rate ZEN4_CPI_RATES[] = { { 0x0C0, 0x00, 400, 0 }, { 0x076, 0x00, 200, 0 }, { 0x120, 0x01, 160, 0 } };

/*
 * -metrics cpi on Zen 4 from the shipped files (the three events on
 * programmable counters, one of them a 3-digit event code): by hand CPI
 * 2/4 = 0.50, NOMINAL_CPI 1.6/4 = 0.40, TSC_PER_INST 2/4 = 0.50, IPC 2.00,
 * REF_PER_TSC 1.6/2 = 0.80.
 */
NB_TEST(results_metrics_cpi_zen4)
{
    struct rig x;
    machine_tweak = zen4_medium;
    REQUIRE(rig_up(&x, true, ZEN4_CPI_RATES, NB_ARRAY_SIZE(ZEN4_CPI_RATES)));
    x.o.metrics = "cpi";
    CHECK_EQ_STR(measure(&x, "0C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 4.00\nCPI: 0.50\nNOMINAL_CPI: 0.40\nTSC_PER_INST: 0.50\nIPC: 2.00\n"
                 "EFFECTIVE_MHZ: n/a (TSC frequency unknown)\nREF_PER_TSC: 0.80\n"
                 "cpi: reference cycles are 80.0% of the TSC ticks (more than 0.1% apart): the core halted, "
                 "was throttled (TM duty cycle) or spent time in SMM, or the TSC is not invariant\n");
    rig_down(&x);
}

/*
 * Ice Lake-SP: perfmon v5, 4 fixed counters, IA32_PERF_CAPABILITIES[15]
 * (PERF_METRICS). Reached through CPUID.1:ECX[15] (PDCM).
 */
static void ice_lake(struct host_platform *h)
{
    host_cpuid_set(h, 1, 0, 0x000606A0, 0, 1u << 15, 1u << 4);
    host_cpuid_set(h, 0xA, 0, 0x07300405, 0, 0, 0x604);
    host_msr_set(h, MSR_IA32_PERF_CAPABILITIES, PERF_CAPABILITIES_PERF_METRICS);
    host_msr_counter(h, MSR_IA32_FIXED_CTR3, 48);
}

NB_TEST(results_intel_topdown_fields_as_slots)
{
    struct rig x;
    machine_tweak = ice_lake;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    REQUIRE(x.env.desc.perf_metrics);
    hw.bench = &x.bench;
    hw.fixed3_centi = 500; /* 5 slots per copy */
    /* Retiring 0x33, bad speculation 0x1A, frontend 0x33, backend 0x7F (sum 0xFF). */
    hw.metrics = 0x7F331A33ull;
    /*
     * Per run S = 5 x copies + 17 slots: main 10017 x 0x33 / 0xFF = 2003, base
     * 5017 x 0x33 / 0xFF = 1003, (2003 - 1003) / 1000 copies = 1.00; bad
     * speculation 1021 - 511 = 0.51; backend 4988 - 2498 = 2.49.
     */
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n00.80 TOPDOWN.RETIRING\n00.81 TOPDOWN.BAD_SPEC\n"
                             "00.82 TOPDOWN.FE_BOUND\n00.83 TOPDOWN.BE_BOUND\n00.04 SLOTS\n"),
                 "RDTSC: 2.00\nINST: 3.00\nTOPDOWN.RETIRING: 1.00\nTOPDOWN.BAD_SPEC: 0.51\n"
                 "TOPDOWN.FE_BOUND: 1.00\nTOPDOWN.BE_BOUND: 2.49\nSLOTS: 5.00\n");
    /* The code zeroed FIXED_CTR3 and PERF_METRICS before m1, re-enabling PMC0, fixed 3, metrics. */
    CHECK_EQ_U64(hw.topdown_reset_seen, 0x1000800000001ull);
    CHECK_EQ_U64(x.bench.topdown_global_ctrl, 0);
    /* -no_mem: the fields are fractions, not counts: skipped with a warning. */
    x.o.no_mem = true;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n00.80 TOPDOWN.RETIRING\n"),
                 "warning: cfg.txt line 2: TOPDOWN.RETIRING: top-down events are not measured with "
                 "-no_mem (IA32_PERF_METRICS holds fractions, not counts; event skipped)\n"
                 "RDTSC: 2.00\nINST: 3.00\n");
    rig_down(&x);
}

/* Per copy: 1 NOP, 6 stall cycles and their parts, loads by level (section 3b of METRICS-FACTS.md). */
static const struct rate CODEMON_RATES[] = {
    { 0xC0, 0x00, 500, 0 }, { 0xC0, 0x02, 100, 0 }, { 0xC2, 0x02, 600, 0 }, { 0x0D, 0x01, 100, 0 }, { 0xA3, 0x14, 400, 0 },
    { 0xA3, 0x0C, 300, 0 }, { 0xA3, 0x04, 500, 0 }, { 0xA6, 0x40, 60, 0 },  { 0x9C, 0x01, 150, 0 }, { 0xD1, 0x10, 50, 0 },
    { 0xD1, 0x08, 200, 0 }, { 0x2E, 0x41, 20, 0 },  { 0x2E, 0x4F, 50, 0 },  { 0xD1, 0x02, 150, 0 }, { 0xD1, 0x04, 30, 0 },
    { 0xD1, 0x20, 20, 0 },  { 0x08, 0x0E, 10, 0 },
};

/*
 * -metrics codemon on Skylake-X: C = 10 cycles (fixed 1), I = 5 (fixed 0),
 * N = 1, B = 6. By hand: CPUI 10/4 = 2.50, CPI 2.00, UCPUI (10-6)/4 = 1.00,
 * UCPI 4/5 = 0.80, delay 6/10 = 0.60, flush 1/6 = 0.17, L1D (4-3)/6 = 0.17,
 * exe (3+5-4)/6 = 0.67, other 0.6/6 = 0.10, FE 1.5/6 = 0.25, access
 * (4+0.6)/6 = 0.77, L2 misses 0.5/2 = 0.25, L3 0.2/0.5 = 0.40. Without
 * -calibrate the latency model is n/a, FP_SPEED needs the TSC frequency and
 * SYS_UTILIZE the peak, which Skylake-X has per SKU only. The report ends in
 * Codemon's plain words, the overlapping stall parts largest first.
 */
NB_TEST(results_metrics_codemon_skylake)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, CODEMON_RATES, NB_ARRAY_SIZE(CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.o.metrics = "codemon";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 5.00\nPROG_CPUI: 2.50\nPROG_CPI: 2.00\nPROG_UCPUI: 1.00\nPROG_UCPI: 0.80\n"
                 "PROG_DELAY_RATIO: 0.60\nFLUSH_RATIO: 0.17\nL1D_FPU_RATIO: 0.17\nEXE_RATIO: 0.67\n"
                 "OTHER_BE_RATIO: 0.10\nFE_RATIO: 0.25\nPROG_ACCESS_DELAY_RATIO: 0.77\nCM_L2_MISS_RATIO: 0.25\n"
                 "CM_L3_MISS_RATIO: 0.40\n"
                 "CACHE_DELAY_RATIO: n/a (memory latencies N1..N4 not measured (add -calibrate))\n"
                 "MEM_DELAY_RATIO: n/a\nTLB_DELAY_RATIO: n/a\n"
                 "FP_SPEED: n/a (TSC frequency unknown)\nSYS_UTILIZE: n/a (peak_flop_per_cycle unknown for this CPU)\n"
                 "codemon: stalls are 60% of cycles; of them memory access 77%, execution 67%, the front end "
                 "25%, pipeline flushes 17% (parts overlap)\n");
    rig_down(&x);
}

/*
 * Per copy: 2.5 core cycles (fixed 1), 1.5 undelivered uops, 0.3 cycles with none
 * delivered (9C/01 cmask 4), 5 issued, 4 retire slots, 0.25 recovery cycles, 0.3
 * mispredicted branches, 0.1 machine clears (C3/01 cmask 1), 0.5 macro-fused uops,
 * 0.6 memory stall cycles (A3/14 cmask 20), 0.1 cycles bound on stores, 0.25 stall
 * cycles (A3/04 cmask 4), 0.4 and 0.5 cycles with 1 and 2 ports used.
 */
static const struct rate TOPDOWN_SKX_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0x9C, 0x01, 150, 0 }, { 0x9C, 0x01, 30, 4 }, { 0x0E, 0x01, 500, 0 },
    { 0xC2, 0x02, 400, 0 }, { 0x0D, 0x01, 25, 0 },  { 0xC5, 0x00, 30, 0 },     { 0xC3, 0x01, 10, 1 },
    { 0xC2, 0x04, 50, 0 },  { 0xA3, 0x14, 60, 20 }, { 0xA6, 0x40, 10, 0 },  { 0xA3, 0x04, 25, 4 },
    { 0xA6, 0x02, 40, 0 },  { 0xA6, 0x04, 50, 0 },
};

/*
 * -metrics topdown on Skylake-X: Intel's TMA 5.01 (configs/tables/tma/SkylakeX.json,
 * SMT off): SLOTS = 4 x 2.5 = 10. By hand: TD_FRONTEND_BOUND 1.5/10 = 0.15,
 * TD_FETCH_LATENCY 4 x 0.3/10 = 0.12, TD_FETCH_BANDWIDTH 0.15 - 0.12 = 0.03,
 * TD_BAD_SPECULATION (5 - 4 + 4 x 0.25)/10 = 0.20, TD_BRANCH_MISPREDICTS
 * 0.3/(0.3 + 0.1) x 0.20 = 0.15, TD_MACHINE_CLEARS 0.20 - 0.15 = 0.05, TD_RETIRING
 * 4/10 = 0.40, TD_HEAVY_OPERATIONS (4 + 0.5 - 3)/10 = 0.15, TD_LIGHT_OPERATIONS
 * 0.40 - 0.15 = 0.25, TD_BACKEND_BOUND 1 - 0.15 - (5 + 4 x 0.25)/10 = 0.25,
 * TD_MEMORY_BOUND (0.6 + 0.1)/(0.25 + (0.4 + 0.40 x 0.5) + 0.1) x 0.25 = 0.7/0.95 x 0.25
 * = 0.1842 -> 0.18, TD_CORE_BOUND 0.25 - 0.1842 = 0.0658 -> 0.07.
 */
NB_TEST(results_metrics_topdown_skylake)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, TOPDOWN_SKX_RATES, NB_ARRAY_SIZE(TOPDOWN_SKX_RATES)));
    hw.fixed_centi[0] = 300;
    hw.fixed_centi[1] = 250;
    x.o.metrics = "topdown";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\nTD_FRONTEND_BOUND: 0.15\nTD_FETCH_LATENCY: 0.12\n"
                 "TD_FETCH_BANDWIDTH: 0.03\nTD_BAD_SPECULATION: 0.20\nTD_BRANCH_MISPREDICTS: 0.15\n"
                 "TD_MACHINE_CLEARS: 0.05\nTD_RETIRING: 0.40\nTD_LIGHT_OPERATIONS: 0.25\n"
                 "TD_HEAVY_OPERATIONS: 0.15\nTD_BACKEND_BOUND: 0.25\nTD_MEMORY_BOUND: 0.18\n"
                 "TD_CORE_BOUND: 0.07\n");
    rig_down(&x);
}

/* Per copy, FP_ARITH_INST_RETIRED (C7H) by umask: scalar double 1, single 2, then 0.5, 0.25, 0.5, 0.25, 0.1, 0.05. */
static const struct rate FLOPS_SKX_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0xC7, 0x01, 100, 0 }, { 0xC7, 0x02, 200, 0 }, { 0xC7, 0x04, 50, 0 }, { 0xC7, 0x08, 25, 0 },
    { 0xC7, 0x10, 50, 0 },  { 0xC7, 0x20, 25, 0 },  { 0xC7, 0x40, 10, 0 },  { 0xC7, 0x80, 5, 0 },
};

/*
 * -metrics flops on Skylake-X: FLOP weights each FP_ARITH_INST_RETIRED umask
 * by its lanes: 1 + 2 + 2 x 0.5 + 4 x 0.25 + 4 x 0.5 + 8 x 0.25 + 8 x 0.1 +
 * 16 x 0.05 = 10.60; FLOP_PER_CYCLE 10.6/2 = 5.30 (2 core cycles, fixed 1);
 * the file has no peak_flop_per_cycle for Skylake-X (per SKU), so
 * FP_PEAK_UTILIZATION is n/a.
 */
NB_TEST(results_metrics_flops_skylake)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, FLOPS_SKX_RATES, NB_ARRAY_SIZE(FLOPS_SKX_RATES)));
    hw.fixed_centi[0] = 300;
    hw.fixed_centi[1] = 200;
    x.o.metrics = "flops";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\nFLOP: 10.60\nFLOP_PER_CYCLE: 5.30\n"
                 "FP_PEAK_UTILIZATION: n/a (peak_flop_per_cycle unknown for this CPU)\n");
    rig_down(&x);
}

/*
 * Per copy: 4 instructions, 8 load dispatches; demand L1D fills (043H) from
 * L2 1, the local CCX 0.5, then 0.2, 0.2, 0.05, 0.05 (2 in all); L2 read
 * requests (064H) 0.6 missing (08H) of 1; table walks (045H) 0.02 + 3 x 0.01.
 */
static const struct rate MEMORY_ZEN4_RATES[] = {
    { 0x0C0, 0x00, 400, 0 }, { 0x029, 0x01, 800, 0 }, { 0x043, 0x01, 100, 0 }, { 0x043, 0x02, 50, 0 },
    { 0x043, 0x04, 20, 0 },  { 0x043, 0x08, 20, 0 },  { 0x043, 0x10, 5, 0 },   { 0x043, 0x40, 5, 0 },
    { 0x064, 0x08, 60, 0 },  { 0x064, 0x10, 20, 0 },  { 0x064, 0x20, 10, 0 },  { 0x064, 0x40, 5, 0 },
    { 0x064, 0x80, 5, 0 },   { 0x045, 0x10, 2, 0 },   { 0x045, 0x20, 1, 0 },   { 0x045, 0x40, 1, 0 },
    { 0x045, 0x80, 1, 0 },
};

/*
 * -metrics memory on Zen 4 (METRICS-FACTS.md 1c, 3a-3c): 16 events on 6
 * counters. By hand: L1D_MISS_RATIO 2/8 = 0.25, L2_MISS_RATIO 0.6/(0.6 +
 * 0.2 + 0.1 + 0.05 + 0.05) = 0.60, L3_MISS_RATIO (2 - 1 - 0.5)/(2 - 1) =
 * 0.50, DTLB_WALKS_PKI 1000 x 0.05/4 = 12.50.
 */
NB_TEST(results_metrics_memory_zen4)
{
    struct rig x;
    machine_tweak = zen4_medium;
    REQUIRE(rig_up(&x, true, MEMORY_ZEN4_RATES, NB_ARRAY_SIZE(MEMORY_ZEN4_RATES)));
    x.o.metrics = "memory";
    CHECK_EQ_STR(measure(&x, "0C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 4.00\nL1D_MISS_RATIO: 0.25\nL2_MISS_RATIO: 0.60\nL3_MISS_RATIO: 0.50\n"
                 "DTLB_WALKS_PKI: 12.50\n");
    rig_down(&x);
}

/* Per copy: 48 FLOPs (003H) in 2 cycles: more than the 15 per cycle a counter adds alone. */
static const struct rate FLOPS_ZEN4_RATES[] = { { 0x0C0, 0x00, 400, 0 }, { 0x076, 0x00, 200, 0 }, { 0x003, 0x1F, 4800, 0 } };

/*
 * -metrics flops on Zen 4: RETIRED_SSE_AVX_FLOPS.ANY already counts FLOPs,
 * on an even counter merged with the MergeEvent on the odd one (the fake
 * caps an unmerged counter at 15 per cycle, which would print FLOP: 30.00).
 * By hand: FLOP 48.00, FLOP_PER_CYCLE 48/2 = 24.00, FP_PEAK_UTILIZATION
 * 24/32 = 0.75 (peak_flop_per_cycle 32 from the file).
 */
NB_TEST(results_metrics_flops_zen4_merged_pair)
{
    struct rig x;
    machine_tweak = zen4_medium;
    REQUIRE(rig_up(&x, true, FLOPS_ZEN4_RATES, NB_ARRAY_SIZE(FLOPS_ZEN4_RATES)));
    x.o.metrics = "flops";
    CHECK_EQ_STR(measure(&x, "0C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 4.00\nFLOP: 48.00\nFLOP_PER_CYCLE: 24.00\nFP_PEAK_UTILIZATION: 0.75\n");
    CHECK_EQ_INT(x.h.n_write_faults, 0);
    rig_down(&x);
}

/* Sapphire Rapids (family 6 model 8FH): Ice Lake-SP's PMU plus the level-2 bytes of IA32_PERF_METRICS. */
static void sapphire_rapids_medium(struct host_platform *h)
{
    ice_lake(h);
    host_cpuid_set(h, 1, 0, 0x000806F0, 0, 1u << 15, 1u << 4);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_SapphireRapids_common.txt");
    add_repo_file(h, "configs/cfg_SapphireRapids_all_core.txt");
    add_repo_file(h, "configs/metrics/SapphireRapids.txt");
    add_repo_file(h, "configs/topdown_perf_metrics.txt");
    add_repo_file(h, "configs/topdown_perf_metrics_l2.txt");
}

/*
 * -metrics topdown on Sapphire Rapids: levels 1 and 2 from one
 * IA32_PERF_METRICS snapshot (METRICS-FACTS 2b). 6 slots per copy, so a
 * run has S = 6 x copies + 17 slots (main 12017, base 6017) and a byte b
 * gives (floor(12017 b / 255) - floor(6017 b / 255)) / 1000 per copy,
 * rounded to hundredths:
 *   retiring   0x66 = 102: 4806 - 2406 = 2400 -> 2.40
 *   bad spec   0x1A =  26: 1225 -  613 =  612 -> 0.61
 *   frontend   0x4C =  76: 3581 - 1793 = 1788 -> 1.79
 *   backend    0x33 =  51: 2403 - 1203 = 1200 -> 1.20   (level 1 sums to 0xFF)
 *   heavy ops  0x11 =  17:  801 -  401 =  400 -> 0.40
 *   mispredict 0x0D =  13:  612 -  306 =  306 -> 0.31
 *   fetch lat  0x26 =  38: 1790 -  896 =  894 -> 0.89
 *   mem bound  0x1E =  30: 1413 -  707 =  706 -> 0.71
 * Over TOPDOWN.SLOTS 6.00: FE 1.79/6 = 0.30, fetch latency 0.89/6 = 0.15,
 * bandwidth (1.79 - 0.89)/6 = 0.15, bad speculation 0.61/6 = 0.10,
 * mispredicts 0.31/6 = 0.05, machine clears 0.30/6 = 0.05, retiring
 * 2.40/6 = 0.40, light (2.40 - 0.40)/6 = 0.33, heavy 0.40/6 = 0.07, backend
 * 1.20/6 = 0.20, memory 0.71/6 = 0.12, core (1.20 - 0.71)/6 = 0.08.
 */
NB_TEST(results_metrics_topdown_level2_sapphire_rapids)
{
    struct rig x;
    machine_tweak = sapphire_rapids_medium;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    REQUIRE(x.env.desc.perf_metrics_l2);
    hw.fixed3_centi = 600;
    hw.metrics = 0x1E260D11334C1A66ull;
    x.o.metrics = "topdown";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\n"
                 "TD_FRONTEND_BOUND: 0.30\nTD_FETCH_LATENCY: 0.15\nTD_FETCH_BANDWIDTH: 0.15\n"
                 "TD_BAD_SPECULATION: 0.10\nTD_BRANCH_MISPREDICTS: 0.05\nTD_MACHINE_CLEARS: 0.05\n"
                 "TD_RETIRING: 0.40\nTD_LIGHT_OPERATIONS: 0.33\nTD_HEAVY_OPERATIONS: 0.07\n"
                 "TD_BACKEND_BOUND: 0.20\nTD_MEMORY_BOUND: 0.12\nTD_CORE_BOUND: 0.08\n");
    rig_down(&x);
}

/* Ice Lake-SP as the image finds it with its metric file on the medium. */
static void ice_lake_x_medium(struct host_platform *h)
{
    ice_lake(h);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_IceLakeX_common.txt");
    add_repo_file(h, "configs/cfg_IceLakeX_all_core.txt");
    add_repo_file(h, "configs/metrics/IceLakeX.txt");
    add_repo_file(h, "configs/topdown_perf_metrics.txt");
    add_repo_file(h, "configs/topdown_perf_metrics_l2.txt");
}

/*
 * SIX_RATES plus, per copy: 0.12 uops dropped (0D/10), 0.06 clears (0D/01 cmask 1),
 * 0.18 cycles without a uop delivered (9C/01 cmask 5), 0.3 mispredicted branches, 0.1
 * machine clears (C3/01 cmask 1), 0.6 memory stall cycles (A3/14 cmask 20), 0.1 cycles
 * bound on stores (A6/40 cmask 2), 0.4 and 0.5 cycles with 1 and 2 ports used; 3 retire
 * slots (C2/02), 0.4 uops from the microcode sequencer (79/30) and 2 from the legacy
 * decoders (79/04), 1.5 uops from decoder 0 (56/01) in 1.2 cycles (56/01 cmask 1).
 */
static const struct rate TOPDOWN_ICX_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0x3C, 0x00, 150, 0 }, { 0x0E, 0x01, 400, 0 },   { 0xA3, 0x04, 25, 0 },
    { 0xC4, 0x00, 100, 0 }, { 0xD1, 0x01, 50, 0 },  { 0x0D, 0x10, 12, 0 },    { 0x0D, 0x01, 6, 1 },
    { 0x9C, 0x01, 18, 5 }, { 0xC5, 0x00, 30, 0 }, { 0xC3, 0x01, 10, 1 }, { 0xA3, 0x14, 60, 20 },
    { 0xA6, 0x40, 10, 2 }, { 0xA6, 0x02, 40, 0 }, { 0xA6, 0x04, 50, 0 },   { 0xC2, 0x02, 300, 0 },
    { 0x79, 0x30, 40, 0 },  { 0x79, 0x04, 200, 0 }, { 0x56, 0x01, 150, 0 },   { 0x56, 0x01, 120, 1 },
};

/*
 * Ice Lake-SP: IA32_PERF_METRICS has only the four level-1 bytes
 * (METRICS-FACTS 2b), so bytes 4-7 (here garbage, 0xEE) are never read:
 * -metrics topdown gives level 1 from the four bytes and level 2 from ordinary
 * events, as Intel's TMA 5.2 derives it (configs/tables/tma/IceLakeX.json), and a
 * config line asking for a level-2 field is refused. Bytes as the Sapphire Rapids
 * test: frontend 1.788, bad speculation 0.612, retiring 2.400, backend 1.200 slots of
 * 6.00 per copy (sum 6.00). By hand: FE 1.788/6 - 0.12/6 = 0.278 -> 0.28; BE 1.2/6 +
 * 5 x 0.06/6 = 0.25; RET 2.4/6 = 0.40; BS max(1 - 0.278 - 0.25 - 0.40, 0) = 0.072 ->
 * 0.07; fetch latency (5 x 0.18 - 0.12)/6 = 0.13; bandwidth 0.278 - 0.13 = 0.148 ->
 * 0.15; mispredicts 0.3/0.4 x 0.072 = 0.054 -> 0.05; machine clears 0.018 -> 0.02;
 * memory bound (0.6 + 0.1)/(0.25 + (0.4 + 0.40 x 0.5) + 0.1) x 0.25 = 0.1842 -> 0.18;
 * core bound 0.25 - 0.1842 = 0.0658 -> 0.07; heavy operations: microcode sequencer
 * 3/4 x 0.4/6 = 0.05, plus retiring x (1.5 - 1.2)/2 = 0.40 x 0.15 = 0.06, = 0.11;
 * light operations 0.40 - 0.11 = 0.29.
 */
NB_TEST(results_topdown_level2_refused_on_ice_lake)
{
    struct rig x;
    machine_tweak = ice_lake_x_medium;
    REQUIRE(rig_up(&x, false, TOPDOWN_ICX_RATES, NB_ARRAY_SIZE(TOPDOWN_ICX_RATES)));
    REQUIRE(x.env.desc.perf_metrics);
    CHECK(!x.env.desc.perf_metrics_l2);
    hw.fixed3_centi = 600;
    hw.metrics = 0xEEEEEEEE334C1A66ull;
    x.o.metrics = "topdown";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\nTD_FRONTEND_BOUND: 0.28\nTD_FETCH_LATENCY: 0.13\n"
                 "TD_FETCH_BANDWIDTH: 0.15\nTD_BAD_SPECULATION: 0.07\nTD_BRANCH_MISPREDICTS: 0.05\n"
                 "TD_MACHINE_CLEARS: 0.02\nTD_RETIRING: 0.40\nTD_LIGHT_OPERATIONS: 0.29\n"
                 "TD_HEAVY_OPERATIONS: 0.11\nTD_BACKEND_BOUND: 0.25\n"
                 "TD_MEMORY_BOUND: 0.18\nTD_CORE_BOUND: 0.07\n");
    x.o.metrics = NULL;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n00.84 TOPDOWN.HEAVY_OPS\n00.80 TOPDOWN.RETIRING\n"),
                 "warning: cfg.txt line 2: top-down level 2 (00.84-00.87) needs the level-2 fields of "
                 "IA32_PERF_METRICS (bits 63:32, Golden Cove and later P-cores), which this CPU does not have "
                 "(event skipped)\nRDTSC: 2.00\nINST: 3.00\nTOPDOWN.RETIRING: 2.40\n");
    rig_down(&x);
}

static void zen4_topdown_medium(struct host_platform *h)
{
    zen4_medium(h);
    add_repo_file(h, "configs/topdown_amd_l2.txt");
}

/*
 * Per copy (METRICS-FACTS 2c names): 2 cycles (076), so 12 dispatch slots;
 * 1A0/01 3.00 and 0.30 cycles with all 6 slots empty (cmask 6); 1A0/1E
 * 2.40; 1A0/60 0.60; ops retired (0C1) 4.80, of them microcoded (1C2)
 * 1.20; ops dispatched 0AA/01+02+04 3.00+2.00+1.00; mispredicted branches
 * (0C3) 0.40 and resyncs (096) 0.10; ex_no_retire not complete (D6/02)
 * 2.00, of it loads (D6/A2) 1.50.
 */
static const struct rate ZEN4_TOPDOWN_RATES[] = {
    { 0x0C0, 0x00, 400, 0 }, { 0x076, 0x00, 200, 0 }, { 0x1A0, 0x01, 300, 0 }, { 0x1A0, 0x01, 30, 6 },
    { 0x1A0, 0x1E, 240, 0 }, { 0x1A0, 0x60, 60, 0 },  { 0x0C1, 0x00, 480, 0 }, { 0x1C2, 0x00, 120, 0 },
    { 0x0AA, 0x01, 300, 0 }, { 0x0AA, 0x02, 200, 0 }, { 0x0AA, 0x04, 100, 0 }, { 0x0C3, 0x00, 40, 0 },
    { 0x096, 0x00, 10, 0 },  { 0x0D6, 0x02, 200, 0 }, { 0x0D6, 0xA2, 150, 0 },
};

/*
 * -metrics topdown on Zen 4, level 1 and 2 (METRICS-FACTS 2c). By hand:
 * FE 3/12 = 0.25, fetch latency 6 x 0.30/12 = 0.15, bandwidth 0.10; bad
 * speculation (6 - 4.8)/12 = 0.10, mispredicts 0.10 x 0.4/(0.4 + 0.1) =
 * 0.08, pipeline restarts 0.02; retiring 4.8/12 = 0.40, microcode 0.40 x
 * 1.2/4.8 = 0.10, fastpath 0.30; backend 2.4/12 = 0.20, memory 0.20 x
 * 1.5/2 = 0.15, core 0.05; SMT contention 0.6/12 = 0.05.
 */
NB_TEST(results_metrics_topdown_level2_zen4)
{
    struct rig x;
    machine_tweak = zen4_topdown_medium;
    REQUIRE(rig_up(&x, true, ZEN4_TOPDOWN_RATES, NB_ARRAY_SIZE(ZEN4_TOPDOWN_RATES)));
    x.o.metrics = "topdown";
    CHECK_EQ_STR(measure(&x, "0C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 4.00\n"
                 "TD_FRONTEND_BOUND: 0.25\nTD_FETCH_LATENCY: 0.15\nTD_FETCH_BANDWIDTH: 0.10\n"
                 "TD_BAD_SPECULATION: 0.10\nTD_BRANCH_MISPREDICTS: 0.08\nTD_PIPELINE_RESTARTS: 0.02\n"
                 "TD_RETIRING: 0.40\nTD_RETIRING_MICROCODE: 0.10\nTD_RETIRING_FASTPATH: 0.30\n"
                 "TD_BACKEND_BOUND: 0.20\nTD_MEMORY_BOUND: 0.15\nTD_CORE_BOUND: 0.05\n"
                 "TD_SMT_CONTENTION: 0.05\n");
    rig_down(&x);
}

/* Alder Lake-N (family 6 model BEH, Gracemont only): cpu_map picks AlderLakeE. */
static void gracemont_medium(struct host_platform *h)
{
    host_cpuid_set(h, 1, 0, 0x000B06E0, 0, 0, 1u << 4);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_AlderLakeE_common.txt");
    add_repo_file(h, "configs/cfg_AlderLakeE_all.txt");
    add_repo_file(h, "configs/metrics/AlderLakeE.txt");
}

/*
 * Per copy: FE 2.50 (latency 1.50, bandwidth 1.00), bad speculation event 1.20
 * (mispredicts 1.00, machine clears 0.50), retiring 4.00, BE 2.00 (0.70 allocation
 * restrictions).
 */
static const struct rate GRACEMONT_TOPDOWN_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0x71, 0x00, 250, 0 }, { 0x73, 0x00, 120, 0 }, { 0x73, 0x04, 100, 0 },
    { 0x73, 0x03, 50, 0 },  { 0xC2, 0x00, 400, 0 }, { 0x74, 0x00, 200, 0 }, { 0x74, 0x01, 70, 0 },
    { 0x71, 0x72, 150, 0 }, { 0x71, 0x8D, 100, 0 },
};

/*
 * -metrics topdown on Gracemont as Intel's E-core TMA 4 (column GRT,
 * configs/tables/tma/AlderLakeE.json) defines it: SLOTS = 5 x 2.00 cycles = 10
 * per copy. By hand: FE 0.25, fetch latency (71/72) 0.15, bandwidth (71/8D) 0.10;
 * bad speculation the remainder (10 - (2.5 + 2.0 + 4.0))/10 = 0.15, not the 73/00
 * event (0.12); mispredicts (73/04) 0.10, machine clears (73/03) 0.05; retiring
 * 0.40; backend 0.20, core bound (74/01) 0.07, resource bound 0.20 - 0.07 = 0.13.
 */
NB_TEST(results_metrics_topdown_level2_gracemont)
{
    struct rig x;
    machine_tweak = gracemont_medium;
    REQUIRE(rig_up(&x, false, GRACEMONT_TOPDOWN_RATES, NB_ARRAY_SIZE(GRACEMONT_TOPDOWN_RATES)));
    hw.fixed_centi[0] = 300;
    hw.fixed_centi[1] = 200;
    x.o.metrics = "topdown";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\n"
                 "TD_FRONTEND_BOUND: 0.25\nTD_IFETCH_LATENCY: 0.15\nTD_IFETCH_BANDWIDTH: 0.10\n"
                 "TD_BAD_SPECULATION: 0.15\nTD_BRANCH_MISPREDICTS: 0.10\nTD_MACHINE_CLEARS: 0.05\n"
                 "TD_RETIRING: 0.40\nTD_BACKEND_BOUND: 0.20\nTD_CORE_BOUND: 0.07\nTD_RESOURCE_BOUND: 0.13\n");
    rig_down(&x);
}

/*
 * The same with -calibrate's latencies (hundredths of a core cycle): L1 4,
 * L2 14, L3 44, DRAM 204, TLB walk 44, so N1 = 10, N2 = 40, N3 = 200, N4 =
 * 44 - 14 = 30 (no TSC frequency here: N3 as calibrated). Per copy 1.5 L2
 * hits, 0.3 L3 hits, 0.2 L3 misses, 0.1 walks: bubbles = 15 + 12 + 40 + 3 =
 * 70; cache 27/70 = 0.39, DRAM 40/70 = 0.57, walks 3/70 = 0.04
 * (METRICS-FACTS.md 3b rows 14-16), and the plain words say so.
 */
NB_TEST(results_metrics_codemon_latency_model_words)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, CODEMON_RATES, NB_ARRAY_SIZE(CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.o.metrics = "codemon";
    struct machine_latencies l = { .measured = true, .core_cycles = true, .cycle_counter = "Core cycles",
                                   .latency = { 400, 1400, 4400, 20400, 4400 } };
    x.env.latencies = &l;
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 5.00\nPROG_CPUI: 2.50\nPROG_CPI: 2.00\nPROG_UCPUI: 1.00\nPROG_UCPI: 0.80\n"
                 "PROG_DELAY_RATIO: 0.60\nFLUSH_RATIO: 0.17\nL1D_FPU_RATIO: 0.17\nEXE_RATIO: 0.67\n"
                 "OTHER_BE_RATIO: 0.10\nFE_RATIO: 0.25\nPROG_ACCESS_DELAY_RATIO: 0.77\nCM_L2_MISS_RATIO: 0.25\n"
                 "CM_L3_MISS_RATIO: 0.40\nCACHE_DELAY_RATIO: 0.39\nMEM_DELAY_RATIO: 0.57\nTLB_DELAY_RATIO: 0.04\n"
                 "FP_SPEED: n/a (TSC frequency unknown)\nSYS_UTILIZE: n/a (peak_flop_per_cycle unknown for this CPU)\n"
                 "codemon: stalls are 60% of cycles; of them memory access 77%, execution 67%, the front end "
                 "25%, pipeline flushes 17% (parts overlap); the latency model puts 39% of the memory delay in "
                 "L2/L3 hits, 57% in DRAM and 4% in page walks: L3 misses dominate\n");
    rig_down(&x);
}

/*
 * -verbose says whose calibration N1..N4 came from: the entry the caller
 * handed over for the benchmark's processor (on a hybrid part the E-core's
 * for a benchmark on an E-core, pmu/core_kind.h), or that there was none;
 * a part that is not hybrid has one calibration for every processor.
 */
NB_TEST(results_metrics_verbose_names_the_calibrated_core_kind)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, CODEMON_RATES, NB_ARRAY_SIZE(CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.o.metrics = "codemon";
    x.o.verbose = true;
    struct machine_latencies l = { .measured = true, .core_cycles = true, .cycle_counter = "Core cycles",
                                   .latency = { 400, 1400, 4400, 20400, 4400 },
                                   .kind = { 0x20, 1 }, .cpu = 3 };
    x.env.latencies = &l;
    const char *out = measure(&x, "C0.00 INST\n");
    CHECK(strstr(out, "CACHE_DELAY_RATIO: 0.39\n") != NULL);
    CHECK(strstr(out, "\nverbose: metrics: N1..N4 from the calibration on processor 3, E-core (CPUID.1AH core "
                      "type 20H, native model 000001H)\n") != NULL);
    l.kind = (struct core_kind){ 0, 0 };
    l.cpu = 0;
    out = measure(&x, "C0.00 INST\n");
    CHECK(strstr(out, "\nverbose: metrics: N1..N4 from the calibration on processor 0 (not a hybrid part: one "
                      "calibration serves every processor)\n") != NULL);
    x.env.latencies = NULL;
    out = measure(&x, "C0.00 INST\n");
    CHECK(strstr(out, "CACHE_DELAY_RATIO: n/a (memory latencies N1..N4 not measured (add -calibrate))\n") != NULL);
    CHECK(strstr(out, "\nverbose: metrics: N1..N4: this processor's core kind was not calibrated\n") != NULL);
    /* Without -verbose: no such line. */
    x.o.verbose = false;
    out = measure(&x, "C0.00 INST\n");
    CHECK(strstr(out, "verbose: metrics") == NULL);
    rig_down(&x);
}

/* The Zen 4 medium plus the hand-written config its codemon group names. */
static void zen4_codemon_medium(struct host_platform *h)
{
    zen4_medium(h);
    add_repo_file(h, "configs/codemon_zen4.txt");
}

/*
 * Per copy on Zen 4 (METRICS-FACTS.md 3a Zen 4 column, 1c): 4 instructions, 10 cycles,
 * B = ex_no_retire.all 6, its parts, ops dispatched 12 and retired 6, L2 status of
 * data-cache reads, demand L1D fills by source, walks, 16 FLOPs (003 with the merge pair).
 */
static const struct rate ZEN4_CODEMON_RATES[] = {
    { 0x0C0, 0x00, 400, 0 }, { 0x076, 0x00, 1000, 0 }, { 0x0D6, 0x1B, 600, 0 }, { 0x0D6, 0x02, 300, 0 },
    { 0x0D6, 0x08, 60, 0 },  { 0x0D6, 0xA2, 240, 0 },  { 0x1A0, 0x01, 150, 0 }, { 0x0AA, 0x01, 300, 0 },
    { 0x0AA, 0x02, 800, 0 }, { 0x0AA, 0x04, 100, 0 },  { 0x0C1, 0x00, 600, 0 }, { 0x064, 0x08, 50, 0 },
    { 0x064, 0x10, 25, 0 },  { 0x064, 0x20, 25, 0 },   { 0x064, 0x40, 50, 0 },  { 0x064, 0x80, 50, 0 },
    { 0x043, 0x01, 150, 0 }, { 0x043, 0x02, 30, 0 },   { 0x043, 0x04, 10, 0 },  { 0x043, 0x08, 5, 0 },
    { 0x043, 0x10, 5, 0 },   { 0x045, 0x10, 3, 0 },    { 0x003, 0x1F, 1600, 0 },
};

/*
 * -metrics codemon on Zen 4 from the shipped files: C = 10, I = 4, no NOP
 * event (N = 0), B = 6. By hand: CPUI = CPI 10/4 = 2.50, UCPUI = UCPI
 * (10-6)/4 = 1.00, delay 6/10 = 0.60, flush = bad speculation x cycles / B
 * = (12-6)/(6 x 10) x 10 / 6 = 0.17, L1D n/a (no AMD event), exe 3/6 =
 * 0.50, other 0.6/6 = 0.10, FE (1A0/01 c6) 1.5/6 = 0.25, access (D6/A2)
 * 2.4/6 = 0.40, L2 misses 0.5/(0.5+0.25+0.25+0.5+0.5) = 0.25, L3 misses
 * (fills 2.0 - 1.5 L2 - 0.3 same CCX) / (2.0 - 1.5) = 0.40, SYS_UTILIZE
 * 16/10/32 = 0.05; the latency model needs -calibrate, FP_SPEED the TSC
 * frequency.
 */
NB_TEST(results_metrics_codemon_zen4)
{
    struct rig x;
    machine_tweak = zen4_codemon_medium;
    REQUIRE(rig_up(&x, true, ZEN4_CODEMON_RATES, NB_ARRAY_SIZE(ZEN4_CODEMON_RATES)));
    x.o.metrics = "codemon";
    CHECK_EQ_STR(measure(&x, "0C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 4.00\nPROG_CPUI: 2.50\nPROG_CPI: 2.50\nPROG_UCPUI: 1.00\nPROG_UCPI: 1.00\n"
                 "PROG_DELAY_RATIO: 0.60\nFLUSH_RATIO: 0.17\n"
                 "L1D_FPU_RATIO: n/a (no AMD event counts L1D-bound stall cycles (section 3a))\nEXE_RATIO: 0.50\n"
                 "OTHER_BE_RATIO: 0.10\nFE_RATIO: 0.25\nPROG_ACCESS_DELAY_RATIO: 0.40\nCM_L2_MISS_RATIO: 0.25\n"
                 "CM_L3_MISS_RATIO: 0.40\n"
                 "CACHE_DELAY_RATIO: n/a (memory latencies N1..N4 not measured (add -calibrate))\n"
                 "MEM_DELAY_RATIO: n/a\nTLB_DELAY_RATIO: n/a\n"
                 "FP_SPEED: n/a (TSC frequency unknown)\nSYS_UTILIZE: 0.05\n"
                 "codemon: stalls are 60% of cycles; of them execution 50%, memory access 40%, the front end "
                 "25%, pipeline flushes 17% (parts overlap)\n");
    rig_down(&x);
}

/*
 * Alder Lake-N (model BEH, Gracemont only, so cpu_map picks AlderLakeE): perfmon
 * v5, 6 general-purpose and 3 fixed counters of 48 bits (METRICS-FACTS.md 0),
 * and the medium for its metric file with the hand-written codemon_ecore.txt.
 */
static void gracemont_codemon_medium(struct host_platform *h)
{
    host_cpuid_set(h, 1, 0, 0x000B06E0, 0, 0, 1u << 4);
    host_cpuid_set(h, 0xA, 0, 0x07300605, 0, 0, 0x603);
    host_intel_pmcs(h, 6, 48, false);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_AlderLakeE_common.txt");
    add_repo_file(h, "configs/cfg_AlderLakeE_all.txt");
    add_repo_file(h, "configs/codemon_ecore.txt");
    add_repo_file(h, "configs/metrics/AlderLakeE.txt");
}

/*
 * Per copy on Gracemont (METRICS-FACTS.md 3a Gracemont column, 1b): B = C2/00 c1 inv
 * 6 cycles, the TOPDOWN_* events in slots (5 per cycle), MEM_BOUND_STALLS.LOAD,
 * LD_HEAD, MEM_SCHEDULER_BLOCK.ST_BUF, retired loads by level, LLC, walks.
 */
static const struct rate GRACEMONT_CODEMON_RATES[] = {
    { 0xC0, 0x00, 500, 0 }, { 0xC2, 0x00, 600, 0 }, { 0x73, 0x00, 500, 0 }, { 0x05, 0xF4, 60, 0 },  { 0x34, 0x07, 200, 0 },
    { 0x74, 0x01, 500, 0 }, { 0x04, 0x01, 30, 0 },  { 0x71, 0x00, 750, 0 }, { 0x05, 0xFF, 330, 0 }, { 0xD1, 0x08, 200, 0 },
    { 0xD1, 0x10, 50, 0 },  { 0xD1, 0x02, 150, 0 }, { 0xD1, 0x04, 30, 0 },  { 0xD1, 0x80, 20, 0 },  { 0x2E, 0x41, 20, 0 },
    { 0x2E, 0x4F, 50, 0 },  { 0x08, 0x0E, 10, 0 },
};

/*
 * -metrics codemon on Gracemont: C = 10 cycles (fixed 1), I = 5 (fixed 0), no
 * NOP event (N = 0), B = 6. By hand: CPUI = CPI 10/5 = 2.00, UCPUI = UCPI
 * (10-6)/5 = 0.80, delay 6/10 = 0.60, flush 5 slots / 5 / 6 = 0.17, L1D
 * (LD_HEAD.L1_BOUND_AT_RET) 0.6/6 = 0.10, exe (2 + 5/5)/6 = 0.50, other
 * (ST_BUF) 0.3/6 = 0.05, FE 7.5/5/6 = 0.25, access (3.3 + 0.3)/6 = 0.60, L2
 * misses 0.5/2 = 0.25, L3 (LLC) 0.2/0.5 = 0.40; the latency model needs
 * -calibrate; no FLOP event, so FP_SPEED and SYS_UTILIZE are n/a with that
 * reason (printed once).
 */
NB_TEST(results_metrics_codemon_gracemont)
{
    struct rig x;
    machine_tweak = gracemont_codemon_medium;
    REQUIRE(rig_up(&x, false, GRACEMONT_CODEMON_RATES, NB_ARRAY_SIZE(GRACEMONT_CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.o.metrics = "codemon";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 5.00\nPROG_CPUI: 2.00\nPROG_CPI: 2.00\nPROG_UCPUI: 0.80\nPROG_UCPI: 0.80\n"
                 "PROG_DELAY_RATIO: 0.60\nFLUSH_RATIO: 0.17\nL1D_FPU_RATIO: 0.10\nEXE_RATIO: 0.50\n"
                 "OTHER_BE_RATIO: 0.05\nFE_RATIO: 0.25\nPROG_ACCESS_DELAY_RATIO: 0.60\nCM_L2_MISS_RATIO: 0.25\n"
                 "CM_L3_MISS_RATIO: 0.40\n"
                 "CACHE_DELAY_RATIO: n/a (memory latencies N1..N4 not measured (add -calibrate))\n"
                 "MEM_DELAY_RATIO: n/a\nTLB_DELAY_RATIO: n/a\n"
                 "FP_SPEED: n/a (no FLOP-count event on the E-cores (section 1b))\nSYS_UTILIZE: n/a\n"
                 "codemon: stalls are 60% of cycles; of them memory access 60%, execution 50%, the front end "
                 "25%, pipeline flushes 17% (parts overlap)\n");
    rig_down(&x);
}

/*
 * The image calibrates by itself when a chosen group needs N1..N4 (codemon's
 * latency model, METRICS-FACTS.md 3c) and the PMU can count core cycles;
 * cpi and memory need no latencies, nor does a benchmark without -metrics.
 * A group the file lacks needs nothing (its error comes with the benchmark).
 */
NB_TEST(results_metrics_need_latencies_only_for_the_model)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    CHECK(!counters_metrics_need_latencies(&x.env, &x.o, &x.r));
    x.o.metrics = "cpi,memory";
    CHECK(!counters_metrics_need_latencies(&x.env, &x.o, &x.r));
    x.o.metrics = "cpi,codemon";
    CHECK(counters_metrics_need_latencies(&x.env, &x.o, &x.r));
    x.o.metrics = "nosuchgroup";
    CHECK(!counters_metrics_need_latencies(&x.env, &x.o, &x.r));
    CHECK_EQ_STR(host_text(&x.h), "");
    x.env.usable = false;
    x.o.metrics = "codemon";
    CHECK(!counters_metrics_need_latencies(&x.env, &x.o, &x.r));
    x.env.usable = true;
    rig_down(&x);
}

/* The fenced block after `marker` in the document `path`, without its first line (the command); "" if absent. */
static const char *doc_sample(const char *path, const char *marker)
{
    static char text[1 << 20], block[8192];
    block[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return block;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *at = strstr(text, marker);
    const char *open = at ? strstr(at, "```\n") : NULL;
    const char *first = open ? strchr(open + 4, '\n') : NULL;
    const char *close = first ? strstr(first + 1, "```\n") : NULL;
    if (close)
        snprintf(block, sizeof(block), "%.*s", (int)(close - first - 1), first + 1);
    return block;
}

/*
 * docs/metrics.md's Codemon-style report is this output: Skylake-X with the scripted
 * counts of results_metrics_codemon_skylake, the latencies of
 * results_metrics_codemon_latency_model_words and a 2 GHz TSC, so FP_SPEED
 * (no FP instructions: 0 FLOP/s) has a value; SYS_UTILIZE stays n/a because
 * Skylake-X's peak depends on the SKU (METRICS-FACTS.md 5).
 */
NB_TEST(results_metrics_codemon_doc_sample)
{
    struct rig x;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&x, false, CODEMON_RATES, NB_ARRAY_SIZE(CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.env.tsc_hz = 2000000000;
    x.o.metrics = "codemon";
    struct machine_latencies l = { .measured = true, .core_cycles = true, .cycle_counter = "Core cycles",
                                   .latency = { 400, 1400, 4400, 20400, 4400 } };
    x.env.latencies = &l;
    const char *out = measure(&x, "C0.00 INST\n");
    CHECK_EQ_STR(doc_sample("docs/metrics.md", "<!-- sample: results_metrics_codemon_doc_sample -->"), out);
    rig_down(&x);
}

/*
 * Haswell client (model 3CH): perfmon v3, 4 general-purpose and 3 fixed
 * counters of 48 bits, and the medium for its metric file.
 */
static void haswell_medium(struct host_platform *h)
{
    host_cpuid_set(h, 1, 0, 0x000306C3, 0, 0, 1u << 4);
    host_cpuid_set(h, 0xA, 0, 0x07300403, 0, 0, 0x603);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_Haswell_common.txt");
    add_repo_file(h, "configs/cfg_Haswell_all_core.txt");
    add_repo_file(h, "configs/metrics/Haswell.txt");
}

/*
 * -metrics flops on Haswell, a group of `na` metrics only (its event lists
 * have no FP_ARITH_INST_RETIRED, METRICS-FACTS.md 1a): no event is added,
 * the benchmark still runs and prints its own counts, and the reason is
 * printed once, with the first metric.
 */
NB_TEST(results_metrics_flops_haswell_all_na)
{
    struct rig x;
    machine_tweak = haswell_medium;
    REQUIRE(rig_up(&x, false, SIX_RATES, NB_ARRAY_SIZE(SIX_RATES)));
    hw.fixed_centi[0] = 300;
    x.o.metrics = "flops";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\n"
                 "FLOP: n/a (no FLOP-count event (FP_ARITH_INST_RETIRED, section 1a) in this core's event configs)\n"
                 "FLOP_PER_CYCLE: n/a\nFP_PEAK_UTILIZATION: n/a\n");
    rig_down(&x);
}

/*
 * Nehalem EP (model 1AH): perfmon v3, 4 general-purpose and 3 fixed counters
 * of 48 bits, and the medium for its metric file.
 */
static void nehalem_medium(struct host_platform *h)
{
    host_cpuid_set(h, 1, 0, 0x000106A5, 0, 0, 1u << 4);
    host_cpuid_set(h, 0xA, 0, 0x07300403, 0, 0, 0x603);
    add_repo_file(h, "configs/cpu_map.txt");
    add_repo_file(h, "configs/cfg_Nehalem_common.txt");
    add_repo_file(h, "configs/cfg_Nehalem_all_core.txt");
    add_repo_file(h, "configs/metrics/Nehalem.txt");
}

/* Per copy on Nehalem: LLC 0.2 misses of 0.8 references, 0.03 walks (08/02 there). */
static const struct rate NEHALEM_MEMORY_RATES[] = {
    { 0xC0, 0x00, 300, 0 }, { 0x2E, 0x41, 20, 0 }, { 0x2E, 0x4F, 80, 0 }, { 0x08, 0x02, 3, 0 },
};

/*
 * -metrics memory on Nehalem prints the names it prints on Skylake, in the
 * same order: LLC 0.2/0.8 = 0.25 and 1000 x 0.03/3 = 10.00 walks per 1000
 * instructions; the metrics whose events its lists lack (no
 * MEM_LOAD_UOPS_RETIRED.*, no L1D_PEND_MISS, METRICS-FACTS.md 1a) are n/a
 * with the events they lack.
 */
NB_TEST(results_metrics_memory_nehalem_na)
{
    struct rig x;
    machine_tweak = nehalem_medium;
    REQUIRE(rig_up(&x, false, NEHALEM_MEMORY_RATES, NB_ARRAY_SIZE(NEHALEM_MEMORY_RATES)));
    hw.fixed_centi[0] = 300;
    x.o.metrics = "memory";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 3.00\n"
                 "L1D_MISS_RATIO: n/a (no MEM_LOAD_UOPS_RETIRED.L1_MISS or MEM_UOPS_RETIRED.ALL_LOADS in this core's "
                 "event configs (section 1a))\n"
                 "L2_MISS_RATIO: n/a (no MEM_LOAD_UOPS_RETIRED.L2_MISS or MEM_LOAD_UOPS_RETIRED.L1_MISS in this core's "
                 "event configs (section 1a))\n"
                 "L3_MISS_RATIO: n/a (no MEM_LOAD_UOPS_RETIRED.DRAM_HIT or MEM_LOAD_UOPS_RETIRED.L2_MISS in this core's event configs (section 1a))\n"
                 "LLC_MISS_RATIO: 0.25\nDTLB_WALKS_PKI: 10.00\n"
                 "LOAD_MISS_LATENCY: n/a (no L1D_PEND_MISS.PENDING or MEM_LOAD_COMPLETED.L1_MISS_ANY in this core's "
                 "event configs (section 1a))\n");
    rig_down(&x);
}

/*
 * Per copy on Haswell: B = UOPS_RETIRED.STALL_CYCLES (C2/01 c1 inv) 6, recovery
 * 1, the CYCLE_ACTIVITY stand-ins (A3/06 memory 4, A3/0C L1D 3, A3/04 no execute
 * 5), IDQ 0-uop cycles 1.5, retired loads by source (D1H), LLC, walks.
 */
static const struct rate HASWELL_CODEMON_RATES[] = {
    { 0xC0, 0x00, 500, 0 }, { 0xC2, 0x01, 600, 0 }, { 0x0D, 0x03, 100, 0 }, { 0xA3, 0x06, 400, 0 }, { 0xA3, 0x0C, 300, 0 },
    { 0xA3, 0x04, 500, 0 }, { 0x9C, 0x01, 150, 0 }, { 0xD1, 0x10, 50, 0 },  { 0xD1, 0x08, 200, 0 }, { 0x2E, 0x41, 20, 0 },
    { 0x2E, 0x4F, 50, 0 },  { 0xD1, 0x02, 150, 0 }, { 0xD1, 0x04, 30, 0 },  { 0xD1, 0x20, 20, 0 },  { 0x08, 0x0E, 10, 0 },
};

/*
 * -metrics codemon on Haswell, from Skylake's mapping (METRICS-FACTS.md 3a)
 * with the stand-ins its file names as ours: C = 10, I = 5, B = 6. By hand:
 * CPI 2.00, UCPI (10-6)/5 = 0.80, delay 0.60, flush 1/6 = 0.17, L1D
 * (STALLS_LDM_PENDING 4 - STALLS_L1D_PENDING 3)/6 = 0.17, exe (3 + 5 - 4)/6 =
 * 0.67, FE 1.5/6 = 0.25, L2 misses 0.5/2 = 0.25, L3 0.2/0.5 = 0.40. No
 * INST_RETIRED.NOP (CPUI, UCPUI) and no EXE_ACTIVITY.BOUND_ON_STORES (other,
 * access): n/a with that reason, once; no FLOP count on Haswell.
 */
NB_TEST(results_metrics_codemon_haswell_stand_ins)
{
    struct rig x;
    machine_tweak = haswell_medium;
    REQUIRE(rig_up(&x, false, HASWELL_CODEMON_RATES, NB_ARRAY_SIZE(HASWELL_CODEMON_RATES)));
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    x.o.metrics = "codemon";
    CHECK_EQ_STR(measure(&x, "C0.00 INST\n"),
                 "RDTSC: 2.00\nINST: 5.00\n"
                 "PROG_CPUI: n/a (no INST_RETIRED.NOP in this core's event configs (sections 3a, 3b))\n"
                 "PROG_CPI: 2.00\nPROG_UCPUI: n/a\nPROG_UCPI: 0.80\nPROG_DELAY_RATIO: 0.60\nFLUSH_RATIO: 0.17\n"
                 "L1D_FPU_RATIO: 0.17\nEXE_RATIO: 0.67\n"
                 "OTHER_BE_RATIO: n/a (no EXE_ACTIVITY.BOUND_ON_STORES in this core's event configs (sections 3a, 3b))\n"
                 "FE_RATIO: 0.25\nPROG_ACCESS_DELAY_RATIO: n/a\nCM_L2_MISS_RATIO: 0.25\nCM_L3_MISS_RATIO: 0.40\n"
                 "CACHE_DELAY_RATIO: n/a (memory latencies N1..N4 not measured (add -calibrate))\n"
                 "MEM_DELAY_RATIO: n/a\nTLB_DELAY_RATIO: n/a\n"
                 "FP_SPEED: n/a (no FLOP-count event (FP_ARITH_INST_RETIRED, section 1a) in this core's event configs)\n"
                 "SYS_UTILIZE: n/a\n"
                 "codemon: stalls are 60% of cycles; of them execution 67%, the front end 25%, pipeline flushes "
                 "17% (parts overlap)\n");
    rig_down(&x);
}

/*
 * -calibrate's counter check (METRICS-FACTS.md 3c step 3) on the fake
 * machine. The cache report: L1d 32 KiB, L2 384 KiB, L3 2 MiB, so the
 * footprints are 16 KiB, 192 KiB, 1 MiB and 16 MiB (8 x L3), and the walk
 * has 8192 pages with a 16-byte node each (128 KiB, 24 bytes a page rounded
 * down). The fake hardware takes core cycles per load by footprint: L1 4,
 * L2 14, L3 44, DRAM 204, walk 44, so N1 = 10, N2 = 40, N3 = 200, N4 = 30.
 * The walk's window hooks a free entry of a fake PML4 (kernel/engine/tlb_window.h).
 */
static const struct area_cycles CALIBRATION_CYCLES[] = {
    { 16384, 400 }, { 196608, 1400 }, { 1048576, 4400 }, { 16777216, 20400 }, { 131072, 4400 },
};

struct calibration_rig {
    struct rig x;
    uint64_t *pml4;
    struct machine_latencies lat; /* what the calibration measured, given to the metrics */
};

static void calibration_caches(struct cpu_cache_info *ci)
{
    static const struct { const char *name; unsigned level; uint64_t size; } C[] = {
        { "L1d", 1, 32768 }, { "L2", 2, 393216 }, { "L3", 3, 2097152 },
    };
    memset(ci, 0, sizeof(*ci));
    for (size_t i = 0; i < NB_ARRAY_SIZE(C); i++) {
        struct cpu_cache *c = &ci->caches[ci->n_caches++];
        snprintf(c->name, sizeof(c->name), "%s", C[i].name);
        c->level = C[i].level;
        c->size = C[i].size;
        c->line = 64;
    }
}

/* Runs the calibration on the rig (paging and per-footprint cycles set up); returns what it printed. */
static const char *calibrate_on(struct calibration_rig *c)
{
    struct rig *x = &c->x;
    c->pml4 = aligned_alloc(4096, 4096);
    memset(c->pml4, 0, 4096);
    c->pml4[0] = 0x1003; /* the identity map; the window takes 255 */
    host_paging_enable(&x->h, 0x80010001ull, (uint64_t)(uintptr_t)c->pml4);
    host_control_regs_enable(&x->h, 0, 0);
    hw.bench = &x->bench;
    hw.area_cycles = CALIBRATION_CYCLES;
    hw.n_area_cycles = NB_ARRAY_SIZE(CALIBRATION_CYCLES);
    struct cpu_cache_info ci;
    calibration_caches(&ci);
    host_text_reset(&x->h);
    x->r.serial_seq = 0;
    bench_calibrate(&x->bench, &x->env, &ci, 1u << 20, &c->lat, &x->r);
    x->env.latencies = &c->lat;
    hw.area_cycles = NULL;
    hw.n_area_cycles = 0;
    CHECK_EQ_U64(c->pml4[255], 0); /* unhooked again */
    return host_text(&x->h);
}

static void calibration_down(struct calibration_rig *c)
{
    rig_down(&c->x);
    free(c->pml4);
}

/* Per load of the chase: MEM_LOAD_RETIRED.L1_HIT, L2_HIT, L3_HIT, L3_MISS, DTLB_LOAD_MISSES.WALK_COMPLETED. */
static const struct rate CHECK_PASS_RATES[] = {
    { 0xD1, 0x01, 100, 0 }, { 0xD1, 0x02, 99, 0 }, { 0xD1, 0x04, 97, 0 }, { 0xD1, 0x20, 100, 0 }, { 0x08, 0x0E, 100, 0 },
};

/*
 * Every level passes: each level's event counts in the same runs as its
 * cycles (scripted per event, so it is what the run printed), and each is
 * at least 90%; N1..N4 are all given.
 */
NB_TEST(calibrate_check_every_level_passes_on_skylake_x)
{
    struct calibration_rig c;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&c.x, false, CHECK_PASS_RATES, NB_ARRAY_SIZE(CHECK_PASS_RATES)));
    const char *out = calibrate_on(&c);
    CHECK_EQ_STR(out,
                 "calibration: L1 4.00 cycles, L2 14.00 cycles, L3 44.00 cycles, DRAM 204.00 cycles, TLB walk 44.00 "
                 "cycles (core cycles per dependent load: Core cycles)\n"
                 "calibration: footprints L1 16384 bytes, L2 196608 bytes, L3 1048576 bytes, DRAM 16777216 bytes, "
                 "TLB walk 8192 pages of 4 KiB on 131072 bytes\n"
                 "calibration: check L1 100% of loads hit L1, L2 99% of loads hit L2, L3 97% of loads hit L3, DRAM "
                 "100% of loads went to DRAM, TLB walk 100% of loads walked; a level under 90% is not trusted\n"
                 "calibration: N1 (L2 - L1) 10.00, N2 (L3 - L1) 40.00, N3 (DRAM - L1) 200.00, N4 (TLB walk - L2) "
                 "30.00 cycles\n");
    const struct machine_latencies *l = &c.lat;
    for (int i = 0; i < LAT_LEVELS; i++) {
        CHECK(l->checked[i]);
        CHECK(!l->distrusted[i]);
    }
    calibration_down(&c);
}

/* The L2 footprint mostly hits the L1 (a cache report that overstates the L2): 60% L2 hits. */
static const struct rate CHECK_L2_FAILS_RATES[] = {
    { 0xD1, 0x01, 100, 0 }, { 0xD1, 0x02, 60, 0 }, { 0xD1, 0x04, 97, 0 }, { 0xD1, 0x20, 100, 0 }, { 0x08, 0x0E, 100, 0 },
};

/*
 * One level fails: its latency stays in the printout, the check line marks
 * it, N1 (L2 - L1) and N4 (walk - L2) are n/a, and codemon's delay ratios
 * that need them say why (the CODEMON_RATES counts of
 * results_metrics_codemon_latency_model_words, where they were numbers).
 */
NB_TEST(calibrate_check_distrusts_an_l2_footprint_that_hit_the_l1)
{
    struct calibration_rig c;
    machine_tweak = skylake_x_medium;
    REQUIRE(rig_up(&c.x, false, CHECK_L2_FAILS_RATES, NB_ARRAY_SIZE(CHECK_L2_FAILS_RATES)));
    const char *out = calibrate_on(&c);
    CHECK_EQ_STR(out,
                 "calibration: L1 4.00 cycles, L2 14.00 cycles, L3 44.00 cycles, DRAM 204.00 cycles, TLB walk 44.00 "
                 "cycles (core cycles per dependent load: Core cycles)\n"
                 "calibration: footprints L1 16384 bytes, L2 196608 bytes, L3 1048576 bytes, DRAM 16777216 bytes, "
                 "TLB walk 8192 pages of 4 KiB on 131072 bytes\n"
                 "calibration: check L1 100% of loads hit L1, L2 60% of loads hit L2 (not trusted), L3 97% of loads "
                 "hit L3, DRAM 100% of loads went to DRAM, TLB walk 100% of loads walked; a level under 90% is not "
                 "trusted\n"
                 "calibration: N1 (L2 - L1) n/a, N2 (L3 - L1) 40.00, N3 (DRAM - L1) 200.00, N4 (TLB walk - L2) "
                 "n/a cycles\n");
    /* docs/latency.md's sample of the check is this output. */
    CHECK_EQ_STR(doc_sample("docs/latency.md", "<!-- sample: calibrate_check_distrusts_an_l2_footprint_that_hit_the_l1 -->"), out);
    const struct machine_latencies *l = &c.lat;
    CHECK(l->distrusted[LAT_L2]);
    CHECK_EQ_STR(l->distrust_why[LAT_L2], "calibration: L2 not trusted: 60% of its loads hit L2 (under 90%)");
    hw.rates = CODEMON_RATES;
    hw.n_rates = NB_ARRAY_SIZE(CODEMON_RATES);
    hw.bench = NULL;
    hw.fixed_centi[0] = 500;
    hw.fixed_centi[1] = 1000;
    hw.fixed_centi[2] = 800;
    c.x.o.metrics = "codemon";
    const char *report = measure(&c.x, "C0.00 INST\n");
    CHECK(strstr(report, "CM_L3_MISS_RATIO: 0.40\n"
                         "CACHE_DELAY_RATIO: n/a (calibration: L2 not trusted: 60% of its loads hit L2 (under 90%))\n"
                         "MEM_DELAY_RATIO: n/a\nTLB_DELAY_RATIO: n/a\n") != NULL);
    calibration_down(&c);
}

/* Zen 4, per load: demand L1D fills from the local L2 (043/01), the CCX's L3 (043/02), near DRAM (043/08); 4 KiB walks (045/10). */
static const struct rate CHECK_ZEN4_RATES[] = {
    { 0x043, 0x01, 98, 0 }, { 0x043, 0x02, 95, 0 }, { 0x043, 0x08, 100, 0 }, { 0x045, 0x10, 100, 0 },
};

/*
 * AMD (METRICS-FACTS.md 1c): the levels are checked with the demand fills
 * by source and the L2 DTLB misses of 4 KiB pages, named by the Zen 4
 * configs; there is no L1-hit event, so the L1 level is not checked (and
 * stays trusted). Core cycles are APERF.
 */
NB_TEST(calibrate_check_amd_fills_by_source)
{
    struct calibration_rig c;
    machine_tweak = zen4_medium;
    REQUIRE(rig_up(&c.x, true, CHECK_ZEN4_RATES, NB_ARRAY_SIZE(CHECK_ZEN4_RATES)));
    const char *out = calibrate_on(&c);
    CHECK_EQ_STR(out,
                 "calibration: L1 4.00 cycles, L2 14.00 cycles, L3 44.00 cycles, DRAM 204.00 cycles, TLB walk 44.00 "
                 "cycles (core cycles per dependent load: APERF)\n"
                 "calibration: footprints L1 16384 bytes, L2 196608 bytes, L3 1048576 bytes, DRAM 16777216 bytes, "
                 "TLB walk 8192 pages of 4 KiB on 131072 bytes\n"
                 "calibration: check L1 not checked (AMD has no L1-hit event), L2 98% of loads hit L2, L3 95% of "
                 "loads hit L3, DRAM 100% of loads went to DRAM, TLB walk 100% of loads walked; a level under 90% is "
                 "not trusted\n"
                 "calibration: N1 (L2 - L1) 10.00, N2 (L3 - L1) 40.00, N3 (DRAM - L1) 200.00, N4 (TLB walk - L2) "
                 "30.00 cycles\n");
    const struct machine_latencies *l = &c.lat;
    CHECK(!l->checked[LAT_L1]);
    CHECK(!l->distrusted[LAT_L1]);
    calibration_down(&c);
}

/*
 * A PMU that counts core cycles but no metric file on the medium (so no
 * configs to take the events from): the latencies are kept, the check says
 * why it was not done, and no level is distrusted.
 */
NB_TEST(calibrate_check_not_done_without_a_metric_file)
{
    struct calibration_rig c;
    REQUIRE(rig_up(&c.x, false, CHECK_L2_FAILS_RATES, NB_ARRAY_SIZE(CHECK_L2_FAILS_RATES)));
    const char *out = calibrate_on(&c);
    CHECK(strstr(out, "TLB walk 8192 pages of 4 KiB on 131072 bytes\n"
                      "calibration: check not done: no metric file for this CPU on the image\n"
                      "calibration: N1 (L2 - L1) 10.00, N2 (L3 - L1) 40.00, N3 (DRAM - L1) 200.00, N4 (TLB walk - L2) "
                      "30.00 cycles\n") != NULL);
    CHECK(!c.lat.distrusted[LAT_L2]);
    calibration_down(&c);
}
