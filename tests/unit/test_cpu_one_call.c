/*
 * test_cpu_one_call.c — -cpu N: one benchmark's whole measurement is ONE
 * firmware call to processor N (cpu_measure.h), on a scripted MP seam.
 *
 * The firmware of this fake machine does what EDK II's MpInitLib does when
 * it wakes an AP from HLT: on EVERY call it resets the AP's local APIC as
 * INIT does (every LVT entry masked, TPR 0, timer stopped; SDM vol. 3A
 * 11.4.7.3). The APIC-timer watchdog must therefore be armed inside the
 * call that runs the code; a fake "jmp $" is stopped only when the timer
 * entry holds the watchdog's vector, unmasked, with a task priority below
 * it (SDM vol. 3A 11.8.3.1), as the real processor would.
 *
 * Also: the report lines produced on N reach the report in the order they
 * were made (nothing measured before a timeout is lost), and a suite run
 * by nb_run_image costs one call per benchmark on -cpu 1 once the
 * processor's session is set up.
 */
#include "bench_counters.h"
#include "cpu_measure.h"
#include "cpu_platform.h"
#include "host_mp.h"
#include "host_platform.h"
#include "lapic_regs.h"
#include "machine.h"
#include "msr_names.h"
#include "nb_main.h"
#include "nb_report.h"
#include "nb_test.h"
#include "watchdog.h"

#include <stdio.h>
#include <string.h>

#define N_CPUS 2
#define BENCH_CPU 1u
#define TSC_HZ 1000000000ull
#define HANG_MSR 0x612u /* the MSR event whose run is the fake `jmp $` */

static uint32_t apic[N_CPUS][0x400 / 4];
static unsigned runs, runs_elsewhere, runs_unwatched, hangs_stopped;
static struct host_platform *machine;

static int apic_read(void *ctx, uint32_t reg, uint32_t *value)
{
    (void)ctx;
    *value = apic[host_mp.current][reg / 4];
    return NB_OK;
}

static int apic_write(void *ctx, uint32_t reg, uint32_t value)
{
    (void)ctx;
    if (reg != LAPIC_EOI)
        apic[host_mp.current][reg / 4] = value;
    return NB_OK;
}

static uint64_t apic_base(void *ctx)
{
    (void)ctx;
    return 0xFEE00000u;
}

/* INIT: every LVT entry masked, TPR 0, the timer stopped (the version register stays). */
static void init_reset(uint32_t *regs)
{
    uint32_t version = regs[LAPIC_VERSION / 4];
    memset(regs, 0, sizeof(apic[0]));
    regs[LAPIC_VERSION / 4] = version;
    static const uint32_t lvts[] = { LAPIC_LVT_CMCI, LAPIC_LVT_TIMER, LAPIC_LVT_THERMAL, LAPIC_LVT_PERFMON,
                                     LAPIC_LVT_LINT0, LAPIC_LVT_LINT1, LAPIC_LVT_ERROR };
    for (size_t i = 0; i < NB_ARRAY_SIZE(lvts); i++)
        regs[lvts[i] / 4] = LVT_MASKED;
}

/* Every call to another processor wakes it with INIT-SIPI-SIPI. */
static void wake(unsigned cpu)
{
    init_reset(apic[cpu]);
}

/* Would the watchdog's timer interrupt reach the code on this processor? */
static bool watchdog_can_fire(void)
{
    uint32_t lvt = apic[host_mp.current][LAPIC_LVT_TIMER / 4], tpr = apic[host_mp.current][LAPIC_TPR / 4];
    return lvt == (LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR) && (tpr >> 4) < (WATCHDOG_VECTOR >> 4);
}

