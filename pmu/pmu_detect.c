/*
 * pmu_detect.c — what CPUID says about the counters, and the probe that
 * checks the hardware agrees before any result depends on it (a hypervisor
 * may advertise counters it does not implement; QEMU TCG ignores the MSRs).
 */
#include "pmu.h"
#include "cpuid_bits.h"
#include "nb_text.h"
#include "pmu_models.h"
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

static void cpuid_sub(const struct nb_platform *p, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    p->cpuid(p->ctx, leaf, subleaf, r);
}

/*
 * The counter bitmaps of this logical processor (SDM vol. 3B 20.2.5, vol. 2A
 * CPUID leaves 0AH and 23H; Linux intel_pmu_init / update_pmu_cap):
 *  - CPUID.23H subleaf 1 (when CPUID.(7,1):EAX[8] and CPUID.23H.0:EAX[1]
 *    say it exists): EAX = GP bitmap, EBX = fixed bitmap, per core type;
 *  - else CPUID.0AH: the lowest EAX[15:8] GP counters; fixed counter i
 *    exists if ECX[i] (perfmon v5) or i < EDX[4:0];
 *  - on a hybrid P-core without leaf 23H, CPUID.0AH reports the subset
 *    common to both core types: add the P-core's extra counters as Linux
 *    does (GP mask << 2 | 3, fixed mask << 1 | 1) for the models whose row
 *    says so (Alder Lake, Raptor Lake: Linux does it for those only), when
 *    CPUID.07H:EDX[15] says the part runs as hybrid.
 */
static void intel_counter_masks(const struct nb_platform *p, const struct machine_info *m,
                                struct pmu_desc *d, uint32_t ecx_0a)
{
    uint32_t r[4];
    d->gp_mask = pmu_low_bits(d->n_gp);
    d->fixed_mask = pmu_low_bits(d->n_fixed);
    if (d->version >= 5)
        d->fixed_mask |= ecx_0a;
    if (m->max_leaf >= CPUID_LEAF_PERFMON_EXT) {
        cpuid_sub(p, CPUID_LEAF_STRUCTURED_EXT, 1, r);
        if (r[CPUID_EAX] & CPUID_07_1_EAX_ARCH_PERFMON_EXT) {
            cpuid_sub(p, CPUID_LEAF_PERFMON_EXT, 0, r);
            if (r[CPUID_EAX] & PERFMON_EXT_EAX_COUNTERS_VALID) {
                cpuid_sub(p, CPUID_LEAF_PERFMON_EXT, PERFMON_EXT_SUBLEAF_COUNTERS, r);
                d->gp_mask = r[CPUID_EAX];
                d->fixed_mask = r[CPUID_EBX];
                d->counters_from_leaf_23h = true;
            }
        }
    }
    /*
     * Only while both core types are enabled (CPUID.07H:EDX[15], Linux
     * X86_FEATURE_HYBRID_CPU): with the E-cores disabled in the firmware,
     * CPUID.0AH reports the P-core's own counters.
     */
    bool hybrid = false;
    if (m->max_leaf >= CPUID_LEAF_STRUCTURED_EXT) {
        cpuid_sub(p, CPUID_LEAF_STRUCTURED_EXT, 0, r);
        hybrid = (r[CPUID_EDX] & CPUID_07_EDX_HYBRID) != 0;
    }
    const struct pmu_model *row = pmu_model_find(VENDOR_INTEL, m->family, m->model);
    if (!d->counters_from_leaf_23h && hybrid && row && row->p_core_beyond_0ah &&
        d->core_type == HYBRID_CORE_CORE) {
        d->gp_mask = d->gp_mask << 2 | 0x3;
        d->fixed_mask = d->fixed_mask << 1 | 0x1;
        d->hybrid_p_core_counters = true;
    }
    d->gp_mask &= pmu_low_bits(PMU_MAX_GP);
    d->fixed_mask &= pmu_low_bits(PMU_MAX_FIXED);
    d->n_gp = (unsigned)__builtin_popcount(d->gp_mask);
    d->n_fixed = (unsigned)__builtin_popcount(d->fixed_mask);
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
    uint32_t ecx_0a = r[CPUID_ECX];
    d->version = PERFMON_VERSION(r[CPUID_EAX]);
    d->n_gp = PERFMON_N_GP(r[CPUID_EAX]);
    d->gp_width = PERFMON_GP_WIDTH(r[CPUID_EAX]);
    /*
     * EBX bit i set = architectural event i (SDM table 20-1) unavailable;
     * events at or past the vector length EAX[31:24] are unavailable too.
     */
    unsigned ebx_len = PERFMON_EBX_LENGTH(r[CPUID_EAX]);
    d->arch_events_missing = r[CPUID_EBX] | ~pmu_low_bits(ebx_len);
    if (d->version >= 2) {
        d->n_fixed = PERFMON_N_FIXED(r[CPUID_EDX]);
        d->fixed_width = PERFMON_FIXED_WIDTH(r[CPUID_EDX]);
    }
    if (d->version >= 5)
        d->anythread_deprecated = (r[CPUID_EDX] & PERFMON_EDX_ANYTHREAD_DEPRECATED) != 0;
    if (d->n_gp > PMU_MAX_GP)
        d->n_gp = PMU_MAX_GP;
    cpuid(p, CPUID_LEAF_FEATURES, r);
    if (r[CPUID_ECX] & CPUID_01_ECX_PDCM) {
        uint64_t caps;
        if (p->read_msr(p->ctx, MSR_IA32_PERF_CAPABILITIES, &caps) == NB_OK) {
            d->full_width_writes = (caps & PERF_CAPABILITIES_FW_WRITE) != 0;
            d->perf_metrics = (caps & PERF_CAPABILITIES_PERF_METRICS) != 0;
        }
    }
    if (m->max_leaf >= CPUID_LEAF_HYBRID) {
        cpuid(p, CPUID_LEAF_HYBRID, r);
        d->core_type = HYBRID_CORE_TYPE(r[CPUID_EAX]);
        d->native_model = HYBRID_NATIVE_MODEL(r[CPUID_EAX]);
    }
    if (d->version < 2 || d->n_gp == 0) {
        nb_snprintf(why, cap,
                    "CPUID.0AH reports architectural perfmon version %u with %u counters "
                    "(version 2 or later needed)",
                    d->version, d->n_gp);
        return false;
    }
    intel_counter_masks(p, m, d, ecx_0a);
    /*
     * The level-2 bytes of IA32_PERF_METRICS (METRICS-FACTS 2b) only where
     * the model is known to have them: an unknown model with PERF_METRICS
     * gets level 1, never bytes 4-7 that may mean something else.
     */
    const struct pmu_model *row = pmu_model_find(VENDOR_INTEL, m->family, m->model);
    d->perf_metrics_l2 = d->perf_metrics && row && row->perf_metrics_l2;
    if (d->n_gp == 0) {
        nb_snprintf(why, cap, "CPUID.23H reports no general-purpose counters");
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
    d->gp_mask = pmu_low_bits(d->n_gp);
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
    d->stepping = m->stepping;
    if (m->vendor_id == VENDOR_INTEL)
        return detect_intel(p, m, d, why, why_cap);
    if (m->vendor_id == VENDOR_AMD)
        return detect_amd(p, m, d, why, why_cap);
    nb_snprintf(why, why_cap, "vendor '%s' is neither Intel nor AMD", m->vendor);
    return false;
}

/* Counts the retired instructions of the caller's known loop on counter c. */
static uint64_t count_probe_loop(const struct nb_platform *p, const struct pmu_desc *d,
                                 const struct pmu_ops *ops, unsigned c,
                                 const struct pmu_probe_loop *loop, bool *ran)
{
    /* Instructions retired: event C0H, umask 00H on both vendors. */
    struct pmu_event retired = { .event = 0xC0, .ctr = -1 };
    bool global = ops->has_global(d);
    if (loop->count) {
        struct pmu_probe_sequence s = { ops->ctl_msr(d, c), ops->ctr_msr(d, c),
                                        global ? ops->global_ctrl_msr : 0, ops->encode(&retired),
                                        global ? ops->global_enable(d, 1u << c, 0, false) : 0 };
        uint64_t count = 0;
        *ran = loop->count(loop->arg, &s, &count);
        return count;
    }
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, 0);
    p->write_msr(p->ctx, ops->ctr_msr(d, c), 0);
    p->write_msr(p->ctx, ops->ctl_msr(d, c), ops->encode(&retired));
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, ops->global_enable(d, 1u << c, 0, false));
    loop->run(loop->arg);
    if (global)
        p->write_msr(p->ctx, ops->global_ctrl_msr, 0);
    p->write_msr(p->ctx, ops->ctl_msr(d, c), 0);
    uint64_t count = 0;
    *ran = p->read_msr(p->ctx, ops->ctr_msr(d, c), &count) == NB_OK;
    return count;
}

