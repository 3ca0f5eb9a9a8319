/*
 * test_amd_smi.c — SMIs on AMD (no MSR_SMI_COUNT): PMCx02B, SMIs received
 * (PPR LsSmiRx; Linux ls_smi_rx), counted on the highest counter a group
 * leaves free and read first by the generated code like MSR_SMI_COUNT on
 * Intel, so a measurement that saw an SMI is repeated; a group that uses every
 * counter runs without the check and the benchmark says so.
 */
#include "bench_counters.h"
#include "bench_run.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_msrs.h"

#include <string.h>

static struct {
    struct host_platform *h;
    int runs;
    int smi_at_run;          /* the run during which an SMI arrives (0: none) */
    uint64_t smi_ctl_seen;   /* PERF_CTL5 while the runs read counter 5 */
    uint64_t global_seen;
    uint32_t first_read_kind, first_read_ecx;
} fake;

static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads,
                     size_t n_reads, int64_t copies)
{
    (void)arg;
    fake.runs++;
    fake.first_read_kind = reads[0].kind;
    fake.first_read_ecx = reads[0].ecx;
    fake.smi_ctl_seen = host_msr_get(fake.h, MSR_AMD_PERF_CTL0 + 2 * 5);
    fake.global_seen = host_msr_get(fake.h, MSR_AMD_PERF_CNTR_GLOBAL_CTL);
    for (size_t k = 0; k < n_reads; k++) {
        data->m1[k] = 100;
        data->m2[k] = 100 + (k == 0 ? (fake.runs == fake.smi_at_run) : 2 * (uint64_t)copies);
    }
}

static void probe_counts(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_AMD_PERF_CNTR_GLOBAL_CTL && value == 0 && host_msr_get(h, MSR_AMD_PERF_CTL0))
        host_msr_set(h, MSR_AMD_PERF_CTR0, 2002);
}

static const uint8_t NOP = 0x90;
/* The SMI switches left behind for what follows (the -msr_config pass): both off on AMD. */
static bool after_check, after_pmc;

/* Zen 4 (family 19h model 61h): PerfCtrExtCore and PerfMonV2, 6 counters of 48 bits. */
static const char *measure(struct host_platform *h, const char *config, int smi_at_run)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "AuthenticAMD", 0x10);
    host_cpuid_set(h, 1, 0, 0x00A60F12, 0, 0, 1u << 4);
    host_cpuid_set(h, 0x80000000u, 0, 0x80000022u, 0, 0, 0);
    host_cpuid_set(h, 0x80000001u, 0, 0, 0, 1u << 23, 0);
    host_cpuid_set(h, 0x80000022u, 0, 1, 6, 0, 0);
    host_msr_fault(h, 0x8B);
    for (unsigned i = 0; i < 6; i++)
        host_msr_counter(h, MSR_AMD_PERF_CTR0 + 2 * i, 48);
    h->on_msr_write = probe_counts;
    host_fs_add_text(h, "nanobench/cfg.txt", config);
    struct machine_info m;
    machine_identify(&h->p, &m);
    static struct report r;
    static struct counter_env env;
    static struct bench_context bench;
    struct bench_options o;
    struct bench_code code;
    report_init(&r, &h->p);
    counters_init(&env, &h->p, &m, &r);
    CHECK(env.usable);
    env.amd_smi = true; /* what counters_init decides in ring 0 (host tests run in user mode) */
    CHECK(bench_context_init(&bench, &h->p) == NB_OK);
    bench.fake_run = fake_run;
    bench_options_init(&o);
    o.config_path = "cfg.txt";
    memset(&code, 0, sizeof(code));
    code.part[PART_MAIN] = &NOP;
    code.len[PART_MAIN] = 1;
    memset(&fake, 0, sizeof(fake));
    fake.h = h;
    fake.smi_at_run = smi_at_run;
    host_text_reset(h);
    r.serial_seq = 0;
    counters_measure(&env, &bench, &o, &code, &r);
    after_check = bench.smi_check;
    after_pmc = bench.smi_pmc;
    bench_context_free(&bench);
    counters_finish(&env);
    return host_text(h);
}

NB_TEST(amd_smi_counted_on_a_free_counter_and_repeated)
{
    struct host_platform h;
    /* Two events: counters 0 and 1; SMIs on counter 5. Run 9 (a measured base run) sees one. */
    const char *text = measure(&h, "0C0.00 RETIRED_INSTRUCTIONS\n076.00 CYCLES\n", 9);
    CHECK_EQ_STR(text, "RDTSC: 2.00\nRETIRED_INSTRUCTIONS: 2.00\nCYCLES: 2.00\n"
                       "warning: 1 measurement saw an SMI and was repeated\n");
    CHECK_EQ_INT(fake.first_read_kind, READ_PMC);
    CHECK_EQ_INT(fake.first_read_ecx, 5);
    /* PERF_CTL5: event 02BH, USR | OS | EN (APM vol. 2 13.2.1). */
    CHECK_EQ_U64(fake.smi_ctl_seen, AMD_SMI_RX_EVENT | AMD_PERF_CTL_USR | AMD_PERF_CTL_OS | AMD_PERF_CTL_EN);
    CHECK_EQ_U64(fake.global_seen, 0x23); /* counters 0, 1 and 5 */
    CHECK_EQ_INT(fake.runs, 2 * 15 + 1); /* 15 batches of base and main run each, one repeated */
    CHECK(!after_check && !after_pmc);
    host_platform_free(&h);
}

NB_TEST(amd_smi_not_detected_when_a_group_uses_every_counter)
{
    struct host_platform h;
    const char *text = measure(&h, "0C0.00 A\n076.00 B\n029.01 C\n029.02 D\n029.04 E\n0C2.00 F\n", 0);
    CHECK(strstr(text, "smi: not detected in 1 of 1 counter group (no counter left free for PMCx02B)\n"));
    CHECK_EQ_INT(fake.first_read_kind, READ_TSC);
    CHECK_EQ_INT(fake.runs, 2 * 15);
    host_platform_free(&h);
}
