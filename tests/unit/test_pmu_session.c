/*
 * test_pmu_session.c — what pmu_session does around the counters besides
 * programming them: clearing the global overflow/freeze status before
 * counting, restoring counters through the full-width aliases, TSX
 * force-abort, and the checked writes, on a fake seam whose MSRs behave like
 * hardware (reserved bits fault by value, counters keep their width).
 */
#include "host_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_msrs.h"
#include "pmu_schedule.h"
#include "pmu_session.h"

#include <string.h>

static void skylake_desc(struct pmu_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->vendor = VENDOR_INTEL;
    d->version = 4;
    d->n_gp = 4;
    d->gp_width = 48;
    d->n_fixed = 3;
    d->fixed_width = 48;
}

static size_t schedule(const char *config, enum cpu_vendor vendor, unsigned n_gp, struct pmu_event *ev,
                       struct pmu_group *g)
{
    struct pmu_desc d = { .vendor = vendor, .n_gp = n_gp };
    size_t n = pmu_config_parse(config, strlen(config), &d, ev, 8, NULL, NULL);
    return pmu_schedule(ev, n, pmu_gp_mask(&d), g);
}

/* Index of the first recorded write to `msr` at or after `from`, or -1. */
static long find_write(const struct host_platform *h, uint32_t msr, size_t from)
{
    for (size_t i = from; i < h->n_writes; i++) {
        if (h->writes[i].msr == msr)
            return (long)i;
    }
    return -1;
}

/* Writing 1s to the reset MSR clears those bits of the status, as on hardware. */
static uint32_t status_msr, reset_msr;

static void ack_status(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == reset_msr)
        host_msr_set(h, status_msr, host_msr_get(h, status_msr) & ~value);
}

NB_TEST(session_clears_intel_global_status_before_counting)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    skylake_desc(&d);
    status_msr = MSR_IA32_PERF_GLOBAL_STATUS;
    reset_msr = MSR_IA32_PERF_GLOBAL_STATUS_RESET;
    h.on_msr_write = ack_status;
    /* Stale overflow of PMC1 and fixed 0, counters frozen (v4 CTR_Frz), CondChgd. */
    uint64_t stale = (1ull << 1) | (1ull << 32) | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_COND_CHGD;
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_STATUS, stale);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("C0.00 A\n", VENDOR_INTEL, 4, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    h.n_writes = 0;
    CHECK(pmu_program_group(&s, ev, &g[0], true));
    /* Cleared with exactly the bits that were set, after programming, before the enable. */
    long reset = find_write(&h, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0);
    REQUIRE(reset >= 0);
    CHECK_EQ_U64(h.writes[reset].value, stale);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK(find_write(&h, MSR_IA32_PERFEVTSEL0, 0) < reset);
    CHECK_EQ_INT(find_write(&h, MSR_IA32_PERF_GLOBAL_CTRL, (size_t)reset), reset + 1);
    CHECK_EQ_U64(h.writes[reset + 1].value, 0x700000001ull);
    /* Nothing set: nothing written. */
    h.n_writes = 0;
    CHECK(pmu_program_group(&s, ev, &g[0], false));
    CHECK_EQ_INT(find_write(&h, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0), -1);
    pmu_session_end(&s);
    host_platform_free(&h);
}

NB_TEST(session_clears_amd_perfmon_v2_status_before_counting)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d = { .vendor = VENDOR_AMD, .n_gp = 6, .gp_width = 48, .amd_ext_core = true,
                          .amd_perfmon_v2 = true };
    status_msr = MSR_AMD_PERF_CNTR_GLOBAL_STATUS;
    reset_msr = MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR;
    h.on_msr_write = ack_status;
    host_msr_set(&h, MSR_AMD_PERF_CNTR_GLOBAL_STATUS, 0x24);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("0C0.00 A\n", VENDOR_AMD, 6, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    h.n_writes = 0;
    CHECK(pmu_program_group(&s, ev, &g[0], false));
    long reset = find_write(&h, MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR, 0);
    REQUIRE(reset >= 0);
    CHECK_EQ_U64(h.writes[reset].value, 0x24);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CNTR_GLOBAL_STATUS), 0);
    CHECK_EQ_INT(find_write(&h, MSR_AMD_PERF_CNTR_GLOBAL_CTL, (size_t)reset), reset + 1);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_PERF_CNTR_GLOBAL_CTL), 1);
    pmu_session_end(&s);
    host_platform_free(&h);
}

