/*
 * test_cycle_by_cycle.c — -cycle_by_cycle (kernel/modes/cycle_by_cycle.c,
 * pmu/pmu_freeze.c) on a fake Intel PMU that implements Freeze_PerfMon_On_PMI.
 *
 * The fake PMU is driven by a scripted per-cycle trace of one run of the
 * template (cycle_by_cycle.h), with the benchmark or empty: in each cycle
 * every enabled counter adds its event's count of that cycle (fixed counter
 * 0 the retired instructions, fixed counters 1 and 2 one cycle). A counter
 * that overflows sets its bit in IA32_PERF_GLOBAL_STATUS; with its PMI bit
 * set and IA32_DEBUGCTL.Freeze_PerfMon_On_PMI, the PMI request freezes every
 * counter at the end of that cycle: perfmon v4 sets CTR_FRZ (counting needs
 * it clear; a 1 written to bit 59 of IA32_PERF_GLOBAL_STATUS_RESET clears
 * it), v2/v3 clear IA32_PERF_GLOBAL_CTRL (SDM vol. 3B 18.4.7, 20.2.4).
 *
 * The benchmark: two dependent ADDs. Its own events, cycles 3 to 8 of the
 * run: UOPS_ISSUED 1,1,0,0,0,0; PORT_0 0,1,0,1,0,0; RETIRE_SLOTS 0,0,0,0,1,1.
 * The rest of the trace is the template's: the WRMSR that starts the
 * counters and the LFENCE before the benchmark (cycles 0-2, the LFENCE
 * retiring in cycle 5), the LFENCE, three MOVs and WRMSR after it.
 */
#include "cycle_by_cycle.h"
#include "host_platform.h"
#include "host_serial_line.h"
#include "nb_test.h"
#include "pmu_freeze.h"
#include "pmu_msrs.h"

#include <stdio.h>
#include <string.h>

#define MAXC 16

enum sig { RET, MITE, MS, ISSUED, PORT0, RSLOTS, N_SIG };

/* The event (bits 15:0 of PERFEVTSEL) each signal is counted by. */
static const uint16_t sig_code[N_SIG] = {
    [RET] = 0x00C0, [MITE] = 0x0479, [MS] = 0x3079, [ISSUED] = 0x010E, [PORT0] = 0x01A1, [RSLOTS] = 0x02C2,
};

struct trace {
    int cycles;
    int64_t n[N_SIG][MAXC];
};

/* The empty template: 12 cycles. */
static const struct trace EMPTY = {
    12,
    {
        [RET] = { [5] = 1, [8] = 1, [9] = 3 },
        [MITE] = { [1] = 3, [2] = 2 },
        [MS] = { [1] = 2, [6] = 2 },
        [ISSUED] = { [1] = 2, [6] = 2, [7] = 3 },
        [PORT0] = { [7] = 1 },
        [RSLOTS] = { [5] = 2, [8] = 2, [9] = 3 },
    },
};

/* With the benchmark: 14 cycles; ADD 1 and 2 issue in cycles 3 and 4, run on port 0 in 4 and 6, retire in 7 and 8. */
static const struct trace BENCH = {
    14,
    {
        [RET] = { [5] = 1, [7] = 1, [8] = 1, [10] = 1, [11] = 3 },
        [MITE] = { [1] = 3, [2] = 2, [3] = 1 },
        [MS] = { [1] = 2, [9] = 2 },
        [ISSUED] = { [1] = 2, [3] = 1, [4] = 1, [9] = 2, [10] = 3 },
        [PORT0] = { [4] = 1, [6] = 1, [10] = 1 },
        [RSLOTS] = { [5] = 2, [7] = 1, [8] = 1, [10] = 2, [11] = 3 },
    },
};

static struct fake {
    struct host_platform *h;
    struct pmu_desc d;
    int runs;
    int fail_after; /* the run after this many fails (-1: none) */
} fk;

/* The local APIC's performance-counter LVT entry (unmasked, NMI delivery, as Linux's perf leaves it). */
static uint32_t lvt_pc = 0x400;
static int lvt_unmasked_runs; /* runs with the entry unmasked */

#define WIDTH 48
#define MASK ((1ull << WIDTH) - 1)

static uint64_t rd(uint32_t msr) { return host_msr_get(fk.h, msr); }

/* IA32_PERF_GLOBAL_STATUS_RESET (v4) / OVF_CTRL: a 1 clears that status bit. */
static void on_write(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET)
        host_msr_set(h, MSR_IA32_PERF_GLOBAL_STATUS, host_msr_get(h, MSR_IA32_PERF_GLOBAL_STATUS) & ~value);
}

static int64_t signal_of(const struct trace *t, uint64_t evtsel, int cycle)
{
    for (int s = 0; s < N_SIG; s++) {
        if ((evtsel & 0xFFFF) == sig_code[s])
            return t->n[s][cycle];
    }
    return 0;
}