/* 2 TSC ticks per copy; a run that reads HANG_MSR never ends unless the watchdog stops it. */
static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads, size_t n_reads,
                     int64_t copies)
{
    (void)arg;
    runs++;
    runs_elsewhere += host_mp.current != BENCH_CPU;
    runs_unwatched += !watchdog_can_fire();
    machine->tsc += 1000;
    for (size_t k = 0; k < n_reads; k++) {
        if (reads[k].kind == READ_MSR && reads[k].ecx == HANG_MSR) {
            if (watchdog_can_fire()) {
                hangs_stopped++;
                data->fault_happened = 1;
                data->fault_vector = WATCHDOG_VECTOR;
                data->fault_rip = 0;
            }
            return;
        }
    }
    for (size_t k = 0; k < n_reads; k++) {
        data->m1[k] = 5000;
        data->m2[k] = 5000 + (reads[k].kind == READ_TSC ? 2 : 3) * (uint64_t)copies;
    }
}

struct rig {
    struct host_platform h;
    struct cpu_platform cp;
    struct machine_info m;
    struct report r;
    struct counter_env env;
    struct bench_context bench;
    struct watchdog watchdog;
    struct bench_options o;
    struct bench_code code;
    struct cpu_measure cm;
};

static const uint8_t NOP = 0x90;

/* Processor 1 of two, no PMU (RDTSC and -msr_config events only), the timer watchdog. */
static bool rig_up(struct rig *x)
{
    memset(x, 0, sizeof(*x));
    host_platform_init(&x->h);
    machine = &x->h;
    host_cpuid_set_vendor(&x->h, "GenuineIntel", 1);
    host_cpuid_set(&x->h, 1, 0, 0x906ea, 0, 0, 0);
    x->h.p.lapic_read = apic_read;
    x->h.p.lapic_write = apic_write;
    x->h.p.lapic_mmio_base = apic_base;
    host_mp_install(&x->h, N_CPUS);
    host_mp.wake = wake;
    for (unsigned i = 0; i < N_CPUS; i++) {
        memset(apic[i], 0, sizeof(apic[i]));
        apic[i][LAPIC_VERSION / 4] = 0x00050014;
        apic[i][LAPIC_TPR / 4] = 0x10;
        apic[i][LAPIC_LVT_TIMER / 4] = 0xEC; /* the firmware's own timer */
    }
    for (uint32_t msr = 0x610; msr <= HANG_MSR; msr++)
        host_msr_set(&x->h, msr, 0);
    runs = runs_elsewhere = runs_unwatched = hangs_stopped = 0;
    cpu_platform_init(&x->cp, &x->h.p, BENCH_CPU);
    machine_identify(&x->cp.p, &x->m);
    report_init(&x->r, &x->h.p);
    counters_init(&x->env, &x->cp.p, &x->m, &x->r);
    if (!CHECK(bench_context_init(&x->bench, &x->h.p) == NB_OK))
        return false;
    x->bench.report = &x->r;
    x->bench.cpu = BENCH_CPU;
    x->bench.cpu_p = &x->cp.p;
    x->bench.mask_interrupts = true;
    x->bench.catch_faults = true;
    x->bench.fake_run = fake_run;
    x->bench.tsc_hz = TSC_HZ;
    x->watchdog = (struct watchdog){ .available = true, .apic_hz = 100000000u, .mmio_base = 0xFEE00000u,
                                     .spurious_vector = 0xFF };
    x->bench.watchdog = &x->watchdog;
    bench_options_init(&x->o);
    x->o.timeout = 10;
    x->o.unroll_count = 100;
    x->code.part[PART_MAIN] = &NOP;
    x->code.len[PART_MAIN] = 1;
    return true;
}

static void rig_down(struct rig *x)
{
    cpu_measure_free(&x->cm, &x->h.p);
    bench_context_free(&x->bench);
    counters_finish(&x->env);
    host_platform_free(&x->h);
}

static const char *measure(struct rig *x)
{
    host_text_reset(&x->h);
    x->r.serial_seq = 0;
    host_mp.calls = 0;
    cpu_measure_counters(&x->cm, &x->env, &x->bench, &x->o, &x->code, &x->r, &x->h.p, BENCH_CPU);
    return host_text(&x->h);
}

