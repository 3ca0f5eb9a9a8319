/*
 * pmu_detect.c — what CPUID says about the counters, and the probe that
 * checks the hardware agrees before any result depends on it (a hypervisor
 * may advertise counters it does not implement; QEMU TCG ignores the MSRs).
 */
#include "pmu.h"
#include "cpuid_bits.h"
#include "nb_text.h"
#include "pmu_msrs.h"

#define PROBE_VALUE 0x5A5Aull

const struct pmu_ops *pmu_ops_for(enum cpu_vendor vendor)
{
    switch (vendor) {
    case VENDOR_INTEL: return &pmu_intel_ops;
    case VENDOR_AMD: return &pmu_amd_ops;
    default: return NULL;
    }
}

static void cpuid(const struct nb_platform *p, uint32_t leaf, uint32_t r[4])
{
    p->cpuid(p->ctx, leaf, 0, r);
}

static bool detect_intel(const struct nb_platform *p, const struct machine_info *m,
                         struct pmu_desc *d, char *why, size_t cap)
{
    uint32_t r[4];
    if (m->max_leaf < CPUID_LEAF_PERFMON) {
        nb_snprintf(why, cap, "CPUID has no leaf 0AH (max leaf 0x%x)", m->max_leaf);
        return false;
    }
    cpuid(p, CPUID_LEAF_PERFMON, r);
    d->version = PERFMON_VERSION(r[CPUID_EAX]);
    d->n_gp = PERFMON_N_GP(r[CPUID_EAX]);
    d->gp_width = PERFMON_GP_WIDTH(r[CPUID_EAX]);
    if (d->version >= 2) {
        d->n_fixed = PERFMON_N_FIXED(r[CPUID_EDX]);
        d->fixed_width = PERFMON_FIXED_WIDTH(r[CPUID_EDX]);
    }
    if (d->n_gp > PMU_MAX_GP)
        d->n_gp = PMU_MAX_GP;
    cpuid(p, CPUID_LEAF_FEATURES, r);
    if (r[CPUID_ECX] & CPUID_01_ECX_PDCM) {
        uint64_t caps;
        if (p->read_msr(p->ctx, MSR_IA32_PERF_CAPABILITIES, &caps) == NB_OK)
            d->full_width_writes = (caps & PERF_CAPABILITIES_FW_WRITE) != 0;
    }
    if (m->max_leaf >= CPUID_LEAF_HYBRID) {
        cpuid(p, CPUID_LEAF_HYBRID, r);
        d->core_type = HYBRID_CORE_TYPE(r[CPUID_EAX]);
    }
    if (d->version < 2 || d->n_gp == 0) {
        nb_snprintf(why, cap,
                    "CPUID.0AH reports architectural perfmon version %u with %u counters "
                    "(version 2 or later needed)",
                    d->version, d->n_gp);
        return false;
    }
    return true;
}

static bool detect_amd(const struct nb_platform *p, const struct machine_info *m,
                       struct pmu_desc *d, char *why, size_t cap)
{
    uint32_t r[4];
    d->n_gp = AMD_LEGACY_COUNTERS;
    d->gp_width = 48;
    if (m->max_ext_leaf >= CPUID_LEAF_EXT_FEATURES) {
        cpuid(p, CPUID_LEAF_EXT_FEATURES, r);
        if (r[CPUID_ECX] & CPUID_80000001_ECX_PERFCTR_EXT_CORE) {
            d->amd_ext_core = true;
            d->n_gp = AMD_EXT_CORE_COUNTERS;
        }
    }
    if (m->max_ext_leaf >= CPUID_LEAF_AMD_PERFMON) {
        cpuid(p, CPUID_LEAF_AMD_PERFMON, r);
        if (r[CPUID_EAX] & CPUID_80000022_EAX_PERFMON_V2) {
            d->amd_perfmon_v2 = true;
            unsigned n = r[CPUID_EBX] & 0xF;
            if (n)
                d->n_gp = n;
        }
    }
    if (m->family < 0x17) {
        nb_snprintf(why, cap, "AMD family 0x%x is older than family 17h (Zen), which this tool supports",
                    m->family);
        return false;
    }
    return true;
}