/* One run of the template on the fake PMU. */
static bool fake_run(void *ctx, bool empty)
{
    (void)ctx;
    struct host_platform *h = fk.h;
    const struct trace *t = empty ? &EMPTY : &BENCH;
    bool v4 = fk.d.version >= 4;
    fk.runs++;
    if (fk.h->p.lapic_read && !(lvt_pc & LAPIC_LVT_MASKED))
        lvt_unmasked_runs++;
    /* The template's first WRMSR. */
    host_msr_set(h, MSR_IA32_PERF_GLOBAL_CTRL, pmu_freeze_global_enable(&fk.d));
    for (int c = 0; c < t->cycles; c++) {
        uint64_t global = rd(MSR_IA32_PERF_GLOBAL_CTRL), status = rd(MSR_IA32_PERF_GLOBAL_STATUS);
        if (v4 && (status & GLOBAL_STATUS_CTR_FRZ))
            break;
        bool pmi = false;
        for (unsigned i = 0; i < 4; i++) {
            uint64_t sel = rd(MSR_IA32_PERFEVTSEL0 + i);
            if (!(global & (1ull << i)) || !(sel & PERFEVTSEL_EN))
                continue;
            uint64_t before = rd(MSR_IA32_PMC0 + i), after = (before + (uint64_t)signal_of(t, sel, c)) & MASK;
            host_msr_set(h, MSR_IA32_PMC0 + i, after);
            if (after < before) {
                status |= 1ull << i;
                pmi |= (sel & PERFEVTSEL_INT) != 0;
            }
        }
        uint64_t fctl = rd(MSR_IA32_FIXED_CTR_CTRL);
        for (unsigned i = 0; i < 3; i++) {
            uint64_t field = (fctl >> (4 * i)) & 0xF;
            if (!(global & (1ull << (32 + i))) || !(field & (FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR)))
                continue;
            uint64_t add = i == 0 ? (uint64_t)t->n[RET][c] : 1;
            uint64_t before = rd(MSR_IA32_FIXED_CTR0 + i), after = (before + add) & MASK;
            host_msr_set(h, MSR_IA32_FIXED_CTR0 + i, after);
            if (after < before) {
                status |= 1ull << (32 + i);
                pmi |= (field & FIXED_CTR_CTRL_PMI) != 0;
            }
        }
        if (pmi && (rd(MSR_IA32_DEBUGCTL) & DEBUGCTL_FREEZE_PERFMON_ON_PMI)) {
            if (v4)
                status |= GLOBAL_STATUS_CTR_FRZ;
            else
                host_msr_set(h, MSR_IA32_PERF_GLOBAL_CTRL, 0);
        }
        host_msr_set(h, MSR_IA32_PERF_GLOBAL_STATUS, status);
    }
    /* The template's last WRMSR. */
    host_msr_set(h, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    return fk.fail_after < 0 || fk.runs <= fk.fail_after;
}

static void fake_init(struct host_platform *h, unsigned version, unsigned n_gp)
{
    host_platform_init(h);
    h->on_msr_write = on_write;
    host_intel_pmcs(h, n_gp, WIDTH, true);
    for (unsigned i = 0; i < 3; i++)
        host_msr_counter(h, MSR_IA32_FIXED_CTR0 + i, WIDTH);
    fk = (struct fake){ .h = h, .fail_after = -1 };
    fk.d = (struct pmu_desc){ .vendor = VENDOR_INTEL, .version = version, .n_gp = n_gp, .gp_width = WIDTH,
                              .n_fixed = 3, .fixed_width = WIDTH, .full_width_writes = true };
}

#define EVT(ev, umask) ((uint64_t)(ev) | (uint64_t)(umask) << 8 | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN)

static const struct cbc_event EVENTS[] = {
    { "UOPS_ISSUED.ANY", EVT(0x0E, 0x01) },
    { "UOPS_DISPATCHED_PORT.PORT_0", EVT(0xA1, 0x01) },
    { "UOPS_RETIRED.RETIRE_SLOTS", EVT(0xC2, 0x02) },
};

static char csv[4096];

static int run_cbc(bool end_to_end, char *err, size_t cap)
{
    struct cbc_config c = { .events = EVENTS, .n_events = 3, .end_to_end = end_to_end,
                            .n_measurements = 3, .warm_up_count = 1, .agg = AGG_MEDIAN,
                            .template_tail = 4 /* the trace's LFENCE and three MOVs after the benchmark */ };
    struct cbc_result r;
    int status = cbc_measure(&fk.h->p, &fk.d, &c, fake_run, NULL, &r, err, cap);
    csv[0] = '\0';
    if (status == NB_OK) {
        cbc_csv(&r, csv, sizeof(csv));
        cbc_free(&fk.h->p, &r);
    }
    return status;
}

/* Without -end_to_end: the benchmark's own cycles, exactly its trace. */
static const char *BENCH_CSV = "cycle,UOPS_ISSUED.ANY,UOPS_DISPATCHED_PORT.PORT_0,UOPS_RETIRED.RETIRE_SLOTS\n"
                               "1,1,0,0\n"
                               "2,1,1,0\n"
                               "3,0,0,0\n"
                               "4,0,1,0\n"
                               "5,0,0,1\n"
                               "6,0,0,1\n";

/* The trace as a CSV, cycles from..to-1 numbered from 1. */
static void trace_csv(const struct trace *t, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "cycle,UOPS_ISSUED.ANY,UOPS_DISPATCHED_PORT.PORT_0,UOPS_RETIRED.RETIRE_SLOTS\n");
    for (int c = 0; c < t->cycles; c++)
        n += (size_t)snprintf(out + n, cap - n, "%d,%lld,%lld,%lld\n", c + 1, (long long)t->n[ISSUED][c],
                              (long long)t->n[PORT0][c], (long long)t->n[RSLOTS][c]);
}

/* The local APIC's performance-counter LVT entry: masked while the code runs, as found afterwards. */
static int fake_lapic_read(void *ctx, uint32_t reg, uint32_t *v)
{
    (void)ctx;
    *v = reg == LAPIC_LVT_PERF_COUNTER ? lvt_pc : 0;
    return NB_OK;
}
static int fake_lapic_write(void *ctx, uint32_t reg, uint32_t v)
{
    (void)ctx;
    if (reg == LAPIC_LVT_PERF_COUNTER)
        lvt_pc = v;
    return NB_OK;
}