NB_TEST(session_status_clear_that_faults_fails_the_group)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    skylake_desc(&d);
    host_msr_set(&h, MSR_IA32_PERF_GLOBAL_STATUS, GLOBAL_STATUS_CTR_FRZ);
    host_msr_fault(&h, MSR_IA32_PERF_GLOBAL_STATUS_RESET);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("C0.00 A\n3C.00 B\n", VENDOR_INTEL, 4, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(!pmu_program_group(&s, ev, &g[0], true));
    CHECK(s.last.group_failed);
    CHECK_EQ_U64(s.last.group_fault.msr, MSR_IA32_PERF_GLOBAL_STATUS_RESET);
    CHECK_EQ_U64(s.last.group_fault.value, GLOBAL_STATUS_CTR_FRZ);
    /* Undone: no counter is left programmed or enabled. */
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0 + 1), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    char name[40];
    CHECK_EQ_STR(pmu_msr_name(&d, MSR_IA32_PERF_GLOBAL_STATUS_RESET, name, sizeof(name)),
                 "IA32_PERF_GLOBAL_STATUS_RESET");
    d.version = 3;
    CHECK_EQ_STR(pmu_msr_name(&d, MSR_IA32_PERF_GLOBAL_OVF_CTRL, name, sizeof(name)),
                 "IA32_PERF_GLOBAL_OVF_CTRL");
    pmu_session_end(&s);
    host_platform_free(&h);
}

/* A count the firmware (or an OS before a warm reboot) left in PMC1: bit 31 set and higher bits. */
#define FOUND_COUNT 0x123480000005ull

NB_TEST(session_restores_counters_through_full_width_aliases)
{
    struct host_platform h;
    host_platform_init(&h);
    host_intel_pmcs(&h, 4, 48, true);
    struct pmu_desc d;
    skylake_desc(&d);
    d.full_width_writes = true;
    host_msr_set(&h, MSR_IA32_PMC0 + 1, FOUND_COUNT);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("C0.00 A\n3C.00 B\n", VENDOR_INTEL, 4, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(pmu_program_group(&s, ev, &g[0], false));
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PMC0 + 1), 0);
    CHECK_EQ_INT(pmu_session_end(&s), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PMC0 + 1), FOUND_COUNT);
    CHECK(find_write(&h, MSR_IA32_A_PMC0 + 1, 0) >= 0);
    host_platform_free(&h);
}

NB_TEST(session_without_full_width_writes_restores_32_bits_sign_extended)
{
    struct host_platform h;
    host_platform_init(&h);
    host_intel_pmcs(&h, 4, 48, false);
    struct pmu_desc d;
    skylake_desc(&d);
    host_msr_set(&h, MSR_IA32_PMC0 + 1, FOUND_COUNT);
    host_msr_set(&h, MSR_IA32_PMC0 + 2, 0x7FFFFFFFull);
    struct pmu_event ev[4];
    struct pmu_group g[4];
    REQUIRE(schedule("C0.00 A\n3C.00 B\n0E.01 C\n", VENDOR_INTEL, 4, ev, g) == 1);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(pmu_program_group(&s, ev, &g[0], false));
    CHECK_EQ_INT(pmu_session_end(&s), 0);
    /*
     * The legacy alias writes EAX sign-extended to the counter width (SDM
     * vol. 3B 20.2.6): a count below 2^31 comes back exactly, this one as
     * 0xFFFF80000005 (docs/counters.md says so). IA32_A_PMCx was never touched.
     */
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PMC0 + 2), 0x7FFFFFFFull);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PMC0 + 1), 0xFFFF80000005ull);
    CHECK_EQ_INT(find_write(&h, MSR_IA32_A_PMC0 + 1, 0), -1);
    host_platform_free(&h);
}

