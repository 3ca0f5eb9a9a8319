/*
 * test_lapic_quiet.c — the local APIC around a measurement, through the seam:
 * the LVT entries, the task priority and IA32_TSC_DEADLINE before, during
 * and after a benchmark (lapic_quiet.h, watchdog.h), on the boot processor
 * and on another one whose firmware resets its local APIC on every call, as
 * EDK II's MpInitLib does when it wakes an AP from HLT with INIT-SIPI-SIPI.
 *
 * The fake machine has two processors, each with its own register file and
 * deadline MSR; fake_run (the generated code's stand-in) takes a snapshot
 * of the processor it runs on.
 */
#include "bench_run.h"
#include "cpu_platform.h"
#include "host_mp.h"
#include "host_platform.h"
#include "lapic_quiet.h"
#include "lapic_regs.h"
#include "lfence_serialise.h"
#include "msr_names.h"
#include "nb_test.h"
#include "xsave_state.h"

#include <string.h>

#define N_CPUS 2

struct fake_apic {
    uint32_t regs[0x400 / 4];
    uint64_t deadline;
    bool eoi;
};

static struct fake_apic apics[N_CPUS];
static bool init_on_every_call;  /* the firmware resets the AP's local APIC per call */
static int (*host_read_msr)(void *ctx, uint32_t msr, uint64_t *value);
static int (*host_write_msr)(void *ctx, uint32_t msr, uint64_t value);

/* What the benchmark saw, per run. */
static struct fake_apic during;
static unsigned during_cpu;
static uint64_t during_cr4, during_xcr0, during_de_cfg;
static int runs;

static int apic_read(void *ctx, uint32_t reg, uint32_t *value)
{
    (void)ctx;
    *value = apics[host_mp.current].regs[reg / 4];
    return NB_OK;
}

static int apic_write(void *ctx, uint32_t reg, uint32_t value)
{
    (void)ctx;
    struct fake_apic *a = &apics[host_mp.current];
    if (reg == LAPIC_EOI) {
        a->eoi = true;
        return NB_OK;
    }
    /* A write that changes the timer mode disarms the deadline (SDM vol. 3A 11.5.4.1). */
    if (reg == LAPIC_LVT_TIMER && ((value ^ a->regs[reg / 4]) & LVT_TIMER_MODE_MASK))
        a->deadline = 0;
    a->regs[reg / 4] = value;
    /* The current count follows the initial count (the fake timer does not run). */
    if (reg == LAPIC_TIMER_INITIAL)
        a->regs[LAPIC_TIMER_CURRENT / 4] = value;
    return NB_OK;
}

static uint64_t apic_base(void *ctx)
{
    (void)ctx;
    return 0xFEE00000u;
}

static int read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    if (msr == MSR_IA32_TSC_DEADLINE) {
        *value = apics[host_mp.current].deadline;
        return NB_OK;
    }
    return host_read_msr(ctx, msr, value);
}

static int write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_TSC_DEADLINE) {
        apics[host_mp.current].deadline = value;
        return NB_OK;
    }
    return host_write_msr(ctx, msr, value);
}

/* INIT (SDM vol. 3A 11.4.7.3): LVT entries masked, TPR 0, timer stopped; the deadline cleared. */
static void init_reset(struct fake_apic *a)
{
    uint32_t version = a->regs[LAPIC_VERSION / 4];
    memset(a, 0, sizeof(*a));
    a->regs[LAPIC_VERSION / 4] = version;
    static const uint32_t lvts[] = { LAPIC_LVT_CMCI, LAPIC_LVT_TIMER, LAPIC_LVT_THERMAL, LAPIC_LVT_PERFMON,
                                     LAPIC_LVT_LINT0, LAPIC_LVT_LINT1, LAPIC_LVT_ERROR };
    for (size_t i = 0; i < NB_ARRAY_SIZE(lvts); i++)
        a->regs[lvts[i] / 4] = LVT_MASKED;
}

