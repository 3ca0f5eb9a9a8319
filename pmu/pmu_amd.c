/*
 * pmu_amd.c — AMD core performance counters (APM vol. 2, 13.2): PERF_CTL /
 * PERF_CTR pairs, legacy (4 at C001_0000h) or PerfCtrExtCore (6 at
 * C001_0200h, interleaved), and PerfMonV2's global control (Zen 4+).
 */
#include "pmu.h"
#include "msr_names.h"
#include "pmu_msrs.h"

static uint32_t amd_ctl_msr(const struct pmu_desc *d, unsigned i)
{
    return d->amd_ext_core ? MSR_AMD_PERF_CTL0 + 2 * i : MSR_AMD_PERF_CTL_LEGACY0 + i;
}

static uint32_t amd_ctr_msr(const struct pmu_desc *d, unsigned i)
{
    return d->amd_ext_core ? MSR_AMD_PERF_CTR0 + 2 * i : MSR_AMD_PERF_CTR_LEGACY0 + i;
}

/*
 * CntMask is 8 bits (31:24) in the APM; HostOnly/GuestOnly stay 0 so the
 * counter counts in both, which is what bare metal needs.
 */
static uint64_t amd_encode(const struct pmu_event *ev)
{
    uint64_t v = (ev->event & AMD_PERF_CTL_EVENT_LO_MASK) |
                 (uint64_t)((ev->event >> 8) & 0xF) << AMD_PERF_CTL_EVENT_HI_SHIFT |
                 (uint64_t)ev->umask << AMD_PERF_CTL_UMASK_SHIFT | AMD_PERF_CTL_USR |
                 AMD_PERF_CTL_OS | AMD_PERF_CTL_EN | (uint64_t)ev->cmask << AMD_PERF_CTL_CMASK_SHIFT;
    if (ev->edge)
        v |= AMD_PERF_CTL_EDGE;
    if (ev->inv)
        v |= AMD_PERF_CTL_INV;
    return v;
}

static bool amd_has_global(const struct pmu_desc *d)
{
    return d->amd_perfmon_v2;
}

static uint64_t amd_global_enable(const struct pmu_desc *d, uint32_t gp_mask, uint32_t fixed,
                                  bool perf_metrics)
{
    (void)d;
    (void)fixed;
    (void)perf_metrics;
    return gp_mask;
}

/* AMD has no fixed counters; nanoBench reads MPERF and APERF instead (after the TSC). */
static size_t amd_fixed_reads(const struct pmu_desc *d, struct counter_read *out)
{
    (void)d;
    out[0] = (struct counter_read){ READ_MSR, MSR_IA32_MPERF, "MPERF", 64, 0, 0 };
    out[1] = (struct counter_read){ READ_MSR, MSR_IA32_APERF, "APERF", 64, 0, 0 };
    return 2;
}

static int amd_program_fixed(const struct nb_platform *p, const struct pmu_desc *d, uint32_t fixed,
                             struct pmu_write_fault *fault)
{
    (void)p;
    (void)d;
    (void)fixed;
    (void)fault;
    return NB_OK;
}

const struct pmu_ops pmu_amd_ops = {
    .name = "amd",
    .ctl_msr = amd_ctl_msr,
    .ctr_msr = amd_ctr_msr,
    .encode = amd_encode,
    .has_global = amd_has_global,
    .global_ctrl_msr = MSR_AMD_PERF_CNTR_GLOBAL_CTL,
    .global_enable = amd_global_enable,
    .fixed_reads = amd_fixed_reads,
    .program_fixed = amd_program_fixed,
    .global_status_msr = MSR_AMD_PERF_CNTR_GLOBAL_STATUS,
    .global_status_reset_msr = MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR,
};