NB_TEST(session_sets_tsx_force_abort_while_pmc3_counts)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    skylake_desc(&d);
    d.tsx_force_abort = true;
    /* Bits 63:2 reserved; bit 1 (TSX_CPUID_CLEAR on later microcode) kept as found. */
    host_msr_reserved(&h, MSR_TSX_FORCE_ABORT, ~3ull);
    host_msr_set(&h, MSR_TSX_FORCE_ABORT, 2);
    struct pmu_event ev[8];
    struct pmu_group g[8];
    REQUIRE(schedule("C0.00 A\n3C.00 B\n0E.01 C\nA3.04 D\nC4.00 E\n", VENDOR_INTEL, 4, ev, g) == 2);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(s.tfa);
    CHECK(!s.tfa_failed);
    CHECK_EQ_U64(host_msr_get(&h, MSR_TSX_FORCE_ABORT), 2); /* the check at begin leaves it as found */
    h.n_writes = 0;
    CHECK(pmu_program_group(&s, ev, &g[0], false)); /* counters 0-3 */
    CHECK_EQ_U64(host_msr_get(&h, MSR_TSX_FORCE_ABORT), 3);
    /* Set before the global enable starts PMC3. */
    CHECK(find_write(&h, MSR_TSX_FORCE_ABORT, 0) < find_write(&h, MSR_IA32_PERF_GLOBAL_CTRL, 1));
    CHECK(pmu_program_group(&s, ev, &g[1], false)); /* counter 0 only */
    CHECK_EQ_U64(host_msr_get(&h, MSR_TSX_FORCE_ABORT), 2);
    CHECK(pmu_program_group(&s, ev, &g[0], false));
    CHECK_EQ_INT(pmu_session_end(&s), 0);
    CHECK_EQ_U64(host_msr_get(&h, MSR_TSX_FORCE_ABORT), 2);
    host_platform_free(&h);
}

NB_TEST(session_tsx_force_abort_that_faults_keeps_pmc3_free)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    skylake_desc(&d);
    d.tsx_force_abort = true;
    host_msr_reserved(&h, MSR_TSX_FORCE_ABORT, TSX_FORCE_ABORT_RTM);
    struct pmu_session s;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(!s.tfa);
    CHECK(s.tfa_failed);
    pmu_session_end(&s);
    /* Without the CPUID bit nothing is tried. */
    d.tsx_force_abort = false;
    h.n_write_faults = 0;
    pmu_session_begin(&s, &h.p, &d);
    CHECK(!s.tfa && !s.tfa_failed);
    CHECK_EQ_INT(h.n_write_faults, 0);
    pmu_session_end(&s);
    d.gp_withheld = 1u << TFA_COUNTER;
    CHECK_EQ_INT(pmu_sched_mask(&d), 0x7);
    d.gp_withheld = 0;
    CHECK_EQ_INT(pmu_sched_mask(&d), 0xF);
    host_platform_free(&h);
}

NB_TEST(fake_seam_msrs_behave_like_hardware)
{
    struct host_platform h;
    host_platform_init(&h);
    host_intel_pmcs(&h, 2, 48, true);
    host_msr_reserved(&h, MSR_IA32_PERFEVTSEL0, 0xFFFFFFFF00000000ull);
    /* A reserved bit: #GP, nothing changes, nothing recorded. */
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0, 0x4300C0);
    CHECK_EQ_INT(h.p.write_msr(h.p.ctx, MSR_IA32_PERFEVTSEL0, 1ull << 32), NB_EFAULT);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0), 0x4300C0);
    CHECK_EQ_INT(h.n_writes, 0);
    /* The legacy alias sign-extends bit 31 to the 48-bit width; the full-width alias does not. */
    CHECK_EQ_INT(h.p.write_msr(h.p.ctx, MSR_IA32_PMC0, 0xABCD80000001ull), NB_OK);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PMC0), 0xFFFF80000001ull);
    CHECK_EQ_INT(h.p.write_msr(h.p.ctx, MSR_IA32_A_PMC0, 0xFFFFABCD80000001ull), NB_OK);
    uint64_t v;
    CHECK_EQ_INT(h.p.read_msr(h.p.ctx, MSR_IA32_PMC0, &v), NB_OK);
    CHECK_EQ_U64(v, 0xABCD80000001ull);
    CHECK_EQ_INT(h.p.read_msr(h.p.ctx, MSR_IA32_A_PMC0, &v), NB_OK);
    CHECK_EQ_U64(v, 0xABCD80000001ull);
    host_platform_free(&h);
    /* Without FW_WRITE there is no IA32_A_PMCx. */
    host_platform_init(&h);
    host_intel_pmcs(&h, 1, 48, false);
    CHECK_EQ_INT(h.p.write_msr(h.p.ctx, MSR_IA32_A_PMC0, 1), NB_EFAULT);
    host_platform_free(&h);
}
