/*
 * pmu_intel.c — Intel architectural performance monitoring (SDM vol. 3B
 * 20.2): PERFEVTSELx/PMCx pairs, fixed counters and the global control.
 */
#include "pmu.h"
#include "cpuid_bits.h"
#include "pmu_msrs.h"

static uint32_t intel_ctl_msr(const struct pmu_desc *d, unsigned i)
{
    (void)d;
    return MSR_IA32_PERFEVTSEL0 + i;
}

/*
 * The engine only ever clears counters (writes 0), for which the legacy
 * alias is exact. pmu_session_end restores the values found through
 * IA32_A_PMCx when IA32_PERF_CAPABILITIES.FW_WRITE allows it: the legacy
 * alias writes EAX sign-extended (SDM vol. 3B 20.2.6).
 */
static uint32_t intel_ctr_msr(const struct pmu_desc *d, unsigned i)
{
    (void)d;
    return MSR_IA32_PMC0 + i;
}

static uint64_t intel_encode(const struct pmu_event *ev)
{
    uint64_t v = (ev->event & PERFEVTSEL_EVENT_MASK) | (uint64_t)ev->umask << PERFEVTSEL_UMASK_SHIFT |
                 PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN |
                 (uint64_t)ev->cmask << PERFEVTSEL_CMASK_SHIFT;
    if (ev->edge)
        v |= PERFEVTSEL_EDGE;
    if (ev->any)
        v |= PERFEVTSEL_ANY;
    if (ev->inv)
        v |= PERFEVTSEL_INV;
    return v;
}

/*
 * Fixed counters 0-2: INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD,
 * CPU_CLK_UNHALTED.REF_TSC. Only those the CPU has (perfmon v5 may leave
 * holes: CPUID.0AH:ECX bitmap, SDM vol. 3B 20.2.5) are used.
 */
#define INTEL_FIXED_USED 3u

static uint32_t fixed_used(const struct pmu_desc *d)
{
    return pmu_fixed_mask(d) & pmu_low_bits(INTEL_FIXED_USED);
}

/* IA32_PERF_GLOBAL_CTRL exists from architectural perfmon version 2 on. */
static bool intel_has_global(const struct pmu_desc *d)
{
    return d->version >= 2;
}

/*
 * Bit i: GP counter i; bit 32+i: fixed counter i (35: FIXED_CTR3, TOPDOWN.SLOTS);
 * bit 48: IA32_PERF_METRICS (SDM vol. 3B 20.2.2, 20.3.9.3; Linux
 * intel_pmu_enable_fixed / GLOBAL_CTRL_EN_PERF_METRICS).
 */
static uint64_t intel_global_enable(const struct pmu_desc *d, uint32_t gp_mask, uint32_t fixed,
                                    bool perf_metrics)
{
    uint64_t v = gp_mask;
    v |= (uint64_t)(fixed & pmu_fixed_mask(d) & pmu_low_bits(PMU_MAX_FIXED)) << GLOBAL_CTRL_FIXED_SHIFT;
    if (perf_metrics && d->perf_metrics)
        v |= GLOBAL_CTRL_EN_PERF_METRICS;
    return v;
}

const char *const pmu_intel_fixed_names[INTEL_FIXED_USED] = { "Instructions retired",
                                                              "Core cycles", "Reference cycles" };

/* nanoBench's names for the fixed counters. */
static size_t intel_fixed_reads(const struct pmu_desc *d, struct counter_read *out)
{
    size_t n = 0;
    for (uint32_t i = 0; i < INTEL_FIXED_USED; i++) {
        if (fixed_used(d) & (1u << i))
            out[n++] = (struct counter_read){ READ_PMC, RDPMC_FIXED | i, pmu_intel_fixed_names[i],
                                              d->fixed_width, 0, 0 };
    }
    return n;
}

static int checked_write(const struct nb_platform *p, uint32_t msr, uint64_t value,
                         struct pmu_write_fault *fault)
{
    if (p->write_msr(p->ctx, msr, value) == NB_OK)
        return NB_OK;
    fault->msr = msr;
    fault->value = value;
    return NB_EFAULT;
}

/*
 * Stop (SDM vol. 3B 20.2.2: a field of 0 disables the counter), clear, then
 * enable all rings. Fixed counter 3 is cleared together with
 * IA32_PERF_METRICS, in Linux's order (icl_set_topdown_event_period:
 * FIXED_CTR3, then PERF_METRICS): the metrics are fractions of the slots
 * counted since both were zero.
 */
static int intel_program_fixed(const struct nb_platform *p, const struct pmu_desc *d, uint32_t fixed,
                               struct pmu_write_fault *fault)
{
    uint32_t want = fixed & pmu_fixed_mask(d) & pmu_low_bits(PMU_MAX_FIXED);
    if (fixed_used(d) == 0 && !(pmu_fixed_mask(d) & (1u << FIXED_SLOTS)))
        return NB_OK; /* nothing to program, nothing to read */
    if (checked_write(p, MSR_IA32_FIXED_CTR_CTRL, 0, fault) != NB_OK)
        return NB_EFAULT;
    if (!want)
        return NB_OK;
    uint64_t ctrl = 0;
    for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
        if (!(want & (1u << i)))
            continue;
        if (checked_write(p, MSR_IA32_FIXED_CTR0 + i, 0, fault) != NB_OK)
            return NB_EFAULT;
        if (i == FIXED_SLOTS && d->perf_metrics &&
            checked_write(p, MSR_IA32_PERF_METRICS, 0, fault) != NB_OK)
            return NB_EFAULT;
        ctrl |= FIXED_CTR_CTRL_FIELD(i, FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR);
    }
    if (checked_write(p, MSR_IA32_FIXED_CTR_CTRL, ctrl, fault) != NB_OK) {
        /* A rejected write changes nothing (#GP): the fields are still 0. */
        return NB_EFAULT;
    }
    return NB_OK;
}

/*
 * Linux (intel_pmu_init) deploys its TSX force-abort handling only when
 * CPUID.(7,0):EDX[13] is set and EDX[11] RTM_ALWAYS_ABORT is not: newer
 * microcode aborts every transaction anyway and leaves PMC3 alone.
 */
enum pmu_tfa pmu_intel_tsx_force_abort(const struct nb_platform *p, const struct machine_info *m)
{
    uint32_t r[4];
    if (m->vendor_id != VENDOR_INTEL || m->max_leaf < CPUID_LEAF_STRUCTURED_EXT)
        return PMU_TFA_NONE;
    p->cpuid(p->ctx, CPUID_LEAF_STRUCTURED_EXT, 0, r);
    if (!(r[CPUID_EDX] & CPUID_07_EDX_TSX_FORCE_ABORT))
        return PMU_TFA_NONE;
    return (r[CPUID_EDX] & CPUID_07_EDX_RTM_ALWAYS_ABORT) ? PMU_TFA_RTM_ALWAYS_ABORT : PMU_TFA_NEEDED;
}

const struct pmu_ops pmu_intel_ops = {
    .name = "intel",
    .ctl_msr = intel_ctl_msr,
    .ctr_msr = intel_ctr_msr,
    .encode = intel_encode,
    .has_global = intel_has_global,
    .global_ctrl_msr = MSR_IA32_PERF_GLOBAL_CTRL,
    .global_enable = intel_global_enable,
    .fixed_reads = intel_fixed_reads,
    .program_fixed = intel_program_fixed,
    .global_status_msr = MSR_IA32_PERF_GLOBAL_STATUS,
    .global_status_reset_msr = MSR_IA32_PERF_GLOBAL_STATUS_RESET,
};