NB_TEST(cycle_by_cycle_v4_equals_the_trace)
{
    struct host_platform h;
    fake_init(&h, 4, 4);
    h.p.lapic_read = fake_lapic_read;
    h.p.lapic_write = fake_lapic_write;
    host_msr_set(&h, MSR_IA32_DEBUGCTL, 0x1); /* LBR on: kept */
    char err[256] = "";
    CHECK_EQ_INT(run_cbc(false, err, sizeof(err)), NB_OK);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_STR(csv, BENCH_CSV);
    /* The results page's fixture shows this very table (docs/results.md). */
    FILE *f = fopen("tests/results/fixtures/synthetic/run-0001-add_chain-cycles.csv", "r");
    char fixture[512] = "";
    if (CHECK(f != NULL)) {
        fixture[fread(fixture, 1, sizeof(fixture) - 1, f)] = '\0';
        fclose(f);
    }
    CHECK_EQ_STR(fixture, BENCH_CSV);
    /* As found afterwards: IA32_DEBUGCTL, the counters off, no freeze or overflow left. */
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_DEBUGCTL), 0x1);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ_INT(lvt_unmasked_runs, 0);
    CHECK_EQ_U64(lvt_pc, 0x400);
    host_platform_free(&h);
}

NB_TEST(cycle_by_cycle_end_to_end_equals_the_trace)
{
    struct host_platform h;
    fake_init(&h, 4, 8);
    char err[256] = "", want[4096];
    CHECK_EQ_INT(run_cbc(true, err, sizeof(err)), NB_OK);
    trace_csv(&BENCH, want, sizeof(want));
    CHECK_EQ_STR(csv, want);
    host_platform_free(&h);
}

/* Perfmon v2/v3: the freeze clears IA32_PERF_GLOBAL_CTRL instead; the same numbers. */
NB_TEST(cycle_by_cycle_v2_freeze_clears_global_ctrl)
{
    struct host_platform h;
    fake_init(&h, 2, 4);
    char err[256] = "", want[4096];
    CHECK_EQ_INT(run_cbc(false, err, sizeof(err)), NB_OK);
    CHECK_EQ_STR(csv, BENCH_CSV);
    CHECK_EQ_INT(run_cbc(true, err, sizeof(err)), NB_OK);
    trace_csv(&BENCH, want, sizeof(want));
    CHECK_EQ_STR(csv, want);
    host_platform_free(&h);
}

/* Without the freeze bit the counters would run on: the fake PMU must not freeze then (the model is checked). */
NB_TEST(cycle_by_cycle_fake_pmu_needs_the_freeze_bit)
{
    struct host_platform h;
    fake_init(&h, 4, 4);
    struct pmu_freeze_state s;
    REQUIRE(pmu_freeze_begin(&h.p, &fk.d, &s) == NB_OK);
    host_msr_set(&h, MSR_IA32_DEBUGCTL, 0); /* as if bit 12 did not stick */
    pmu_freeze_arm(&h.p, &fk.d, &s, PMU_FREEZE_PMI_FIXED(1), 2);
    CHECK(fake_run(NULL, false));
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR0), 7); /* every instruction of the run */
    host_msr_set(&h, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
    pmu_freeze_arm(&h.p, &fk.d, &s, PMU_FREEZE_PMI_FIXED(1), 5);
    CHECK(fake_run(NULL, false));
    /* frozen at the end of cycle 5: the template's LFENCE has retired, nothing else */
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR0), 1);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_STATUS_CTR_FRZ | (1ull << 33));
    pmu_freeze_end(&h.p, &s);
    host_platform_free(&h);
}

/*
 * One cycle's MSR writes, against the SDM's layouts: counters off; each
 * selection rewritten without INT and its counter cleared; fixed counters
 * 0-2 in ring 0 (bit 0 of each 4-bit field: bits 0, 4, 8) with the PMI bit
 * (bit 3 of its field: bit 7) of fixed counter 1: 0x191; the three fixed counters cleared; the status bits found
 * written back to IA32_PERF_GLOBAL_STATUS_RESET (390H); fixed counter 1 =
 * 2^48 - 1 - 7, overflowing on the 8th cycle.
 */
NB_TEST(cycle_by_cycle_msr_writes_of_one_cycle)
{
    struct host_platform h;
    fake_init(&h, 4, 4);
    struct pmu_freeze_state s;
    REQUIRE(pmu_freeze_begin(&h.p, &fk.d, &s) == NB_OK);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_DEBUGCTL), 1ull << 12);
    uint64_t sel[4] = { EVT(0x0E, 0x01), EVT(0xA1, 0x01) | PERFEVTSEL_INT, 0, 0 };
    pmu_freeze_select(&h.p, &s, sel, 2);
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_STATUS, GLOBAL_STATUS_CTR_FRZ | 0x2);
    h.n_writes = 0;
    pmu_freeze_arm(&h.p, &fk.d, &s, PMU_FREEZE_PMI_FIXED(1), 7);
    const struct host_msr_write want[] = {
        { 0x38F, 0 },
        { 0x186, 0x0001010E | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN }, { 0xC1, 0 },
        { 0x187, 0x000101A1 | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN }, { 0xC2, 0 },
        { 0x188, 0 }, { 0xC3, 0 },
        { 0x189, 0 }, { 0xC4, 0 },
        { 0x38D, 0x191 },
        { 0x309, 0 }, { 0x30A, 0 }, { 0x30B, 0 },
        { 0x390, GLOBAL_STATUS_CTR_FRZ | 0x2 },
        { 0x30A, (1ull << 48) - 1 - 7 },
    };
    CHECK_EQ_INT(h.n_writes, NB_ARRAY_SIZE(want));
    for (size_t i = 0; i < NB_ARRAY_SIZE(want) && i < h.n_writes; i++) {
        if (!CHECK_EQ_U64(h.writes[i].msr, want[i].msr) || !CHECK_EQ_U64(h.writes[i].value, want[i].value))
            nb_test_note("write %zu", i);
    }
    pmu_freeze_end(&h.p, &s);
    host_platform_free(&h);
}