/*
 * Per processor CR4 and XCR0 (the host platform keeps one pair, swapped on
 * every call) and DE_CFG; after INIT the firmware's AP code loads the CR4 it
 * saved at boot, without OSXSAVE, and XCR0 is at its reset value.
 */
static struct host_platform *machine;
static uint64_t cr4s[N_CPUS], xcr0s[N_CPUS], de_cfgs[N_CPUS];
#define FIRMWARE_CR4 0x668ull /* PAE, PGE, OSFXSR, OSXMMEXCPT */

static void switch_cpu(unsigned from, unsigned to)
{
    cr4s[from] = machine->cr4;
    xcr0s[from] = machine->xcr0;
    de_cfgs[from] = host_msr_get(machine, MSR_AMD_DE_CFG);
    machine->cr4 = cr4s[to];
    machine->xcr0 = xcr0s[to];
    host_msr_set(machine, MSR_AMD_DE_CFG, de_cfgs[to]);
}

/* A call to another processor: the firmware's INIT, if it does one per call. */
static void wake(unsigned cpu)
{
    if (init_on_every_call) {
        init_reset(&apics[cpu]);
        cr4s[cpu] = FIRMWARE_CR4;
        xcr0s[cpu] = XCR0_RESET;
        de_cfgs[cpu] &= ~DE_CFG_LFENCE_SERIALIZE;
    }
}

/* A firmware's settings: its timer in TSC-deadline mode, NMI on LINT1 and the counters' LVT. */
static void firmware_apic(struct fake_apic *a)
{
    memset(a, 0, sizeof(*a));
    a->regs[LAPIC_VERSION / 4] = 0x00060015;  /* 7 LVT entries (CMCI), version 0x15 */
    a->regs[LAPIC_TPR / 4] = 0x10;
    a->regs[LAPIC_SVR / 4] = 0x1FF;
    a->regs[LAPIC_LVT_CMCI / 4] = 0xF9;
    a->regs[LAPIC_LVT_TIMER / 4] = LVT_TIMER_TSC_DEADLINE | 0xEC;
    a->regs[LAPIC_LVT_THERMAL / 4] = 0xFA;
    a->regs[LAPIC_LVT_PERFMON / 4] = 0x400;   /* NMI */
    a->regs[LAPIC_LVT_LINT0 / 4] = 0x700;     /* ExtINT */
    a->regs[LAPIC_LVT_LINT1 / 4] = 0x400;     /* NMI */
    a->regs[LAPIC_LVT_ERROR / 4] = 0xFE;
    a->regs[LAPIC_TIMER_DIVIDE / 4] = 0xB;
    a->deadline = 0x123456789ull;
}

static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads, size_t n_reads,
                     int64_t copies)
{
    (void)arg;
    (void)reads;
    (void)copies;
    during = apics[host_mp.current];
    during_cpu = host_mp.current;
    during_cr4 = machine->cr4;
    during_xcr0 = machine->xcr0;
    during_de_cfg = host_msr_get(machine, MSR_AMD_DE_CFG);
    runs++;
    for (size_t k = 0; k < n_reads; k++) {
        data->m1[k] = 1000;
        data->m2[k] = 1000 + 32 * (uint64_t)copies;
    }
}

static const struct counter_read TSC_READ[] = { { READ_TSC, 0, "RDTSC", 64, 0, 0 } };
static const uint8_t NOP = 0x90;

struct rig {
    struct host_platform h;
    struct cpu_platform cp;
    struct bench_context bench;
    struct watchdog watchdog;
    struct bench_options o;
    struct bench_code code;
};

