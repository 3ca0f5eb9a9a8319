/*
 * pmu_freeze.c — Freeze_PerfMon_On_PMI for -cycle_by_cycle (see pmu_freeze.h).
 */
#include "pmu_freeze.h"
#include "nb_text.h"
#include "pmu_msrs.h"

const char *pmu_freeze_unsupported(const struct pmu_desc *d, const char *none_why, char *buf, size_t cap)
{
    if (none_why) {
        nb_snprintf(buf, cap, "cycle-by-cycle measurements need performance counters: %s", none_why);
    } else if (d->vendor != VENDOR_INTEL) {
        nb_snprintf(buf, cap, "cycle-by-cycle measurements need Intel's freeze of the counters on a PMI "
                              "(IA32_DEBUGCTL.Freeze_PerfMon_On_PMI); this is not an Intel processor");
    } else if (d->version < 2) {
        nb_snprintf(buf, cap, "cycle-by-cycle measurements need architectural performance monitoring version 2 "
                              "or later (IA32_PERF_GLOBAL_CTRL); this processor has version %u", d->version);
    } else if (d->n_gp < PMU_FREEZE_GP || (pmu_gp_mask(d) & 0xFu) != 0xFu) {
        nb_snprintf(buf, cap, "cycle-by-cycle measurements need %u general-purpose counters (PMC0-3); "
                              "this processor has %u", PMU_FREEZE_GP, d->n_gp);
    } else if ((pmu_fixed_mask(d) & 0x7u) != 0x7u) {
        nb_snprintf(buf, cap, "cycle-by-cycle measurements need fixed counters 0-2 (INST_RETIRED.ANY, "
                              "CPU_CLK_UNHALTED.THREAD, REF_TSC); this processor lacks some of them");
    } else {
        return NULL;
    }
    return buf;
}

static uint64_t fixed_ctrl(unsigned pmi)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 3; i++) {
        uint64_t bits = FIXED_CTR_CTRL_OS;
        if (pmi == PMU_FREEZE_PMI_FIXED(i))
            bits |= FIXED_CTR_CTRL_PMI;
        v |= FIXED_CTR_CTRL_FIELD(i, bits);
    }
    return v;
}