NB_TEST(cycle_by_cycle_clear_errors_elsewhere)
{
    char buf[256];
    struct pmu_desc amd = { .vendor = VENDOR_AMD, .n_gp = 6, .gp_width = 48 };
    CHECK_EQ_STR(pmu_freeze_unsupported(&amd, NULL, buf, sizeof(buf)),
                 "cycle-by-cycle measurements need Intel's freeze of the counters on a PMI "
                 "(IA32_DEBUGCTL.Freeze_PerfMon_On_PMI); this is not an Intel processor");
    struct pmu_desc v1 = { .vendor = VENDOR_INTEL, .version = 1, .n_gp = 4, .n_fixed = 0 };
    CHECK_EQ_STR(pmu_freeze_unsupported(&v1, NULL, buf, sizeof(buf)),
                 "cycle-by-cycle measurements need architectural performance monitoring version 2 or later "
                 "(IA32_PERF_GLOBAL_CTRL); this processor has version 1");
    struct pmu_desc two = { .vendor = VENDOR_INTEL, .version = 3, .n_gp = 2, .n_fixed = 3 };
    CHECK_EQ_STR(pmu_freeze_unsupported(&two, NULL, buf, sizeof(buf)),
                 "cycle-by-cycle measurements need 4 general-purpose counters (PMC0-3); this processor has 2");
    struct pmu_desc ok = { .vendor = VENDOR_INTEL, .version = 4, .n_gp = 4, .n_fixed = 3 };
    CHECK(pmu_freeze_unsupported(&ok, NULL, buf, sizeof(buf)) == NULL);
    CHECK_EQ_STR(pmu_freeze_unsupported(&ok, "CPUID.0AH reports version 0", buf, sizeof(buf)),
                 "cycle-by-cycle measurements need performance counters: CPUID.0AH reports version 0");
    /* and the engine stops before touching an MSR */
    struct host_platform h;
    fake_init(&h, 4, 3);
    char err[256] = "";
    CHECK_EQ_INT(run_cbc(false, err, sizeof(err)), NB_EUNSUPP);
    CHECK_EQ_STR(err, "cycle-by-cycle measurements need 4 general-purpose counters (PMC0-3); this processor has 3");
    CHECK_EQ_INT(h.n_writes, 0);
    CHECK_EQ_INT(fk.runs, 0);
    host_platform_free(&h);
}

/* A run that fails (a fault in the code) stops everything: no more runs, the counters left as found. */
NB_TEST(cycle_by_cycle_failed_run_stops)
{
    struct host_platform h;
    fake_init(&h, 4, 4);
    fk.fail_after = 20;
    char err[256] = "";
    CHECK_EQ_INT(run_cbc(false, err, sizeof(err)), NB_EFAULT);
    CHECK_EQ_STR(err, "-cycle_by_cycle: a run of the code failed");
    CHECK_EQ_INT(fk.runs, 21);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_DEBUGCTL), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0);
    host_platform_free(&h);
}

/*
 * Serve mode: a cycle-by-cycle request answered through nb_serve's loop on a
 * scripted serial line, the engine measuring on the fake PMU above. The
 * reply carries the table as a block (serve_table.h): the reading before
 * cycle 1, then the counts of BENCH_CSV's cycles; the results folder still
 * gets run-0001-k-cycles.csv.
 */
#include "bench_cycles.h"
#include "nb_serve.h"
#include "serve_frame.h"
#include "serve_table.h"

static struct {
    const struct nb_platform *p;
    struct report *r;
} sline;

/* The image's run of one suite line, with the engine's part on the fake PMU. */
static void served_run_text(void *arg, const char *text, size_t len)
{
    (void)arg;
    CHECK(len == 19 && memcmp(text, "k: -cycle_by_cycle\n", 19) == 0);
    report_begin(sline.r, "k");
    struct cbc_config c = { .events = EVENTS, .n_events = 3, .n_measurements = 3, .warm_up_count = 1,
                            .agg = AGG_MEDIAN, .template_tail = 4 };
    struct cbc_result res;
    char err[256] = "";
    if (CHECK_EQ_INT(cbc_measure(&fk.h->p, &fk.d, &c, fake_run, NULL, &res, err, sizeof(err)), NB_OK)) {
        bench_cycles_report(sline.p, sline.r, "k", &res);
        cbc_free(&fk.h->p, &res);
    }
    report_end(sline.r);
}

static size_t no_fingerprint(void *arg, char *out, size_t cap)
{
    (void)arg;
    (void)out;
    (void)cap;
    return 0;
}

