/*
 * power.c — turbo, HWP, APERF/MPERF and SMI counter detection (see power.h).
 */
#include "power.h"
#include "cpuid_bits.h"
#include "msr_names.h"

/* CPUID.06H (SDM vol. 2A): EAX[1] turbo available, EAX[7] HWP; ECX[0] APERF/MPERF. */
#define CPUID_LEAF_THERMAL_POWER 0x6u
#define CPUID_06_EAX_TURBO (1u << 1)
#define CPUID_06_EAX_HWP (1u << 7)
#define CPUID_06_ECX_APERF_MPERF (1u << 0)
/* CPUID.8000_0007H:EDX[9] Core Performance Boost (AMD APM vol. 3 E.4.6). */
#define CPUID_80000007_EDX_CPB (1u << 9)


const char *tristate_name(enum tristate t)
{
    return t == STATE_ON ? "on" : t == STATE_OFF ? "off" : "unknown";
}

static enum tristate msr_bit(const struct nb_platform *p, uint32_t msr, uint64_t bit, bool set_means_on)
{
    uint64_t v;
    if (p->read_msr(p->ctx, msr, &v) != NB_OK)
        return STATE_UNKNOWN;
    return ((v & bit) != 0) == set_means_on ? STATE_ON : STATE_OFF;
}

void power_identify(const struct nb_platform *p, const struct machine_info *m, struct power_info *w)
{
    uint32_t r[4] = { 0, 0, 0, 0 };
    *w = (struct power_info){ 0 };
    if (m->max_leaf >= CPUID_LEAF_THERMAL_POWER)
        p->cpuid(p->ctx, CPUID_LEAF_THERMAL_POWER, 0, r);
    if (m->vendor_id == VENDOR_INTEL) {
        w->turbo = (r[CPUID_EAX] & CPUID_06_EAX_TURBO)
                       ? msr_bit(p, MSR_IA32_MISC_ENABLE, MISC_ENABLE_TURBO_DISABLE, false)
                       : STATE_OFF;
        w->hwp = (r[CPUID_EAX] & CPUID_06_EAX_HWP) ? msr_bit(p, MSR_IA32_PM_ENABLE, PM_ENABLE_HWP, true)
                                                  : STATE_OFF;
        w->smi_count = p->read_msr(p->ctx, MSR_SMI_COUNT, &w->smis) == NB_OK;
    } else if (m->vendor_id == VENDOR_AMD) {
        uint32_t e[4] = { 0, 0, 0, 0 };
        if (m->max_ext_leaf >= CPUID_LEAF_POWER_MGMT)
            p->cpuid(p->ctx, CPUID_LEAF_POWER_MGMT, 0, e);
        w->turbo = (e[CPUID_EDX] & CPUID_80000007_EDX_CPB)
                       ? msr_bit(p, MSR_AMD_HWCR, HWCR_CPB_DISABLE, false)
                       : STATE_OFF;
        w->hwp = STATE_OFF;
    }
    uint64_t a, b;
    w->aperf_mperf = (r[CPUID_ECX] & CPUID_06_ECX_APERF_MPERF) && power_read_aperf_mperf(p, &a, &b);
}

bool power_read_aperf_mperf(const struct nb_platform *p, uint64_t *aperf, uint64_t *mperf)
{
    return p->read_msr(p->ctx, MSR_IA32_MPERF, mperf) == NB_OK &&
           p->read_msr(p->ctx, MSR_IA32_APERF, aperf) == NB_OK;
}