static bool rig_up(struct rig *x, unsigned cpu, bool timer_watchdog)
{
    host_platform_init(&x->h);
    host_cpuid_set(&x->h, 1, 0, 0x906ea, 0, CPUID_01_ECX_TSC_DEADLINE, 0);
    host_read_msr = x->h.p.read_msr;
    host_write_msr = x->h.p.write_msr;
    x->h.p.read_msr = read_msr;
    x->h.p.write_msr = write_msr;
    x->h.p.lapic_read = apic_read;
    x->h.p.lapic_write = apic_write;
    x->h.p.lapic_mmio_base = apic_base;
    host_mp_install(&x->h, N_CPUS);
    host_mp.wake = wake;
    host_mp.switched = switch_cpu;
    machine = &x->h;
    for (unsigned i = 0; i < N_CPUS; i++) {
        firmware_apic(&apics[i]);
        cr4s[i] = xcr0s[i] = de_cfgs[i] = 0;
    }
    runs = 0;
    memset(&during, 0, sizeof(during));
    if (!CHECK(bench_context_init(&x->bench, &x->h.p) == NB_OK))
        return false;
    cpu_platform_init(&x->cp, &x->h.p, cpu);
    x->bench.cpu = cpu;
    x->bench.cpu_p = cpu == 0 ? &x->h.p : &x->cp.p;
    x->bench.mask_interrupts = true;
    x->bench.reads = TSC_READ;
    x->bench.n_reads = 1;
    x->bench.fake_run = fake_run;
    x->bench.tsc_hz = 1000000000u;
    if (timer_watchdog) {
        /* What watchdog_init measures on a 100 MHz timer; the generated code's IDT needs ring 0. */
        x->watchdog = (struct watchdog){ .available = true, .apic_hz = 100000000u, .mmio_base = 0xFEE00000u,
                                         .spurious_vector = 0xFF };
        x->bench.watchdog = &x->watchdog;
        x->bench.catch_faults = true;
    }
    bench_options_init(&x->o);
    x->o.timeout = 10;
    memset(&x->code, 0, sizeof(x->code));
    x->code.part[PART_MAIN] = &NOP;
    x->code.len[PART_MAIN] = 1;
    return true;
}

static void rig_down(struct rig *x)
{
    bench_context_free(&x->bench);
    host_platform_free(&x->h);
}

static bool measure(struct rig *x)
{
    struct bench_result result;
    char error[200] = "";
    int st = bench_measure(&x->bench, &x->o, &x->code, &result, error, sizeof(error));
    if (st != NB_OK)
        nb_test_note("bench_measure: %s", error);
    return st == NB_OK && result.n == 1 && result.values[0] == 3200; /* 32.00 */
}

/* Every register the firmware set is as it was (after a benchmark). */
static void check_firmware_state(const struct fake_apic *a)
{
    CHECK_EQ_U64(a->regs[LAPIC_TPR / 4], 0x10);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_CMCI / 4], 0xF9);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_TIMER / 4], LVT_TIMER_TSC_DEADLINE | 0xEC);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_THERMAL / 4], 0xFA);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_PERFMON / 4], 0x400);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_LINT0 / 4], 0x700);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_LINT1 / 4], 0x400);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_ERROR / 4], 0xFE);
    CHECK_EQ_U64(a->regs[LAPIC_TIMER_DIVIDE / 4], 0xB);
    CHECK_EQ_U64(a->deadline, 0x123456789ull);
}

/* The other LVT entries during a measurement: masked, vectors and modes kept. */
static void check_masked_others(const struct fake_apic *a)
{
    CHECK_EQ_U64(a->regs[LAPIC_LVT_CMCI / 4], 0x100F9);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_THERMAL / 4], 0x100FA);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_PERFMON / 4], 0x10400);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_LINT0 / 4], 0x10700);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_LINT1 / 4], 0x10400);
    CHECK_EQ_U64(a->regs[LAPIC_LVT_ERROR / 4], 0x100FE);
    CHECK_EQ_U64(a->deadline, 0);
}

