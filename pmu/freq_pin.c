/*
 * freq_pin.c — -freq base (see freq_pin.h).
 */
#include "freq_pin.h"
#include "cpuid_bits.h"
#include "msr_names.h"
#include "nb_text.h"

/* CPUID.06H:EAX[7] HWP (SDM vol. 2A). */
#define CPUID_06_EAX_HWP (1u << 7)

static bool read(const struct nb_platform *p, uint32_t msr, uint64_t *v, const char *name, char *what,
                 size_t cap)
{
    if (p->read_msr(p->ctx, msr, v) == NB_OK)
        return true;
    nb_snprintf(what, cap, "%s (MSR 0x%x) cannot be read or written", name, msr);
    return false;
}

/* Writes msr[i] = value[i] in order; on a refusal puts back those written and says which. */
static bool write_all(struct freq_pin *f, const struct nb_platform *p, const uint64_t *value,
                      const char *const *name, char *what, size_t cap)
{
    for (unsigned i = 0; i < f->n; i++) {
        if (p->write_msr(p->ctx, f->msr[i], value[i]) != NB_OK) {
            for (unsigned j = i; j > 0; j--)
                p->write_msr(p->ctx, f->msr[j - 1], f->saved[j - 1]);
            nb_snprintf(what, cap, "%s (MSR 0x%x) cannot be read or written", name[i], f->msr[i]);
            return false;
        }
    }
    f->active = true;
    return true;
}

bool freq_pin_base(struct freq_pin *f, const struct nb_platform *p, const struct machine_info *m,
                   char *what, size_t cap)
{
    *f = (struct freq_pin){ 0 };
    uint64_t value[FREQ_PIN_MSRS];
    if (m->vendor_id == VENDOR_AMD) {
        static const char *const name[] = { "PStateCtl", "HWCR" };
        f->n = 2;
        f->msr[0] = MSR_AMD_PSTATE_CTL;
        f->msr[1] = MSR_AMD_HWCR;
        if (!read(p, f->msr[0], &f->saved[0], name[0], what, cap) ||
            !read(p, f->msr[1], &f->saved[1], name[1], what, cap))
            return false;
        value[0] = f->saved[0] & ~AMD_PSTATE_CMD_MASK; /* P0 */
        value[1] = f->saved[1] | HWCR_CPB_DISABLE;
        if (!write_all(f, p, value, name, what, cap))
            return false;
        nb_snprintf(what, cap, "freq: base: P-state 0 (PStateCtl), boost off (HWCR[25] CpbDis)");
        return true;
    }
    if (m->vendor_id != VENDOR_INTEL) {
        nb_snprintf(what, cap, "not an Intel or AMD processor");
        return false;
    }
    uint32_t r[4] = { 0, 0, 0, 0 };
    if (m->max_leaf >= 6)
        p->cpuid(p->ctx, 6, 0, r);
    uint64_t pm = 0, cap_hwp, ratio;
    bool hwp = (r[CPUID_EAX] & CPUID_06_EAX_HWP) && p->read_msr(p->ctx, MSR_IA32_PM_ENABLE, &pm) == NB_OK &&
               (pm & PM_ENABLE_HWP);
    if (hwp) {
        static const char *const name[] = { "IA32_HWP_REQUEST", "IA32_MISC_ENABLE" };
        f->n = 2;
        f->msr[0] = MSR_IA32_HWP_REQUEST;
        f->msr[1] = MSR_IA32_MISC_ENABLE;
        if (!read(p, MSR_IA32_HWP_CAPABILITIES, &cap_hwp, "IA32_HWP_CAPABILITIES", what, cap) ||
            !read(p, f->msr[0], &f->saved[0], name[0], what, cap) ||
            !read(p, f->msr[1], &f->saved[1], name[1], what, cap))
            return false;
        uint64_t g = (cap_hwp >> HWP_CAP_GUARANTEED_SHIFT) & 0xFF;
        value[0] = (f->saved[0] & ~HWP_REQ_PERF_MASK) | g << HWP_REQ_MIN_SHIFT | g << HWP_REQ_MAX_SHIFT |
                   g << HWP_REQ_DESIRED_SHIFT;
        value[1] = f->saved[1] | MISC_ENABLE_TURBO_DISABLE;
        if (!write_all(f, p, value, name, what, cap))
            return false;
        nb_snprintf(what, cap, "freq: base: HWP request min = max = desired = %u (guaranteed "
                    "performance, IA32_HWP_CAPABILITIES), turbo off (IA32_MISC_ENABLE[38])", (unsigned)g);
        return true;
    }
    static const char *const name[] = { "IA32_PERF_CTL", "IA32_MISC_ENABLE" };
    uint64_t info;
    f->n = 2;
    f->msr[0] = MSR_IA32_PERF_CTL;
    f->msr[1] = MSR_IA32_MISC_ENABLE;
    if (!read(p, MSR_PLATFORM_INFO, &info, "MSR_PLATFORM_INFO", what, cap) ||
        !read(p, f->msr[0], &f->saved[0], name[0], what, cap) ||
        !read(p, f->msr[1], &f->saved[1], name[1], what, cap))
        return false;
    ratio = (info >> PLATFORM_INFO_MAX_NON_TURBO_SHIFT) & 0xFF;
    if (!ratio) {
        nb_snprintf(what, cap, "MSR_PLATFORM_INFO reports no maximum non-turbo ratio");
        return false;
    }
    value[0] = (f->saved[0] & ~PERF_CTL_RATIO_MASK) | ratio << PERF_CTL_RATIO_SHIFT;
    value[1] = f->saved[1] | MISC_ENABLE_TURBO_DISABLE;
    if (!write_all(f, p, value, name, what, cap))
        return false;
    nb_snprintf(what, cap, "freq: base: IA32_PERF_CTL ratio %u (maximum non-turbo ratio, "
                "MSR_PLATFORM_INFO[15:8]), turbo off (IA32_MISC_ENABLE[38])", (unsigned)ratio);
    return true;
}

void freq_pin_restore(struct freq_pin *f, const struct nb_platform *p)
{
    for (unsigned j = f->n; f->active && j > 0; j--)
        p->write_msr(p->ctx, f->msr[j - 1], f->saved[j - 1]);
    f->active = false;
}

void freq_pin_describe(enum cpu_vendor vendor, char *out, size_t cap)
{
    if (vendor == VENDOR_AMD)
        nb_snprintf(out, cap,
                    "wrmsr 0x%x (PStateCtl) PstateCmd = 0 (P-state 0)\n"
                    "wrmsr 0x%x (HWCR) |= 1 << 25 (CpbDis: boost off)\n"
                    "both restored after the benchmark",
                    MSR_AMD_PSTATE_CTL, MSR_AMD_HWCR);
    else
        nb_snprintf(out, cap,
                    "HWP on (IA32_PM_ENABLE[0]): wrmsr 0x%x (IA32_HWP_REQUEST) minimum = maximum = "
                    "desired = IA32_HWP_CAPABILITIES[15:8] (guaranteed performance)\n"
                    "HWP off: wrmsr 0x%x (IA32_PERF_CTL) [15:8] = MSR_PLATFORM_INFO[15:8] (maximum "
                    "non-turbo ratio)\n"
                    "wrmsr 0x%x (IA32_MISC_ENABLE) |= 1 << 38 (turbo off)\n"
                    "all restored after the benchmark",
                    MSR_IA32_HWP_REQUEST, MSR_IA32_PERF_CTL, MSR_IA32_MISC_ENABLE);
}
