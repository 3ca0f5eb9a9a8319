/*
 * lapic_quiet.c — masks the local APIC's interrupt sources around a
 * measurement (see lapic_quiet.h).
 */
#include "lapic_quiet.h"
#include "cpuid_bits.h"
#include "lapic_access.h"
#include "lapic_regs.h"
#include "msr_names.h"


bool lapic_quiet_enter(struct lapic_quiet *q, const struct nb_platform *p, uint32_t tpr)
{
    *q = (struct lapic_quiet){ 0 };
    uint32_t version;
    if (!p->lapic_read || !p->lapic_write || p->lapic_read(p->ctx, LAPIC_VERSION, &version) != NB_OK)
        return false;
    q->max_lvt = LAPIC_VERSION_MAX_LVT(version);
    uint32_t regs[4] = { 0, 0, 0, 0 };
    if (p->cpuid)
        p->cpuid(p->ctx, CPUID_LEAF_FEATURES, 0, regs);
    q->tpr = lapic_get(p, LAPIC_TPR);
    q->timer = lapic_get(p, LAPIC_LVT_TIMER);
    q->timer_initial = lapic_get(p, LAPIC_TIMER_INITIAL);
    q->timer_current = lapic_get(p, LAPIC_TIMER_CURRENT);
    q->lint0 = lapic_get(p, LAPIC_LVT_LINT0);
    q->lint1 = lapic_get(p, LAPIC_LVT_LINT1);
    q->error = lapic_get(p, LAPIC_LVT_ERROR);
    if (q->max_lvt >= LAPIC_MAX_LVT_PERFMON)
        q->perfmon = lapic_get(p, LAPIC_LVT_PERFMON);
    if (q->max_lvt >= LAPIC_MAX_LVT_THERMAL)
        q->thermal = lapic_get(p, LAPIC_LVT_THERMAL);
    if (q->max_lvt >= LAPIC_MAX_LVT_CMCI)
        q->cmci = lapic_get(p, LAPIC_LVT_CMCI);
    /*
     * A deadline that passes while the timer entry is masked would fire into
     * nothing and disarm itself (SDM vol. 3A 11.5.4.1): zero it now, write it
     * back afterwards (one already past then fires at once, as it should).
     */
    q->deadline_mode = (regs[2] & CPUID_01_ECX_TSC_DEADLINE) && p->read_msr && p->write_msr &&
                       p->read_msr(p->ctx, MSR_IA32_TSC_DEADLINE, &q->tsc_deadline) == NB_OK;
    if (q->deadline_mode)
        p->write_msr(p->ctx, MSR_IA32_TSC_DEADLINE, 0);
    lapic_put(p, LAPIC_LVT_TIMER, q->timer | LVT_MASKED);
    if (q->max_lvt >= LAPIC_MAX_LVT_THERMAL)
        lapic_put(p, LAPIC_LVT_THERMAL, q->thermal | LVT_MASKED);
    if (q->max_lvt >= LAPIC_MAX_LVT_PERFMON)
        lapic_put(p, LAPIC_LVT_PERFMON, q->perfmon | LVT_MASKED);
    lapic_put(p, LAPIC_LVT_LINT0, q->lint0 | LVT_MASKED);
    lapic_put(p, LAPIC_LVT_LINT1, q->lint1 | LVT_MASKED);
    lapic_put(p, LAPIC_LVT_ERROR, q->error | LVT_MASKED);
    if (q->max_lvt >= LAPIC_MAX_LVT_CMCI)
        lapic_put(p, LAPIC_LVT_CMCI, q->cmci | LVT_MASKED);
    if (tpr != LAPIC_QUIET_KEEP_TPR)
        lapic_put(p, LAPIC_TPR, tpr);
    q->active = true;
    return true;
}

void lapic_quiet_leave(struct lapic_quiet *q, const struct nb_platform *p)
{
    if (!q->active)
        return;
    q->active = false;
    if (q->max_lvt >= LAPIC_MAX_LVT_CMCI)
        lapic_put(p, LAPIC_LVT_CMCI, q->cmci);
    lapic_put(p, LAPIC_LVT_ERROR, q->error);
    lapic_put(p, LAPIC_LVT_LINT1, q->lint1);
    lapic_put(p, LAPIC_LVT_LINT0, q->lint0);
    if (q->max_lvt >= LAPIC_MAX_LVT_PERFMON)
        lapic_put(p, LAPIC_LVT_PERFMON, q->perfmon);
    if (q->max_lvt >= LAPIC_MAX_LVT_THERMAL)
        lapic_put(p, LAPIC_LVT_THERMAL, q->thermal);
    lapic_put(p, LAPIC_LVT_TIMER, q->timer);
    if ((q->timer & LVT_TIMER_MODE_MASK) == LVT_TIMER_TSC_DEADLINE) {
        /*
         * Back in TSC-deadline mode (the write above disarmed any deadline if
         * the watchdog had changed the mode): rearm the firmware's. In xAPIC
         * mode the MMIO write and the WRMSR need an MFENCE between them (SDM
         * vol. 3A 11.5.4.1); x2APIC orders them itself.
         */
        if (q->deadline_mode && q->tsc_deadline) {
            __builtin_ia32_mfence();
            p->write_msr(p->ctx, MSR_IA32_TSC_DEADLINE, q->tsc_deadline);
        }
    } else if (q->timer_current) {
        /* A one-shot or periodic count that was running starts again (as nanoBench's module). */
        lapic_put(p, LAPIC_TIMER_INITIAL, q->timer_initial);
    }
    lapic_put(p, LAPIC_TPR, q->tpr);
}