NB_TEST(cycle_by_cycle_served_table)
{
    struct host_platform h;
    fake_init(&h, 4, 4);
    host_line_install(&h);
    static struct nb_platform served;
    nb_serve_platform(&served, &h.p);
    memset(&sline, 0, sizeof(sline));
    sline.p = &served;
    uint8_t f[256];
    static const char suite[] = "\x00k: -cycle_by_cycle\n"; /* no files, then the suite line */
    size_t n = serve_frame_encode(f, sizeof(f), SERVE_BENCH, 7, suite, sizeof(suite) - 1);
    host_line_add(f, n);
    n = serve_frame_encode(f, sizeof(f), SERVE_END, 8, NULL, 0);
    host_line_add(f, n);

    struct report r;
    report_init(&r, &served);
    host_fs_add_dir(&h, "nanobench/results");
    report_open_files(&r);
    REQUIRE(r.files_ok);
    sline.r = &r;
    const struct nb_serve_ops ops = { NULL, served_run_text, no_fingerprint };
    enum nb_finish_action finish = NB_FINISH_SHUTDOWN;
    bool finish_set = false;
    CHECK(nb_serve(&served, &r, &ops, &finish, &finish_set));
    report_close(&r);

    /* S, A, then the R with the table. */
    struct serve_frame fr;
    size_t pos = 0, consumed;
    for (int i = 0; i < 2; i++) {
        REQUIRE(serve_frame_scan(host_line.out + pos, host_line.out_len - pos, 1 << 20, &fr, &consumed) == SERVE_SCAN_FRAME);
        pos += consumed;
    }
    CHECK_EQ_INT(fr.type, SERVE_ACK);
    REQUIRE(serve_frame_scan(host_line.out + pos, host_line.out_len - pos, 1 << 20, &fr, &consumed) == SERVE_SCAN_FRAME);
    CHECK_EQ_INT(fr.type, SERVE_RESULT);
    CHECK_EQ_INT(fr.seq, 7);
    static const uint8_t want[] = {
        0x00, 'C', 1, 'k', 3,
        15, 'U', 'O', 'P', 'S', '_', 'I', 'S', 'S', 'U', 'E', 'D', '.', 'A', 'N', 'Y',
        27, 'U', 'O', 'P', 'S', '_', 'D', 'I', 'S', 'P', 'A', 'T', 'C', 'H', 'E', 'D', '_', 'P', 'O', 'R', 'T',
        '.', 'P', 'O', 'R', 'T', '_', '0',
        25, 'U', 'O', 'P', 'S', '_', 'R', 'E', 'T', 'I', 'R', 'E', 'D', '.', 'R', 'E', 'T', 'I', 'R', 'E', '_',
        'S', 'L', 'O', 'T', 'S',
        7,        /* the reading before cycle 1, then BENCH_CSV's six cycles, zigzag (count x 2) */
        0, 0, 0,
        2, 0, 0,
        2, 2, 0,
        0, 0, 0,
        0, 2, 0,
        0, 0, 2,
        0, 0, 2,
    };
    CHECK_EQ_INT(fr.len, sizeof(want));
    CHECK_EQ_BYTES(fr.payload, want, fr.len < sizeof(want) ? fr.len : sizeof(want));
    /* 3 bytes a cycle: one per event. */
    struct serve_table_view v;
    int64_t rows[64];
    char err[160];
    CHECK_EQ_INT(serve_table_decode(fr.payload, fr.len, &v, rows, 64, err, sizeof(err)), sizeof(want));
    CHECK_EQ_INT(v.n_rows, 7);
    CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001-k-cycles.csv"), BENCH_CSV);
    host_platform_free(&h);
}

/*
 * The template's runs under the session's watchdog, through the engine
 * (bench_cycles_measure, bench_run.c bench_cycles_run_once): the template
 * cannot run on the host, so bench_context.fake_cycles stands in for each
 * run, on the processor and inside the procedure that would run the code,
 * and plays the fake PMU's trace (fake_run above). The local APIC is a
 * register file per processor (xAPIC version 0x14, five LVT entries: no
 * CMCI), its writes logged. As for a measurement's stages (watchdog.h,
 * lapic_quiet.h): around every run the APIC-timer watchdog is armed (the
 * other LVT entries masked, TPR 0xE0, the timer one-shot on vector 0xF0,
 * divide by 128, its count the budget left) and everything is put back
 * after it.
 */
#include "bench_run.h"
#include "cpu_platform.h"
#include "host_mp.h"
#include "lapic_regs.h"
#include "nb_paths.h"
#include "watchdog.h"

#define G_CPUS 2
#define G_TSC_HZ 1000000000ull /* 1 GHz; the watchdog's timer runs at 100 MHz */
#define G_TSC_PER_RUN 1000ull

static uint32_t g_apic[G_CPUS][0x400 / 4];
static struct { uint32_t reg, value; } g_log[4096];
static size_t g_n_log;
static struct {
    int runs, unwatched, elsewhere, hang_at; /* hang_at: the run (1..) that never ends (0: none) */
    unsigned cpu;                            /* where the runs must run */
    uint64_t count[128];                     /* the watchdog count each run found in its data page */
    uint32_t during[0x400 / 4];              /* the first run's local APIC */
    size_t log_at_first;                     /* g_n_log when the first run started */
    uint64_t tsc_per_run;
} g;

static int g_apic_read(void *ctx, uint32_t reg, uint32_t *value)
{
    (void)ctx;
    *value = g_apic[host_mp.current][reg / 4];
    return NB_OK;
}

static int g_apic_write(void *ctx, uint32_t reg, uint32_t value)
{
    (void)ctx;
    if (g_n_log < NB_ARRAY_SIZE(g_log) && host_mp.current == g.cpu) {
        g_log[g_n_log].reg = reg;
        g_log[g_n_log++].value = value;
    }
    if (reg != LAPIC_EOI)
        g_apic[host_mp.current][reg / 4] = value;
    return NB_OK;
}

static uint64_t g_apic_base(void *ctx)
{
    (void)ctx;
    return 0xFEE00000u;
}

/* The firmware's local APIC: a periodic timer that is counting, NMI on LINT1 and the counters' entry. */
static void g_firmware(uint32_t *a)
{
    memset(a, 0, sizeof(g_apic[0]));
    a[LAPIC_VERSION / 4] = 0x00050014;
    a[LAPIC_TPR / 4] = 0x10;
    a[LAPIC_SVR / 4] = 0x1FF;
    a[LAPIC_LVT_TIMER / 4] = LVT_TIMER_PERIODIC | 0xEC;
    a[LAPIC_TIMER_INITIAL / 4] = 50000;
    a[LAPIC_TIMER_CURRENT / 4] = 1234;
    a[LAPIC_TIMER_DIVIDE / 4] = 0xB;
    a[LAPIC_LVT_THERMAL / 4] = 0xFA;
    a[LAPIC_LVT_PERFMON / 4] = 0x400;
    a[LAPIC_LVT_LINT0 / 4] = 0x700;
    a[LAPIC_LVT_LINT1 / 4] = 0x400;
    a[LAPIC_LVT_ERROR / 4] = 0xFE;
}