bool pmu_detect(const struct nb_platform *p, const struct machine_info *m, struct pmu_desc *d,
                char *why, size_t why_cap)
{
    nb_memset(d, 0, sizeof(*d));
    d->vendor = m->vendor_id;
    d->family = m->family;
    d->model = m->model;
    if (m->vendor_id == VENDOR_INTEL)
        return detect_intel(p, m, d, why, why_cap);
    if (m->vendor_id == VENDOR_AMD)
        return detect_amd(p, m, d, why, why_cap);
    nb_snprintf(why, why_cap, "vendor '%s' is neither Intel nor AMD", m->vendor);
    return false;
}

/* Counts the retired instructions of the caller's known loop on counter 0. */
static uint64_t count_probe_loop(const struct nb_platform *p, const struct pmu_desc *d,
                                 const struct pmu_ops *ops, const struct pmu_probe_loop *loop,
                                 bool *ran)
{
    /* Instructions retired: event C0H, umask 00H on both vendors. */
    struct pmu_event retired = { .event = 0xC0, .ctr = -1 };
    bool global = ops->has_global(d);
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, 0);
    p->write_msr(p->ctx, ops->ctr_msr(d, 0), 0);
    p->write_msr(p->ctx, ops->ctl_msr(d, 0), ops->encode(&retired));
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, ops->global_enable(d, 1, false));
    loop->run(loop->arg);
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, 0);
    p->write_msr(p->ctx, ops->ctl_msr(d, 0), 0);
    uint64_t count = 0;
    *ran = p->read_msr(p->ctx, ops->ctr_msr(d, 0), &count) == NB_OK;
    return count;
}

bool pmu_probe(const struct nb_platform *p, const struct pmu_desc *d,
               const struct pmu_probe_loop *loop, char *why, size_t why_cap)
{
    const struct pmu_ops *ops = pmu_ops_for(d->vendor);
    uint32_t ctl = ops->ctl_msr(d, 0), ctr = ops->ctr_msr(d, 0);
    uint64_t saved_ctl = 0, saved_ctr = 0, saved_global = 0, back = 0;
    bool global = ops->has_global(d);
    if (p->read_msr(p->ctx, ctl, &saved_ctl) != NB_OK || p->read_msr(p->ctx, ctr, &saved_ctr) != NB_OK ||
        (global && p->read_msr(p->ctx, ops->global_ctrl_msr, &saved_global) != NB_OK)) {
        nb_snprintf(why, why_cap, "reading counter 0 (MSR 0x%x) faulted", ctr);
        return false;
    }
    bool ok = false;
    p->write_msr(p->ctx, ctl, 0);
    if (p->write_msr(p->ctx, ctr, PROBE_VALUE) != NB_OK || p->read_msr(p->ctx, ctr, &back) != NB_OK) {
        nb_snprintf(why, why_cap, "writing counter 0 (MSR 0x%x) faulted", ctr);
    } else if (back != PROBE_VALUE) {
        nb_snprintf(why, why_cap, "counter 0 (MSR 0x%x) read back 0x%llx after writing 0x%llx", ctr,
                    (unsigned long long)back, (unsigned long long)PROBE_VALUE);
    } else {
        bool ran;
        uint64_t count = count_probe_loop(p, d, ops, loop, &ran);
        if (!ran)
            nb_snprintf(why, why_cap, "reading counter 0 after the probe loop faulted");
        else if (count < loop->min_instructions || count > loop->max_instructions)
            nb_snprintf(why, why_cap,
                        "counter 0 counted %llu retired instructions for a loop of %llu to %llu",
                        (unsigned long long)count, (unsigned long long)loop->min_instructions,
                        (unsigned long long)loop->max_instructions);
        else
            ok = true;
    }
    p->write_msr(p->ctx, ctl, saved_ctl);
    p->write_msr(p->ctx, ctr, saved_ctr);
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, saved_global);
    return ok;
}