/*
 * Four measurements (RDTSC, then one per MSR event), on a firmware that
 * resets processor 1's local APIC on every call: one call, every run on
 * processor 1 under the armed watchdog, and the boot processor's local APIC
 * never touched. The same again for a second benchmark: nothing of the
 * first call is needed.
 */
NB_TEST(cpu_one_call_arms_the_watchdog_inside_the_call)
{
    static struct rig x;
    REQUIRE(rig_up(&x));
    host_fs_add_text(&x.h, "nanobench/msr.txt", "msr_610 EV_A\nmsr_611 EV_B\nmsr_0x610 EV_C\n");
    x.o.msr_config_path = "msr.txt";
    for (int bench = 0; bench < 2; bench++) {
        runs = 0;
        const char *out = measure(&x);
        CHECK_EQ_INT(host_mp.calls, 1);
        CHECK(runs >= 4);
        CHECK_EQ_INT(runs % 4, 0); /* four measurements of the same stages */
        CHECK_EQ_INT(runs_elsewhere, 0);
        CHECK_EQ_INT(runs_unwatched, 0);
        CHECK_EQ_STR(out, "RDTSC: 2.00\nEV_A: 3.00\nEV_B: 3.00\nEV_C: 3.00\n");
        CHECK_EQ_INT(x.r.n_errors, 0);
        /* The boot processor's local APIC as its firmware set it. */
        CHECK_EQ_U64(apic[0][LAPIC_TPR / 4], 0x10);
        CHECK_EQ_U64(apic[0][LAPIC_LVT_TIMER / 4], 0xEC);
    }
    rig_down(&x);
}

/*
 * The reproducer on the fake seam (-asm "jmp $" -cpu 1 -timeout 10): the
 * hanging run is stopped by the watchdog, and every line measured before
 * it comes out first, in order, then the timeout.
 */
NB_TEST(cpu_one_call_timeout_keeps_what_was_measured)
{
    static struct rig x;
    REQUIRE(rig_up(&x));
    host_fs_add_text(&x.h, "nanobench/msr.txt", "msr_610 EV_A\nmsr_612 HANG\nmsr_611 EV_B\n");
    x.o.msr_config_path = "msr.txt";
    const char *out = measure(&x);
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_INT(hangs_stopped, 1);
    CHECK_EQ_STR(out, "RDTSC: 2.00\nEV_A: 3.00\nerror: timeout after 10 s (in the base run) "
                      "(MSR event HANG)\n");
    CHECK_EQ_INT(x.r.n_errors, 1);
    rig_down(&x);
}

/* The suite through nb_run_image: its firmware calls to other processors, and its .txt in `out`. */
static unsigned suite_calls(const char *suite, char *out, size_t cap)
{
    struct host_platform h;
    host_platform_init(&h);
    machine = &h;
    host_cli_trap_install();
    host_cpuid_set_vendor(&h, "GenuineIntel", 6);
    host_cpuid_set(&h, 1, 0, 0x00050654, 0, 0, 0);
    /* APERF/MPERF (CPUID.06H:ECX[0]): read around every benchmark on its processor. */
    host_cpuid_set(&h, 6, 0, 0, 0, 1, 0);
    host_msr_set(&h, MSR_IA32_MPERF, 1000);
    host_msr_set(&h, MSR_IA32_APERF, 1000);
    host_msr_fault(&h, 0x8B);
    host_mp_install(&h, N_CPUS);
    host_mp.wake = wake;
    host_fs_add_text(&h, NB_SUITE_PATH, suite);
    host_fs_add_dir(&h, NB_RESULTS_DIR);
    nb_run_image(&h.p);
    const char *txt = host_fs_text(&h, "nanobench/results/run-0001.txt");
    snprintf(out, cap, "%s", txt ? txt : "");
    host_platform_free(&h);
    return host_mp.calls;
}

