/*
 * pmu_session.c — counter programming with save/restore (see pmu_session.h).
 */
#include "pmu_session.h"
#include "nb_text.h"
#include "pmu_msrs.h"

/* The auxiliary MSR behind each nanoBench modifier (Intel only). */
static const uint32_t AUX_MSR[AUX_COUNT] = { MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1,
                                             MSR_PEBS_LD_LAT_THRESHOLD, MSR_PEBS_FRONTEND };

uint32_t pmu_sched_mask(const struct pmu_desc *d)
{
    return pmu_gp_mask(d) & ~d->gp_withheld;
}

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

/* A write that may fault (#GP: the MSR is unchanged); *fault names it. */
static bool wrmsr(struct pmu_session *s, uint32_t msr, uint64_t value, struct pmu_write_fault *fault)
{
    if (s->p->write_msr(s->p->ctx, msr, value) == NB_OK)
        return true;
    fault->msr = msr;
    fault->value = value;
    return false;
}

/*
 * Switching a counter off: 0 is valid in every control register, so this
 * only fails where everything fails; there is nothing left to undo then.
 */
static void off(struct pmu_session *s, uint32_t msr)
{
    s->p->write_msr(s->p->ctx, msr, 0);
}

static bool is_intel(const struct pmu_session *s)
{
    return s->d->vendor == VENDOR_INTEL;
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
    if (is_intel(s)) {
        save(s, MSR_IA32_FIXED_CTR_CTRL);
        /*
         * Saved before the counters so that pmu_session_end (which restores
         * in reverse) writes FIXED_CTR3 before IA32_PERF_METRICS, Linux's
         * order (icl_set_topdown_event_period restores saved_slots, then
         * saved_metric).
         */
        if (d->perf_metrics)
            save(s, MSR_IA32_PERF_METRICS);
        for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
            if (pmu_fixed_mask(d) & (1u << i))
                save(s, MSR_IA32_FIXED_CTR0 + i);
        }
        for (int a = 0; a < AUX_COUNT; a++)
            save(s, AUX_MSR[a]);
    }
    /*
     * TSX force-abort, as Linux does by default (allow_tsx_force_abort):
     * RTM_FORCE_ABORT is set only while a group uses PMC3. Check now that
     * it can be written, so the scheduler knows whether PMC3 is usable.
     */
    bool has_pmc3 = pmu_gp_mask(d) & (1u << TFA_COUNTER);
    if (d->tsx_force_abort && has_pmc3 &&
        p->read_msr(p->ctx, MSR_TSX_FORCE_ABORT, &s->tfa_saved) == NB_OK) {
        s->tfa_now = s->tfa_saved;
        if (p->write_msr(p->ctx, MSR_TSX_FORCE_ABORT, s->tfa_saved | TSX_FORCE_ABORT_RTM) == NB_OK &&
            p->write_msr(p->ctx, MSR_TSX_FORCE_ABORT, s->tfa_saved) == NB_OK)
            s->tfa = true;
        else
            s->tfa_failed = true;
    } else if (d->tsx_force_abort && has_pmc3) {
        s->tfa_failed = true;
    }
}

/*
 * Clears the overflow and freeze bits before counting: a frozen counter
 * (v4 CTR_Frz) counts nothing, and stale overflow bits are no one's. Like
 * Linux (intel_pmu_ack_status, amd_pmu_ack_global_status) only the bits that
 * are set are written back: IA32_PERF_GLOBAL_OVF_CTRL / STATUS_RESET (SDM
 * vol. 3B 20.2.2, 20.2.4) or PerfCntrGlobalStatusClr (APM vol. 2 13.2.2).
 */
static bool clear_global_status(struct pmu_session *s, struct pmu_write_fault *fault)
{
    uint64_t status = 0;
    if (s->p->read_msr(s->p->ctx, s->ops->global_status_msr, &status) != NB_OK || status == 0)
        return true;
    return wrmsr(s, s->ops->global_status_reset_msr, status, fault);
}