/* Would the watchdog's interrupt reach the code here (SDM vol. 3A 11.5.4, 11.8.3.1)? */
static bool g_watchdog_can_fire(void)
{
    const uint32_t *a = g_apic[host_mp.current];
    return a[LAPIC_LVT_TIMER / 4] == (LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR) && (a[LAPIC_TPR / 4] >> 4) < 0xF;
}

static void g_stand_in(void *arg, struct codegen_data *data, bool empty)
{
    (void)arg;
    int run = g.runs++;
    if (run == 0) {
        memcpy(g.during, g_apic[host_mp.current], sizeof(g.during));
        g.log_at_first = g_n_log;
    }
    if (run < (int)NB_ARRAY_SIZE(g.count))
        g.count[run] = data->watchdog_count;
    g.unwatched += !g_watchdog_can_fire();
    g.elsewhere += host_mp.current != g.cpu;
    fk.h->tsc += g.tsc_per_run;
    if (g.hang_at == run + 1) {
        /* `jmp $`: only the watchdog ends it, as the code's gate 0xF0 would. */
        if (g_watchdog_can_fire()) {
            data->fault_happened = 1;
            data->fault_vector = WATCHDOG_VECTOR;
        }
        return;
    }
    fake_run(NULL, empty);
}

struct g_rig {
    struct host_platform h;
    struct cpu_platform cp;
    struct bench_context bench;
    struct watchdog watchdog;
    struct bench_options o;
    struct bench_code code;
    struct report r;
    const struct bench_cycles_cpu *on; /* -cpu N's one call (NULL: each run a call of its own) */
};

static const uint8_t G_NOP = 0x90;

static bool g_up(struct g_rig *x, unsigned cpu)
{
    memset(x, 0, sizeof(*x));
    fake_init(&x->h, 4, 4);
    x->h.p.lapic_read = g_apic_read;
    x->h.p.lapic_write = g_apic_write;
    x->h.p.lapic_mmio_base = g_apic_base;
    host_mp_install(&x->h, G_CPUS);
    host_mp.apic_id_base = 0;
    x->h.p.apic_id = host_mp_apic_id;
    for (unsigned i = 0; i < G_CPUS; i++)
        g_firmware(g_apic[i]);
    memset(&g, 0, sizeof(g));
    g.cpu = cpu;
    g.tsc_per_run = G_TSC_PER_RUN;
    g_n_log = 0;
    host_fs_add_dir(&x->h, NB_RESULTS_DIR);
    report_init(&x->r, &x->h.p);
    report_open_files(&x->r);
    if (!CHECK(x->r.files_ok) || !CHECK(bench_context_init(&x->bench, &x->h.p) == NB_OK))
        return false;
    cpu_platform_init(&x->cp, &x->h.p, cpu);
    x->bench.cpu = cpu;
    x->bench.cpu_p = cpu == 0 ? &x->h.p : &x->cp.p;
    x->bench.mask_interrupts = true;
    x->bench.catch_faults = true; /* the image's; the runs themselves are g_stand_in */
    x->bench.tsc_hz = G_TSC_HZ;
    x->bench.fake_cycles = g_stand_in;
    x->watchdog = (struct watchdog){ .available = true, .apic_hz = 100000000u, .mmio_base = 0xFEE00000u,
                                     .spurious_vector = 0xFF };
    x->bench.watchdog = &x->watchdog;
    bench_options_init(&x->o);
    x->o.cycle_by_cycle = x->o.basic_mode = x->o.drain_frontend = x->o.no_normalization = true;
    x->o.unroll_count = 1;
    x->o.aggregate = AGG_MEDIAN;
    x->o.end_to_end = true; /* the whole trace: the fake's template has its own tail (run_cbc's 4) */
    x->o.n_measurements = 3;
    x->o.warm_up_count = 1;
    x->o.timeout = 10;
    x->code.part[PART_MAIN] = &G_NOP;
    x->code.len[PART_MAIN] = 1;
    return true;
}

static void g_down(struct g_rig *x)
{
    bench_context_free(&x->bench);
    report_close(&x->r);
    host_platform_free(&x->h);
}

/* The benchmark "k" measured cycle by cycle on x's processor; the text it reported. */
static const char *g_measure(struct g_rig *x)
{
    host_text_reset(&x->h);
    x->r.serial_seq = 0;
    host_mp.calls = 0;
    report_begin(&x->r, "k");
    const struct nb_platform *pmu_p = x->bench.cpu_p; /* the counters of the benchmark's processor */
    bench_cycles_measure(pmu_p, &fk.d, &x->bench, &x->o, &x->code, EVENTS, 3, "k", &x->r, x->on);
    report_end(&x->r);
    const char *out = host_text(&x->h);
    const char *body = strstr(out, "[k]\n");
    return body ? body + 4 : out;
}

/* The firmware's settings, as g_firmware set them (the periodic timer's initial count written again). */
static void g_check_firmware(const uint32_t *a)
{
    uint32_t want[0x400 / 4];
    g_firmware(want);
    for (unsigned reg = 0; reg < 0x400; reg += 0x10)
        if (reg != LAPIC_EOI && !CHECK_EQ_U64(a[reg / 4], want[reg / 4]))
            nb_test_note("register 0x%x", reg);
}