/* The NMI watchdog's case (or none): every entry masked, the deadline zeroed, TPR kept. */
NB_TEST(lapic_quiet_masks_every_lvt_entry_around_a_benchmark)
{
    struct rig x;
    REQUIRE(rig_up(&x, 0, false));
    check_firmware_state(&apics[0]);  /* before */
    REQUIRE(measure(&x));
    CHECK(runs > 0);
    CHECK_EQ_INT(during_cpu, 0);
    check_masked_others(&during);
    CHECK_EQ_U64(during.regs[LAPIC_LVT_TIMER / 4], LVT_MASKED | LVT_TIMER_TSC_DEADLINE | 0xEC);
    CHECK_EQ_U64(during.regs[LAPIC_TPR / 4], 0x10);
    check_firmware_state(&apics[0]);  /* after */
    CHECK(!apics[0].eoi);
    rig_down(&x);
}

/* The APIC-timer watchdog's case: the timer entry is the watchdog's, TPR 0xE0, the rest masked. */
NB_TEST(lapic_quiet_keeps_only_the_watchdog_timer)
{
    struct rig x;
    REQUIRE(rig_up(&x, 0, true));
    REQUIRE(measure(&x));
    CHECK_EQ_INT(during_cpu, 0);
    check_masked_others(&during);
    CHECK_EQ_U64(during.regs[LAPIC_LVT_TIMER / 4], LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
    CHECK_EQ_U64(during.regs[LAPIC_TIMER_DIVIDE / 4], 0xA);
    CHECK_EQ_U64(during.regs[LAPIC_TPR / 4], 0xE0);
    /* Back in TSC-deadline mode with the firmware's deadline armed again. */
    check_firmware_state(&apics[0]);
    rig_down(&x);
}

/* A timer in periodic mode that was counting counts again afterwards. */
NB_TEST(lapic_quiet_restarts_a_periodic_timer)
{
    struct host_platform h;
    host_platform_init(&h);
    h.p.lapic_read = apic_read;
    h.p.lapic_write = apic_write;
    host_mp.current = 0;
    firmware_apic(&apics[0]);
    apics[0].regs[LAPIC_VERSION / 4] = 0x00040014; /* P6: no thermal entry, no CMCI */
    apics[0].regs[LAPIC_LVT_TIMER / 4] = LVT_TIMER_PERIODIC | 0x68;
    apics[0].regs[LAPIC_TIMER_INITIAL / 4] = 123456;
    apics[0].regs[LAPIC_TIMER_CURRENT / 4] = 1000;
    apics[0].regs[LAPIC_LVT_THERMAL / 4] = 0;
    apics[0].regs[LAPIC_LVT_CMCI / 4] = 0;
    struct lapic_quiet q;
    REQUIRE(lapic_quiet_enter(&q, &h.p, 0xF0));
    CHECK_EQ_U64(apics[0].regs[LAPIC_LVT_TIMER / 4], LVT_MASKED | LVT_TIMER_PERIODIC | 0x68);
    CHECK_EQ_U64(apics[0].regs[LAPIC_TPR / 4], 0xF0);
    CHECK_EQ_U64(apics[0].regs[LAPIC_LVT_THERMAL / 4], 0);  /* absent: not written */
    CHECK_EQ_U64(apics[0].regs[LAPIC_LVT_CMCI / 4], 0);
    CHECK_EQ_U64(apics[0].deadline, 0x123456789ull);        /* no CPUID.01H:ECX[24]: not touched */
    apics[0].regs[LAPIC_TIMER_INITIAL / 4] = 0;             /* the watchdog used the timer */
    lapic_quiet_leave(&q, &h.p);
    CHECK_EQ_U64(apics[0].regs[LAPIC_LVT_TIMER / 4], LVT_TIMER_PERIODIC | 0x68);
    CHECK_EQ_U64(apics[0].regs[LAPIC_TIMER_INITIAL / 4], 123456);
    CHECK_EQ_U64(apics[0].regs[LAPIC_TPR / 4], 0x10);
    host_platform_free(&h);

    /* Without a local APIC nothing happens. */
    host_platform_init(&h);
    CHECK(!lapic_quiet_enter(&q, &h.p, 0xF0));
    lapic_quiet_leave(&q, &h.p);
    host_platform_free(&h);
}

/*
 * -cpu 1 with the timer watchdog on a firmware that resets the AP's local
 * APIC on every call: the watchdog is armed in the same call that runs the
 * code, so the code still finds its timer, and the AP's firmware state is
 * restored in that call too.
 */
NB_TEST(lapic_quiet_watchdog_armed_in_the_call_that_runs_the_code)
{
    struct rig x;
    REQUIRE(rig_up(&x, 1, true));
    init_on_every_call = true;
    bool ok = measure(&x);
    init_on_every_call = false;
    REQUIRE(ok);
    CHECK_EQ_INT(during_cpu, 1);
    CHECK_EQ_U64(during.regs[LAPIC_LVT_TIMER / 4], LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
    CHECK_EQ_U64(during.regs[LAPIC_TIMER_DIVIDE / 4], 0xA);
    CHECK_EQ_U64(during.regs[LAPIC_TPR / 4], 0xE0);
    CHECK_EQ_U64(during.regs[LAPIC_LVT_LINT0 / 4], LVT_MASKED);  /* as INIT left it */
    /* The boot processor's local APIC was never touched. */
    check_firmware_state(&apics[0]);
    rig_down(&x);
}

/* Without the INIT resets: the AP's own settings come back after its benchmark. */
NB_TEST(lapic_quiet_restores_the_other_processor)
{
    struct rig x;
    REQUIRE(rig_up(&x, 1, true));
    REQUIRE(measure(&x));
    CHECK_EQ_INT(during_cpu, 1);
    check_masked_others(&during);
    CHECK_EQ_U64(during.regs[LAPIC_TPR / 4], 0xE0);
    check_firmware_state(&apics[1]);
    check_firmware_state(&apics[0]);
    rig_down(&x);
}

/*
 * The same firmware also puts back its own CR4 (no OSXSAVE) on every wake-up,
 * XCR0 is at its reset value and DE_CFG[1] clear: the procedure that runs the
 * code sets what the code needs (XSAVE of x87/SSE/AVX, a serialising LFENCE)
 * and leaves the firmware's values behind.
 */
NB_TEST(lapic_quiet_xsave_and_de_cfg_checked_in_the_call_that_runs_the_code)
{
    struct rig x;
    REQUIRE(rig_up(&x, 1, true));
    host_cpuid_set(&x.h, 0xD, 0, 0x7, 832, 832, 0);
    host_control_regs_enable(&x.h, FIRMWARE_CR4 | CR4_OSXSAVE, 0x7); /* the boot processor's session */
    host_msr_set(&x.h, MSR_AMD_DE_CFG, 0x2 | 0x1000);
    de_cfgs[1] = 0x2 | 0x1000; /* the session had set DE_CFG[1] on processor 1 too */
    x.bench.xsave_mask = 0x7;
    x.bench.xsave_size = 832;
    x.bench.lfence_de_cfg = true;
    init_on_every_call = true;
    bool ok = measure(&x);
    init_on_every_call = false;
    REQUIRE(ok);
    CHECK_EQ_INT(during_cpu, 1);
    CHECK_EQ_U64(during_cr4, FIRMWARE_CR4 | CR4_OSXSAVE);
    CHECK_EQ_U64(during_xcr0, 0x7);
    CHECK_EQ_U64(during_de_cfg, 0x1002);
    CHECK_EQ_U64(during.regs[LAPIC_LVT_TIMER / 4], LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
    /* Processor 1 as its firmware left it; the boot processor untouched. */
    CHECK_EQ_U64(cr4s[1], FIRMWARE_CR4);
    CHECK_EQ_U64(xcr0s[1], XCR0_RESET);
    CHECK_EQ_U64(de_cfgs[1], 0x1000);
    CHECK_EQ_U64(x.h.cr4, FIRMWARE_CR4 | CR4_OSXSAVE);
    CHECK_EQ_U64(x.h.xcr0, 0x7);
    CHECK_EQ_INT(x.h.bad_xcr_accesses, 0);
    rig_down(&x);
}