/* RTM_FORCE_ABORT while the group uses PMC3, the value found otherwise. */
static void set_tfa(struct pmu_session *s, uint32_t used)
{
    if (!s->tfa)
        return;
    uint64_t want = (used & (1u << TFA_COUNTER)) ? s->tfa_saved | TSX_FORCE_ABORT_RTM : s->tfa_saved;
    if (want != s->tfa_now && s->p->write_msr(s->p->ctx, MSR_TSX_FORCE_ABORT, want) == NB_OK)
        s->tfa_now = want;
}

/* Undoes a group that cannot count: every control register it wrote goes back to off. */
static void undo_group(struct pmu_session *s, const struct pmu_event *events, const struct pmu_group *g)
{
    for (unsigned k = 0; g && k < g->n; k++) {
        off(s, s->ops->ctl_msr(s->d, g->counter[k]));
        if (events[g->event_index[k]].merge)
            off(s, s->ops->ctl_msr(s->d, g->counter[k] + 1)); /* the MergeEvent (Linux x86_pmu_disable_event) */
    }
    if (is_intel(s))
        off(s, MSR_IA32_FIXED_CTR_CTRL);
    set_tfa(s, 0);
}

bool pmu_program_group(struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed)
{
    const struct pmu_desc *d = s->d;
    const struct pmu_ops *ops = s->ops;
    struct pmu_program_result *res = &s->last;
    bool global = ops->has_global(d);
    nb_memset(res, 0, sizeof(*res));
    /* Stop everything before touching a control register (SDM vol. 3B 20.2.2). */
    if (global && !wrmsr(s, ops->global_ctrl_msr, 0, &res->group_fault)) {
        res->group_failed = true;
        return false;
    }
    uint32_t group_counters = 0;
    for (unsigned k = 0; g && k < g->n; k++)
        group_counters |= (events[g->event_index[k]].merge ? 3u : 1u) << g->counter[k];
    if (g && g->smi)
        group_counters |= 1u << g->smi_counter;
    for (unsigned i = 0; i < PMU_MAX_GP; i++) {
        if ((pmu_gp_mask(d) & (1u << i)) && !(group_counters & (1u << i)))
            off(s, ops->ctl_msr(d, i));
    }
    /* An auxiliary MSR the CPU rejects skips every event of the group that needs it. */
    if (g && is_intel(s)) {
        for (int a = 0; a < AUX_COUNT; a++) {
            struct pmu_write_fault fault;
            if (!g->has_aux[a] || wrmsr(s, AUX_MSR[a], g->aux[a], &fault))
                continue;
            for (unsigned k = 0; k < g->n; k++) {
                if (events[g->event_index[k]].has_aux[a] && !res->skipped[k]) {
                    res->skipped[k] = true;
                    res->skip_fault[k] = fault;
                }
            }
        }
    }
    uint32_t used = 0;
    for (unsigned k = 0; g && k < g->n; k++) {
        unsigned c = g->counter[k];
        uint32_t ctl = ops->ctl_msr(d, c);
        struct pmu_write_fault *fault = &res->skip_fault[k];
        off(s, ctl);
        if (res->skipped[k])
            continue;
        if (events[g->event_index[k]].merge) {
            /*
             * AMD Large Increment event (pmu_msrs.h AMD_MERGE_EVENT): the pair
             * counts from 0 (odd counter's high-order bits first, then the even
             * counter, as the PPR orders a preload), and the MergeEvent is
             * enabled on the odd counter before the even counter's control
             * (Linux __x86_pmu_enable_event).
             */
            uint32_t odd_ctl = ops->ctl_msr(d, c + 1);
            off(s, odd_ctl);
            if (!wrmsr(s, ops->ctr_msr(d, c + 1), 0, fault) || !wrmsr(s, ops->ctr_msr(d, c), 0, fault) ||
                !wrmsr(s, odd_ctl, AMD_PERF_CTL_MERGE_ENABLE, fault) ||
                !wrmsr(s, ctl, ops->encode(&events[g->event_index[k]]), fault)) {
                off(s, odd_ctl);
                res->skipped[k] = true;
                continue;
            }
            used |= 3u << c; /* both in PerfCntrGlobalCtl, as Linux enables every counter */
            continue;
        }
        if (!wrmsr(s, ops->ctr_msr(d, c), 0, fault) ||
            !wrmsr(s, ctl, ops->encode(&events[g->event_index[k]]), fault)) {
            res->skipped[k] = true;
            continue;
        }
        used |= 1u << c;
    }
    if (g && g->smi) {
        /* SMIs received, counted from 0 in all rings like the group's events. */
        static const struct pmu_event smi_rx = { .name = "SMI_RECEIVED", .event = AMD_SMI_RX_EVENT,
                                                 .ctr = -1 };
        uint32_t ctl = ops->ctl_msr(d, g->smi_counter);
        struct pmu_write_fault fault;
        off(s, ctl);
        if (wrmsr(s, ops->ctr_msr(d, g->smi_counter), 0, &fault) &&
            wrmsr(s, ctl, ops->encode(&smi_rx), &fault))
            used |= 1u << g->smi_counter;
        else {
            off(s, ctl);
            res->smi_failed = true;
        }
    }
    /*
     * Fixed counters that cannot be switched off do no harm when they are
     * not asked for: the global control leaves them disabled and nothing
     * reads them.
     */
    bool topdown = g && g->n_topdown > 0 && is_intel(s), metrics = false;
    for (unsigned k = 0; topdown && k < g->n_topdown; k++)
        metrics |= events[g->topdown_index[k]].topdown == TOPDOWN_METRIC;
    uint32_t want = (fixed ? PMU_FIXED_ARCH : 0) | (topdown ? 1u << FIXED_SLOTS : 0);
    if (ops->program_fixed(s->p, d, want, &res->fixed_fault) != NB_OK && want) {
        res->fixed_failed = fixed;
        res->topdown_failed = topdown;
        off(s, MSR_IA32_FIXED_CTR_CTRL);
        want = 0;
        metrics = false;
    }
    set_tfa(s, used);
    if (global) {
        if (!clear_global_status(s, &res->group_fault) ||
            !wrmsr(s, ops->global_ctrl_msr, ops->global_enable(d, used, want, metrics),
                   &res->group_fault)) {
            res->group_failed = true;
            undo_group(s, events, g);
            return false;
        }
        res->global_value = ops->global_enable(d, used, want, metrics);
    }
    return true;
}

