/*
 * pmu_session.c — counter programming with save/restore (see pmu_session.h).
 */
#include "pmu_session.h"
#include "nb_text.h"
#include "pmu_msrs.h"

/* The auxiliary MSR behind each nanoBench modifier (Intel only). */
static const uint32_t AUX_MSR[AUX_COUNT] = { MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1,
                                             MSR_PEBS_LD_LAT_THRESHOLD, MSR_PEBS_FRONTEND };

static void save(struct pmu_session *s, uint32_t msr)
{
    uint64_t value;
    if (s->n_saved == PMU_SESSION_MAX_SAVED)
        return;
    /* An MSR this CPU does not have faults: there is nothing to restore. */
    if (s->p->read_msr(s->p->ctx, msr, &value) != NB_OK)
        return;
    s->saved[s->n_saved].msr = msr;
    s->saved[s->n_saved].value = value;
    s->n_saved++;
}

static void wrmsr(struct pmu_session *s, uint32_t msr, uint64_t value)
{
    s->p->write_msr(s->p->ctx, msr, value);
}

void pmu_session_begin(struct pmu_session *s, const struct nb_platform *p, const struct pmu_desc *d)
{
    nb_memset(s, 0, sizeof(*s));
    s->p = p;
    s->d = d;
    s->ops = pmu_ops_for(d->vendor);
    /* Global control first, so pmu_session_end can restore it last. */
    if (s->ops->has_global(d))
        save(s, s->ops->global_ctrl_msr);
    for (unsigned i = 0; i < PMU_MAX_GP; i++) {
        if (!(pmu_gp_mask(d) & (1u << i)))
            continue; /* a hole in the counter bitmap (CPUID.23H): no MSR there */
        save(s, s->ops->ctl_msr(d, i));
        save(s, s->ops->ctr_msr(d, i));
    }
    if (d->vendor == VENDOR_INTEL) {
        save(s, MSR_IA32_FIXED_CTR_CTRL);
        for (unsigned i = 0; i < 3; i++) {
            if (pmu_fixed_mask(d) & (1u << i))
                save(s, MSR_IA32_FIXED_CTR0 + i);
        }
        for (int a = 0; a < AUX_COUNT; a++)
            save(s, AUX_MSR[a]);
    }
}

void pmu_program_group(struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed)
{
    const struct pmu_desc *d = s->d;
    const struct pmu_ops *ops = s->ops;
    bool global = ops->has_global(d);
    /* Stop everything before touching a control register (SDM vol. 3B 20.2.2). */
    if (global)
        wrmsr(s, ops->global_ctrl_msr, 0);
    uint32_t used = 0;
    for (unsigned k = 0; g && k < g->n; k++)
        used |= 1u << g->counter[k];
    for (unsigned i = 0; i < PMU_MAX_GP; i++) {
        if ((pmu_gp_mask(d) & (1u << i)) && !(used & (1u << i)))
            wrmsr(s, ops->ctl_msr(d, i), 0);
    }
    if (g && d->vendor == VENDOR_INTEL) {
        for (int a = 0; a < AUX_COUNT; a++) {
            if (g->has_aux[a])
                wrmsr(s, AUX_MSR[a], g->aux[a]);
        }
    }
    for (unsigned k = 0; g && k < g->n; k++) {
        unsigned c = g->counter[k];
        wrmsr(s, ops->ctl_msr(d, c), 0);
        wrmsr(s, ops->ctr_msr(d, c), 0);
        wrmsr(s, ops->ctl_msr(d, c), ops->encode(&events[g->event_index[k]]));
    }
    ops->program_fixed(s->p, d, fixed);
    if (global)
        wrmsr(s, ops->global_ctrl_msr, ops->global_enable(d, used, fixed));
}

size_t pmu_group_reads(const struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed, struct counter_read *out)
{
    size_t n = 0;
    out[n++] = (struct counter_read){ READ_TSC, 0, "RDTSC" };
    if (fixed)
        n += s->ops->fixed_reads(s->d, out + n);
    for (unsigned k = 0; g && k < g->n && n < NB_MAX_COUNTERS; k++)
        out[n++] = (struct counter_read){ READ_PMC, g->counter[k], events[g->event_index[k]].name };
    return n;
}

void pmu_session_end(struct pmu_session *s)
{
    if (s->ops->has_global(s->d))
        wrmsr(s, s->ops->global_ctrl_msr, 0);
    for (size_t i = s->n_saved; i-- > 0;)
        wrmsr(s, s->saved[i].msr, s->saved[i].value);
    s->n_saved = 0;
}
