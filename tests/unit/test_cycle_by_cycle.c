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