size_t pmu_group_reads(const struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed, struct counter_read *out)
{
    size_t n = 0;
    out[n++] = (struct counter_read){ READ_TSC, 0, "RDTSC", 64, 0, 0 };
    if (fixed && !s->last.fixed_failed)
        n += s->ops->fixed_reads(s->d, out + n);
    for (unsigned k = 0; g && k < g->n && n < NB_MAX_COUNTERS; k++) {
        if (s->last.skipped[k])
            continue;
        /* A merged pair: "reading the even counter ... returns the full 64-bit value" (PPR). */
        const struct pmu_event *ev = &events[g->event_index[k]];
        out[n++] = (struct counter_read){ READ_PMC, g->counter[k], ev->name,
                                          ev->merge ? AMD_MERGED_WIDTH : s->d->gp_width, 0, 0 };
    }
    if (!g || g->n_topdown == 0 || s->last.topdown_failed || n + 1 + g->n_topdown > NB_MAX_COUNTERS)
        return n;
    /* TOPDOWN.SLOTS first: every IA32_PERF_METRICS field is a fraction of it. */
    size_t slots = n;
    const char *slots_name = "TOPDOWN.SLOTS";
    for (unsigned k = 0; k < g->n_topdown; k++) {
        if (events[g->topdown_index[k]].topdown == TOPDOWN_SLOTS)
            slots_name = events[g->topdown_index[k]].name;
    }
    out[n++] = (struct counter_read){ READ_PMC, RDPMC_FIXED | FIXED_SLOTS, slots_name, s->d->fixed_width, 0, 0 };
    for (unsigned k = 0; k < g->n_topdown; k++) {
        const struct pmu_event *ev = &events[g->topdown_index[k]];
        if (ev->topdown == TOPDOWN_SLOTS)
            continue; /* the read above */
        out[n++] = (struct counter_read){ READ_PMC, RDPMC_METRICS, ev->name, 0,
                                          (uint8_t)(ev->umask - TOPDOWN_METRIC_UMASK + 1),
                                          (uint8_t)slots };
    }
    return n;
}