/* The writes of one run's arming (watchdog_arm) and, after it, of its disarming (watchdog_disarm). */
static const struct { uint32_t reg, value; } G_ARM[] = {
    { LAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_PERIODIC | 0xEC },
    { LAPIC_LVT_THERMAL, LVT_MASKED | 0xFA },
    { LAPIC_LVT_PERFMON, LVT_MASKED | 0x400 },
    { LAPIC_LVT_LINT0, LVT_MASKED | 0x700 },
    { LAPIC_LVT_LINT1, LVT_MASKED | 0x400 },
    { LAPIC_LVT_ERROR, LVT_MASKED | 0xFE },
    { LAPIC_TPR, 0xE0 },
    { LAPIC_TIMER_INITIAL, 0 },
    { LAPIC_TIMER_DIVIDE, 0xA },
    { LAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR },
};
static const struct { uint32_t reg, value; } G_DISARM[] = {
    { LAPIC_TIMER_INITIAL, 0 },
    { LAPIC_TIMER_DIVIDE, 0xB },
    { LAPIC_LVT_ERROR, 0xFE },
    { LAPIC_LVT_LINT1, 0x400 },
    { LAPIC_LVT_LINT0, 0x700 },
    { LAPIC_LVT_PERFMON, LVT_MASKED | 0x400 }, /* masked for the session (pmu_freeze.h) */
    { LAPIC_LVT_THERMAL, 0xFA },
    { LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | 0xEC },
    { LAPIC_TIMER_INITIAL, 50000 },            /* the periodic count starts again */
    { LAPIC_TPR, 0x10 },
};

/* Every run of the whole trace (-end_to_end: 4 runs for the length, 4 per cycle for 14 cycles). */
#define G_RUNS (4 + 4 * 14)

static void g_check_writes_around_the_first_run(void)
{
    size_t at = g.log_at_first;
    REQUIRE(at >= NB_ARRAY_SIZE(G_ARM));
    for (size_t i = 0; i < NB_ARRAY_SIZE(G_ARM); i++) {
        size_t k = at - NB_ARRAY_SIZE(G_ARM) + i;
        if (!CHECK_EQ_U64(g_log[k].reg, G_ARM[i].reg) || !CHECK_EQ_U64(g_log[k].value, G_ARM[i].value))
            nb_test_note("arming write %zu", i);
    }
    for (size_t i = 0; i < NB_ARRAY_SIZE(G_DISARM); i++) {
        if (!CHECK_EQ_U64(g_log[at + i].reg, G_DISARM[i].reg) || !CHECK_EQ_U64(g_log[at + i].value, G_DISARM[i].value))
            nb_test_note("disarming write %zu", i);
    }
}

static size_t g_count_writes(uint32_t reg, uint32_t value)
{
    size_t n = 0;
    for (size_t i = 0; i < g_n_log; i++)
        n += g_log[i].reg == reg && g_log[i].value == value;
    return n;
}

NB_TEST(cycle_by_cycle_runs_under_the_watchdog)
{
    static struct g_rig x;
    REQUIRE(g_up(&x, 0));
    const char *out = g_measure(&x);
    char want[4096];
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 14 cycles of 3 events\n");
    trace_csv(&BENCH, want, sizeof(want));
    CHECK_EQ_STR(host_fs_text(&x.h, NB_RESULTS_DIR "/run-0001-k-cycles.csv"), want);
    CHECK_EQ_INT(g.runs, G_RUNS);
    CHECK_EQ_INT(g.unwatched, 0);
    /* The first run as its code finds the local APIC: only the watchdog's timer, stopped until the code arms it. */
    CHECK_EQ_U64(g.during[LAPIC_LVT_TIMER / 4], LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
    CHECK_EQ_U64(g.during[LAPIC_TIMER_DIVIDE / 4], 0xA);
    CHECK_EQ_U64(g.during[LAPIC_TIMER_INITIAL / 4], 0);
    CHECK_EQ_U64(g.during[LAPIC_TPR / 4], 0xE0);
    CHECK_EQ_U64(g.during[LAPIC_LVT_LINT0 / 4], LVT_MASKED | 0x700);
    CHECK_EQ_U64(g.during[LAPIC_LVT_LINT1 / 4], LVT_MASKED | 0x400);
    CHECK_EQ_U64(g.during[LAPIC_LVT_THERMAL / 4], LVT_MASKED | 0xFA);
    CHECK_EQ_U64(g.during[LAPIC_LVT_PERFMON / 4], LVT_MASKED | 0x400);
    CHECK_EQ_U64(g.during[LAPIC_LVT_ERROR / 4], LVT_MASKED | 0xFE);
    g_check_writes_around_the_first_run();
    /* Armed and disarmed around every run, never more. */
    CHECK_EQ_INT(g_count_writes(LAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR), G_RUNS);
    CHECK_EQ_INT(g_count_writes(LAPIC_TIMER_INITIAL, 0), 2 * G_RUNS);
    CHECK_EQ_INT(g_count_writes(LAPIC_TPR, 0xE0), G_RUNS);
    CHECK_EQ_INT(g_count_writes(LAPIC_TPR, 0x10), G_RUNS);
    CHECK_EQ_INT(g_count_writes(LAPIC_EOI, 0), 0);
    /* Each run's count is the budget left: 10 s less 1 us per run before it, at 100 MHz. */
    for (int i = 0; i < G_RUNS; i++)
        if (!CHECK_EQ_U64(g.count[i], 1000000000ull - 100ull * (uint64_t)i))
            nb_test_note("run %d", i);
    g_check_firmware(g_apic[0]);
    g_down(&x);
}

/*
 * A run that never ends (`jmp $`) in the 25th run, cycle 5's first: the
 * watchdog stops it, the five cycles measured before it are kept as a
 * partial table, then the usual error line; nothing runs after it, and
 * the local APIC is the firmware's again (the fired timer acknowledged).
 */
NB_TEST(cycle_by_cycle_timeout_keeps_the_cycles_measured)
{
    static struct g_rig x;
    REQUIRE(g_up(&x, 0));
    g.hang_at = 4 + 4 * 5 + 1;
    const char *out = g_measure(&x);
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 5 cycles of 3 events "
                      "(partial: the first 5 of 14 cycles)\n"
                      "error: timeout after 10 s (in the cycle run)\n");
    char want[4096];
    struct trace first5 = BENCH;
    first5.cycles = 5;
    trace_csv(&first5, want, sizeof(want));
    CHECK_EQ_STR(host_fs_text(&x.h, NB_RESULTS_DIR "/run-0001-k-cycles.csv"), want);
    CHECK_EQ_INT(g.runs, g.hang_at);
    CHECK_EQ_INT(x.r.n_errors, 1);
    CHECK_EQ_INT(g_count_writes(LAPIC_EOI, 0), 1);
    g_check_firmware(g_apic[0]);
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_IA32_DEBUGCTL), 0);
    CHECK_EQ_U64(host_msr_get(&x.h, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    g_down(&x);

    /* In the search for the run's length: no cycle measured, no table, the error line. */
    REQUIRE(g_up(&x, 0));
    g.hang_at = 2;
    out = g_measure(&x);
    CHECK_EQ_STR(out, "error: timeout after 10 s (in the cycle run)\n");
    CHECK(host_fs_text(&x.h, NB_RESULTS_DIR "/run-0001-k-cycles.csv") == NULL);
    CHECK_EQ_INT(g.runs, 2);
    g_down(&x);

    /* -timeout 1 spent by the runs (0.1 s each): the 11th does not start. */
    REQUIRE(g_up(&x, 0));
    x.o.timeout = 1;
    g.tsc_per_run = G_TSC_HZ / 10;
    out = g_measure(&x);
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 1 cycles of 3 events "
                      "(partial: the first 1 of 14 cycles)\n"
                      "error: timeout after 1 s (before the cycle run)\n");
    CHECK_EQ_INT(g.runs, 10);
    g_down(&x);
}

