/*
 * pmu_restore_check.c — read back every restored counter MSR (see pmu_restore_check.h).
 */
#include "pmu_restore_check.h"
#include "nb_text.h"
#include "pmu_msrs.h"

/* The value saved for `msr`, if the session saved it. */
static bool saved_value(const struct pmu_session *s, uint32_t msr, uint64_t *value)
{
    for (size_t i = 0; i < s->n_saved; i++) {
        if (s->saved[i].msr == msr) {
            *value = s->saved[i].value;
            return true;
        }
    }
    return false;
}

/*
 * Whether the restored state lets counter register `msr` count: its control
 * register's enable bit (IA32_PERFEVTSELx.EN, SDM vol. 3B 20.2.1.1; AMD
 * PERF_CTL.En, APM vol. 2 13.2.1, the same bit 22) or, for an Intel fixed
 * counter, a non-zero ring field in IA32_FIXED_CTR_CTRL (SDM 20.2.2), and,
 * where there is a global control register, its enable bit for the counter.
 * False for anything that is not a counting register.
 */
static bool counting_after_restore(const struct pmu_session *s, uint32_t msr)
{
    const struct pmu_desc *d = s->d;
    const struct pmu_ops *ops = s->ops;
    uint64_t global = ~0ull, ctl = 0;
    bool has_global = ops->has_global(d);
    if (has_global && !saved_value(s, ops->global_ctrl_msr, &global))
        global = 0;
    for (unsigned i = 0; i < d->n_gp; i++) {
        if (ops->ctr_msr(d, i) != msr)
            continue;
        if (!saved_value(s, ops->ctl_msr(d, i), &ctl))
            return false;
        /* PERFEVTSEL_EN and AMD_PERF_CTL_EN are the same bit 22. */
        return (ctl & PERFEVTSEL_EN) && (!has_global || (global >> i) & 1u);
    }
    if (d->vendor == VENDOR_INTEL && msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + 3) {
        unsigned i = msr - MSR_IA32_FIXED_CTR0;
        if (!saved_value(s, MSR_IA32_FIXED_CTR_CTRL, &ctl))
            return false;
        bool rings = (ctl & FIXED_CTR_CTRL_FIELD(i, FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR)) != 0;
        return rings && (!has_global || (global >> (GLOBAL_CTRL_FIXED_SHIFT + i)) & 1u);
    }
    return false;
}

bool pmu_restore_check(const struct pmu_session *s, struct pmu_restore_result *out)
{
    nb_memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < s->n_saved; i++) {
        uint32_t msr = s->saved[i].msr;
        if (counting_after_restore(s, msr)) {
            out->n_running++;
            continue;
        }
        uint64_t now = 0;
        bool read_ok = s->p->read_msr(s->p->ctx, msr, &now) == NB_OK;
        out->n_checked++;
        if (read_ok && now == s->saved[i].value)
            continue;
        if (out->n_mismatch++ == 0) {
            if (read_ok)
                nb_snprintf(out->first, sizeof(out->first), "MSR 0x%x reads 0x%llx, was 0x%llx",
                            msr, (unsigned long long)now, (unsigned long long)s->saved[i].value);
            else
                nb_snprintf(out->first, sizeof(out->first), "MSR 0x%x cannot be read back", msr);
        }
    }
    return out->n_mismatch == 0;
}