uint64_t counter_metric_slots(uint64_t slots, uint64_t metrics, unsigned field)
{
    return (uint64_t)((unsigned __int128)slots * PERF_METRICS_FIELD(metrics, field) / PERF_METRICS_FULL);
}

/* The full-width alias of an Intel IA32_PMCx, or 0 (SDM vol. 3B 20.2.6). */
static uint32_t full_width_alias(const struct pmu_session *s, uint32_t msr)
{
    if (!is_intel(s) || !s->d->full_width_writes)
        return 0;
    if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + PMU_MAX_GP &&
        (pmu_gp_mask(s->d) & (1u << (msr - MSR_IA32_PMC0))))
        return MSR_IA32_A_PMC0 + (msr - MSR_IA32_PMC0);
    return 0;
}

unsigned pmu_session_end(struct pmu_session *s)
{
    unsigned failed = 0;
    if (s->ops->has_global(s->d))
        off(s, s->ops->global_ctrl_msr);
    if (s->tfa && s->tfa_now != s->tfa_saved)
        failed += s->p->write_msr(s->p->ctx, MSR_TSX_FORCE_ABORT, s->tfa_saved) != NB_OK;
    s->tfa_now = s->tfa_saved;
    for (size_t i = s->n_saved; i-- > 0;) {
        uint32_t msr = s->saved[i].msr, alias = full_width_alias(s, msr);
        if (s->p->write_msr(s->p->ctx, alias ? alias : msr, s->saved[i].value) != NB_OK)
            failed++;
    }
    s->n_saved = 0;
    return failed;
}

const char *pmu_msr_name(const struct pmu_desc *d, uint32_t msr, char *buf, size_t cap)
{
    const struct pmu_ops *ops = pmu_ops_for(d->vendor);
    static const char *const aux_names[AUX_COUNT] = { "MSR_OFFCORE_RSP_0", "MSR_OFFCORE_RSP_1",
                                                      "MSR_PEBS_LD_LAT_THRESHOLD", "MSR_PEBS_FRONTEND" };
    bool intel = d->vendor == VENDOR_INTEL;
    for (unsigned i = 0; ops && i < PMU_MAX_GP; i++) {
        if (!(pmu_gp_mask(d) & (1u << i)))
            continue;
        if (msr == ops->ctl_msr(d, i))
            return nb_snprintf(buf, cap, intel ? "IA32_PERFEVTSEL%u" : "PERF_CTL%u", i), buf;
        if (msr == ops->ctr_msr(d, i))
            return nb_snprintf(buf, cap, intel ? "IA32_PMC%u" : "PERF_CTR%u", i), buf;
    }
    if (intel) {
        for (int a = 0; a < AUX_COUNT; a++) {
            if (msr == AUX_MSR[a])
                return aux_names[a];
        }
        if (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + PMU_MAX_FIXED)
            return nb_snprintf(buf, cap, "IA32_FIXED_CTR%u", msr - MSR_IA32_FIXED_CTR0), buf;
        switch (msr) {
        case MSR_IA32_FIXED_CTR_CTRL: return "IA32_FIXED_CTR_CTRL";
        case MSR_IA32_PERF_GLOBAL_CTRL: return "IA32_PERF_GLOBAL_CTRL";
        case MSR_IA32_PERF_GLOBAL_STATUS_RESET:
            return d->version >= 4 ? "IA32_PERF_GLOBAL_STATUS_RESET" : "IA32_PERF_GLOBAL_OVF_CTRL";
        default: break;
        }
    } else if (msr == MSR_AMD_PERF_CNTR_GLOBAL_CTL) {
        return "PerfCntrGlobalCtl";
    } else if (msr == MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR) {
        return "PerfCntrGlobalStatusClr";
    }
    return "MSR";
}