bool pmu_probe(const struct nb_platform *p, const struct pmu_desc *d,
               const struct pmu_probe_loop *loop, char *why, size_t why_cap)
{
    const struct pmu_ops *ops = pmu_ops_for(d->vendor);
    /* The lowest counter that exists (counter 0 unless CPUID.23H leaves a hole there). */
    unsigned c = (unsigned)__builtin_ctz(pmu_gp_mask(d) | (1u << 31));
    uint32_t ctl = ops->ctl_msr(d, c), ctr = ops->ctr_msr(d, c);
    uint64_t saved_ctl = 0, saved_ctr = 0, saved_global = 0, back = 0;
    bool global = ops->has_global(d);
    if (p->read_msr(p->ctx, ctl, &saved_ctl) != NB_OK || p->read_msr(p->ctx, ctr, &saved_ctr) != NB_OK ||
        (global && p->read_msr(p->ctx, ops->global_ctrl_msr, &saved_global) != NB_OK)) {
        nb_snprintf(why, why_cap, "reading counter %u (MSR 0x%x) faulted", c, ctr);
        return false;
    }
    bool ok = false;
    p->write_msr(p->ctx, ctl, 0);
    if (p->write_msr(p->ctx, ctr, PROBE_VALUE) != NB_OK || p->read_msr(p->ctx, ctr, &back) != NB_OK) {
        nb_snprintf(why, why_cap, "writing counter %u (MSR 0x%x) faulted", c, ctr);
    } else if (back != PROBE_VALUE) {
        nb_snprintf(why, why_cap, "counter %u (MSR 0x%x) read back 0x%llx after writing 0x%llx", c, ctr,
                    (unsigned long long)back, (unsigned long long)PROBE_VALUE);
    } else {
        bool ran;
        uint64_t count = count_probe_loop(p, d, ops, c, loop, &ran);
        if (!ran)
            nb_snprintf(why, why_cap, "reading counter %u after the probe loop faulted", c);
        else if (count < loop->min_instructions || count > loop->max_instructions)
            nb_snprintf(why, why_cap,
                        "counter %u counted %llu retired instructions for a loop of %llu to %llu", c,
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