int pmu_freeze_begin(const struct nb_platform *p, const struct pmu_desc *d, struct pmu_freeze_state *s)
{
    (void)d;
    *s = (struct pmu_freeze_state){ 0 };
    if (p->read_msr(p->ctx, MSR_IA32_DEBUGCTL, &s->debugctl) != NB_OK)
        return NB_EFAULT;
    if (p->lapic_read && p->lapic_write && p->lapic_read(p->ctx, LAPIC_LVT_PERF_COUNTER, &s->lvt_pc) == NB_OK) {
        s->lvt_saved = true;
        p->lapic_write(p->ctx, LAPIC_LVT_PERF_COUNTER, s->lvt_pc | LAPIC_LVT_MASKED);
    }
    p->write_msr(p->ctx, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    if (p->write_msr(p->ctx, MSR_IA32_DEBUGCTL, s->debugctl | DEBUGCTL_FREEZE_PERFMON_ON_PMI) != NB_OK)
        return NB_EFAULT;
    p->write_msr(p->ctx, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl(~0u));
    return NB_OK;
}

void pmu_freeze_select(const struct nb_platform *p, struct pmu_freeze_state *s, const uint64_t *evtsel, unsigned n)
{
    for (unsigned i = 0; i < PMU_FREEZE_GP; i++) {
        s->evtsel[i] = i < n ? evtsel[i] & ~PERFEVTSEL_INT : 0;
        p->write_msr(p->ctx, MSR_IA32_PERFEVTSEL0 + i, s->evtsel[i]);
    }
}

uint64_t pmu_freeze_global_enable(const struct pmu_desc *d)
{
    (void)d;
    return 0xFull | (0x7ull << GLOBAL_CTRL_FIXED_SHIFT);
}

void pmu_freeze_arm(const struct nb_platform *p, const struct pmu_desc *d, const struct pmu_freeze_state *s,
                    unsigned pmi, uint64_t events)
{
    p->write_msr(p->ctx, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    /* The PMI bit only on the counter whose overflow is to freeze the others. */
    for (unsigned i = 0; i < PMU_FREEZE_GP; i++) {
        uint64_t v = s->evtsel[i];
        if (pmi == PMU_FREEZE_PMI_GP(i))
            v |= PERFEVTSEL_INT;
        p->write_msr(p->ctx, MSR_IA32_PERFEVTSEL0 + i, v);
        p->write_msr(p->ctx, MSR_IA32_PMC0 + i, 0);
    }
    p->write_msr(p->ctx, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl(pmi));
    for (unsigned i = 0; i < 3; i++)
        p->write_msr(p->ctx, MSR_IA32_FIXED_CTR0 + i, 0);
    /* Overflow bits and, from perfmon v4, CTR_FRZ: a 1 clears each (SDM vol. 3B 20.2.4). */
    uint64_t status = 0;
    p->read_msr(p->ctx, MSR_IA32_PERF_GLOBAL_STATUS, &status);
    p->write_msr(p->ctx, MSR_IA32_PERF_GLOBAL_STATUS_RESET, status);
    /*
     * "events" below the overflow: the counter's all-ones value minus events
     * overflows on event events + 1. The legacy IA32_PMCx alias sign-extends
     * bit 31 of the write (SDM vol. 3B 20.2.6): for events < 2^31 that bit is
     * set, so the extension gives exactly the all-ones-minus-events value.
     */
    if (pmi == PMU_FREEZE_PMI_NONE)
        return;
    if (pmi >= PMU_FREEZE_PMI_GP(0)) {
        uint64_t max = d->gp_width >= 64 ? ~0ull : (1ull << d->gp_width) - 1;
        p->write_msr(p->ctx, MSR_IA32_PMC0 + (pmi - PMU_FREEZE_PMI_GP(0)), max - events);
    } else {
        uint64_t max = d->fixed_width >= 64 ? ~0ull : (1ull << d->fixed_width) - 1;
        p->write_msr(p->ctx, MSR_IA32_FIXED_CTR0 + pmi, max - events);
    }
}

void pmu_freeze_read(const struct nb_platform *p, uint64_t gp[PMU_FREEZE_GP], uint64_t fixed[3])
{
    for (unsigned i = 0; i < PMU_FREEZE_GP; i++) {
        gp[i] = 0;
        p->read_msr(p->ctx, MSR_IA32_PMC0 + i, &gp[i]);
    }
    for (unsigned i = 0; i < 3; i++) {
        fixed[i] = 0;
        p->read_msr(p->ctx, MSR_IA32_FIXED_CTR0 + i, &fixed[i]);
    }
}

void pmu_freeze_end(const struct nb_platform *p, const struct pmu_freeze_state *s)
{
    p->write_msr(p->ctx, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    p->write_msr(p->ctx, MSR_IA32_DEBUGCTL, s->debugctl);
    p->write_msr(p->ctx, MSR_IA32_FIXED_CTR_CTRL, 0);
    for (unsigned i = 0; i < PMU_FREEZE_GP; i++)
        p->write_msr(p->ctx, MSR_IA32_PERFEVTSEL0 + i, 0);
    uint64_t status = 0;
    p->read_msr(p->ctx, MSR_IA32_PERF_GLOBAL_STATUS, &status);
    p->write_msr(p->ctx, MSR_IA32_PERF_GLOBAL_STATUS_RESET, status);
    /* No request is left pending (the status is clear): the entry can be as it was. */
    if (s->lvt_saved)
        p->lapic_write(p->ctx, LAPIC_LVT_PERF_COUNTER, s->lvt_pc);
}
