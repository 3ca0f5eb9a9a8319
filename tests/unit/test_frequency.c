/*
 * test_frequency.c — whether the base run and the main run of a benchmark ran
 * at the same effective frequency (APERF/MPERF around each run, SDM vol. 3B
 * 15.2 "IA32_APERF/IA32_MPERF"; the same MSRs on AMD, CPUID Fn0000_0006
 * ECX[0] EffFreq): a warning beyond the stated tolerance, nothing within it.
 */
#include "bench_counters.h"
#include "bench_run.h"
#include "host_platform.h"
#include "msr_names.h"
#include "nb_report.h"
#include "nb_test.h"

#include <string.h>

/* APERF per MPERF tick, in thousandths, of the base run and of the main run. */
static struct {
    struct host_platform *h;
    int64_t base_copies;
    uint64_t base_permille, main_permille;
} clk;
/* IA32_PERF_CTL while the runs ran (-freq base). */
static uint64_t perf_ctl_during;

static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *unused,
                     size_t n_reads, int64_t copies)
{
    (void)arg;
    (void)unused;
    for (size_t k = 0; k < n_reads; k++) {
        data->m1[k] = 1000;
        data->m2[k] = 1000 + 2 * (uint64_t)copies;
    }
    uint64_t dm = 100000, da = dm * (copies == clk.base_copies ? clk.base_permille : clk.main_permille) / 1000;
    host_msr_set(clk.h, MSR_IA32_MPERF, host_msr_get(clk.h, MSR_IA32_MPERF) + dm);
    host_msr_set(clk.h, MSR_IA32_APERF, host_msr_get(clk.h, MSR_IA32_APERF) + da);
    perf_ctl_during = host_msr_get(clk.h, MSR_IA32_PERF_CTL);
}

static const uint8_t NOP = 0x90;

/* A vendor's machine with APERF/MPERF (CPUID.06H:ECX[0]) and no PMU; returns what the benchmark printed. */
static bool with_freq_base;

static const char *run(struct host_platform *h, const char *vendor, uint64_t base_pm, uint64_t main_pm)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, vendor, 0x6);
    host_cpuid_set(h, 1, 0, vendor[0] == 'A' ? 0x00A60F12 : 0x00050654, 0, 0, 1u << 4);
    host_cpuid_set(h, 6, 0, 0, 0, 1, 0);
    host_msr_fault(h, 0x8B);
    host_msr_set(h, MSR_IA32_MPERF, 1u << 20);
    host_msr_set(h, MSR_IA32_APERF, 1u << 21);
    host_msr_set(h, MSR_IA32_MISC_ENABLE, 0x850089);
    host_msr_set(h, MSR_PLATFORM_INFO, 0x20080C2400ull); /* base ratio 0x24 */
    host_msr_set(h, MSR_IA32_PERF_CTL, 0x2A00);
    struct machine_info m;
    machine_identify(&h->p, &m);
    m.tsc_hz = 2400000000u;
    static struct report r;
    static struct counter_env env;
    static struct bench_context bench;
    struct bench_options o;
    struct bench_code code;
    report_init(&r, &h->p);
    counters_init(&env, &h->p, &m, &r);
    CHECK(env.power.aperf_mperf);
    CHECK(bench_context_init(&bench, &h->p) == NB_OK);
    bench.fake_run = fake_run;
    bench_options_init(&o);
    o.freq_base = with_freq_base;
    memset(&code, 0, sizeof(code));
    code.part[PART_MAIN] = &NOP;
    code.len[PART_MAIN] = 1;
    clk.h = h;
    clk.base_copies = o.unroll_count;
    clk.base_permille = base_pm;
    clk.main_permille = main_pm;
    host_text_reset(h);
    r.serial_seq = 0; /* the text starts afresh: its frames are numbered from 0 */
    counters_measure(&env, &bench, &o, &code, &r);
    bench_context_free(&bench);
    counters_finish(&env);
    return host_text(h);
}

NB_TEST(frequency_base_and_main_runs_apart_warn)
{
    struct host_platform h;
    /* Base run at the TSC rate (2400 MHz), main run at 80% of it (1920 MHz). */
    const char *text = run(&h, "GenuineIntel", 1000, 800);
    CHECK(strstr(text, "warning: frequency: the base run ran at 2400 MHz, the main run at 1920 MHz "
                       "(APERF/MPERF), 20.0% apart (tolerance 1%): the result subtracts cycles "
                       "of different lengths\n"));
    host_platform_free(&h);
}

NB_TEST(frequency_base_and_main_runs_within_tolerance_say_nothing)
{
    struct host_platform h;
    /* 0.5% apart: within the tolerance. */
    const char *text = run(&h, "GenuineIntel", 1000, 995);
    CHECK(strstr(text, "frequency: "));
    CHECK(!strstr(text, "warning: frequency"));
    host_platform_free(&h);
}

NB_TEST(frequency_amd_effective_frequency_from_aperf_mperf)
{
    struct host_platform h;
    const char *text = run(&h, "AuthenticAMD", 1250, 1000);
    CHECK(strstr(text, "warning: frequency: the base run ran at 3000 MHz, the main run at 2400 MHz "
                       "(APERF/MPERF), 20.0% apart (tolerance 1%)"));
    host_platform_free(&h);
}

NB_TEST(frequency_freq_base_fixed_during_the_benchmark_and_restored)
{
    struct host_platform h;
    with_freq_base = true;
    const char *text = run(&h, "GenuineIntel", 1000, 1000);
    with_freq_base = false;
    CHECK(strstr(text, "freq: base: IA32_PERF_CTL ratio 36 (maximum non-turbo ratio, MSR_PLATFORM_INFO[15:8]), "
                       "turbo off (IA32_MISC_ENABLE[38]); restored after the benchmark\n"));
    CHECK_EQ_U64(perf_ctl_during, 0x2400);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_CTL), 0x2A00);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_MISC_ENABLE), 0x850089);
    host_platform_free(&h);
}