/*
 * -cpu 1 on the fake two-processor firmware (host_mp.h counts the calls to
 * processor 1): the whole cycle-by-cycle measurement, every run and every
 * counter access, is ONE call there (cpu_measure.h), each run still armed
 * and disarmed inside it. Before, every run was a call, and every access to
 * the counters between the runs another one.
 */
NB_TEST(cycle_by_cycle_on_another_processor_is_one_call)
{
    static struct g_rig x;
    /* The runs as calls of their own, the counters programmed from the boot processor (the fallback). */
    REQUIRE(g_up(&x, 1));
    host_mp_watch_pmu(&x.h, 1);
    const char *out = g_measure(&x);
    unsigned per_run = host_mp.calls;
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 14 cycles of 3 events\n");
    CHECK_EQ_INT(g.elsewhere, 0);
    CHECK_EQ_INT(g.unwatched, 0);
    CHECK(per_run > G_RUNS);
    g_down(&x);

    static struct cpu_measure cm;
    memset(&cm, 0, sizeof(cm));
    REQUIRE(g_up(&x, 1));
    struct bench_cycles_cpu on = { &cm, &x.h.p, 1 };
    x.on = &on;
    host_mp_watch_pmu(&x.h, 1);
    out = g_measure(&x);
    nb_test_note("calls to processor 1: %u with a call per run, %u now", per_run, host_mp.calls);
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 14 cycles of 3 events\n");
    char want[4096];
    trace_csv(&BENCH, want, sizeof(want));
    CHECK_EQ_STR(host_fs_text(&x.h, NB_RESULTS_DIR "/run-0001-k-cycles.csv"), want);
    CHECK_EQ_INT(g.runs, G_RUNS);
    CHECK_EQ_INT(g.elsewhere, 0);
    CHECK_EQ_INT(g.unwatched, 0);
    CHECK_EQ_INT(host_mp.pmu_elsewhere, 0);
    CHECK_EQ_INT(cm.local.refused, 0);
    g_check_writes_around_the_first_run();
    CHECK_EQ_INT(g_count_writes(LAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR), G_RUNS);
    g_check_firmware(g_apic[1]);
    g_check_firmware(g_apic[0]); /* never touched */
    cpu_measure_free(&cm, &x.h.p);
    g_down(&x);

    /* No room reserved (no free block of 1 MiB): a second call once the cycles' memory is there. */
    REQUIRE(g_up(&x, 1));
    x.on = &on;
    cm.tape = x.h.p.alloc_data(x.h.p.ctx, CPU_MEASURE_TAPE_BYTES); /* as a first call leaves it */
    x.h.alloc_largest = (1u << 20) - 1;
    out = g_measure(&x);
    CHECK_EQ_INT(host_mp.calls, 2);
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 14 cycles of 3 events\n");
    CHECK_EQ_STR(host_fs_text(&x.h, NB_RESULTS_DIR "/run-0001-k-cycles.csv"), want);
    CHECK_EQ_INT(g.runs, G_RUNS);

    /* A hang on processor 1: the same partial table and error line, still one call. */
    x.h.alloc_largest = 0;
    g.runs = 0;
    g.hang_at = 4 + 4 * 5 + 1;
    out = g_measure(&x);
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_STR(out, "cycles: nanobench/results/run-0001-k-cycles.csv, 5 cycles of 3 events "
                      "(partial: the first 5 of 14 cycles)\n"
                      "error: timeout after 10 s (in the cycle run)\n");
    cpu_measure_free(&cm, &x.h.p);
    g_down(&x);
}