/*
 * One benchmark on -cpu 1 costs the processor's session (identify it, set
 * its XSAVE and LFENCE state, detect and probe its PMU: once per suite and
 * processor) in ONE call, ONE call for the benchmark and ONE to end the
 * session (cpu_session.h); each further benchmark on the same processor
 * costs exactly one call (before: one per measurement, and one per MSR
 * read of the APERF/MPERF pair read around it, 5 here; the session was a
 * call per CPUID and MSR access of its begin and end).
 */
NB_TEST(cpu_one_call_per_benchmark_in_a_suite)
{
    static char none[1 << 16], one[1 << 16], three[1 << 16];
    /* The fingerprint's own calls (cpu_topology.c asks every processor its x2APIC ID). */
    unsigned c0 = suite_calls("a: -unroll_count 1 -n_measurements 1 -warm_up_count 0\n", none, sizeof(none));
    unsigned c1 = suite_calls("a: -unroll_count 1 -n_measurements 1 -warm_up_count 0 -cpu 1\n", one, sizeof(one));
    unsigned c3 = suite_calls("a: -unroll_count 1 -n_measurements 1 -warm_up_count 0 -cpu 1\n"
                              "b: -unroll_count 1 -n_measurements 1 -warm_up_count 0 -cpu 1\n"
                              "c: -unroll_count 1 -n_measurements 1 -warm_up_count 0 -cpu 1\n",
                              three, sizeof(three));
    nb_test_note("calls: %u for one benchmark, %u for three, %u without -cpu", c1, c3, c0);
    CHECK_EQ_INT(c1 - c0, 3);
    CHECK_EQ_INT(c3 - c0, 5);
    CHECK(strstr(three, "[a]\nprocessor: 1 (APIC ID 0) of 2\n"));
    CHECK(strstr(three, "[c]\nprocessor: 1 (APIC ID 0) of 2\nRDTSC: "));
    CHECK(strstr(three, "refused") == NULL);
    CHECK(strstr(three, "done: 3 benchmarks, 0 errors"));
    if (!strstr(three, "done: 3 benchmarks, 0 errors"))
        nb_test_note("%s", three);
}

/*
 * Nothing is allocated on processor 1: the boot processor grows the buffers
 * beforehand (bench_reserve) for the largest measurement. When the firmware
 * has no block for both regions, the runs share the main run's one, as they
 * do on the boot processor, and still nothing is asked of the firmware there.
 */
NB_TEST(cpu_one_call_allocates_nothing_on_the_processor)
{
    static struct rig x;
    REQUIRE(rig_up(&x));
    char error[200];
    REQUIRE(bench_reserve(&x.bench, &x.o, &x.code, error, sizeof(error)) == NB_OK);
    size_t both = x.bench.exec_size;
    rig_down(&x);
    for (int shared = 0; shared < 2; shared++) {
        REQUIRE(rig_up(&x));
        if (shared) {
            x.cm.tape = x.h.p.alloc_data(x.h.p.ctx, CPU_MEASURE_TAPE_BYTES); /* as a first call leaves it */
            x.h.alloc_largest = both - 1; /* the main run's region fits, both do not */
        }
        const char *out = measure(&x);
        CHECK_EQ_INT(host_mp.calls, 1);
        CHECK_EQ_STR(out, "RDTSC: 2.00\n");
        CHECK_EQ_INT(x.cm.local.refused, 0);
        CHECK(shared ? x.bench.exec_size < both : x.bench.exec_size == both);
        /* Later benchmarks find the buffers in place: no allocation at all (the budget is spent). */
        if (!shared) {
            x.h.alloc_budget = 0;
            out = measure(&x);
            CHECK_EQ_STR(out, "RDTSC: 2.00\n");
            CHECK_EQ_INT(x.cm.local.refused, 0);
        }
        rig_down(&x);
    }
}
