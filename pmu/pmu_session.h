/*
 * pmu_session.h — programs counter groups and leaves the counters as found.
 *
 * pmu_session_begin reads every MSR the session may write (control and
 * counter registers, global and fixed control, auxiliary MSRs) so that
 * pmu_session_end can write the original values back: the machine's counter
 * state after the suite is what it was before.
 */
#ifndef PMU_SESSION_H
#define PMU_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "counter_read.h"
#include "pmu.h"
#include "pmu_schedule.h"

#define PMU_SESSION_MAX_SAVED 64

/*
 * What the last pmu_program_group could not program. Every write is
 * checked: a rejected write (#GP) changes nothing on the processor, and what
 * it leaves half-programmed is switched off again.
 */
struct pmu_program_result {
    /* The global control (or the status clear) faulted: nothing of the group counts. */
    bool group_failed;
    struct pmu_write_fault group_fault;
    /* A fixed-counter write faulted: the fixed counters are off and not read. */
    bool fixed_failed;
    struct pmu_write_fault fixed_fault;
    /*
     * Fixed counter 3 / IA32_PERF_METRICS could not be programmed (the same
     * fixed-counter write as fixed_fault): the top-down events are not read.
     */
    bool topdown_failed;
    /* The group's SMI counter (pmu_group.smi) could not be programmed: no SMI check for it. */
    bool smi_failed;
    /* The value the group's IA32_PERF_GLOBAL_CTRL / PerfCntrGlobalCtl write enabled (0: none). */
    uint64_t global_value;
    /* Per slot k of the group: its control, counter or auxiliary MSR write faulted. */
    bool skipped[PMU_MAX_GP];
    struct pmu_write_fault skip_fault[PMU_MAX_GP];
};

struct pmu_session {
    const struct nb_platform *p;
    const struct pmu_desc *d;
    const struct pmu_ops *ops;
    size_t n_saved;
    struct {
        uint32_t msr;
        uint64_t value;
    } saved[PMU_SESSION_MAX_SAVED];
    struct pmu_program_result last; /* of the last pmu_program_group */
    /* TSX force-abort (pmu_msrs.h): the value found, and what is written now. */
    bool tfa;           /* RTM_FORCE_ABORT can be set: PMC3 is ours while a group uses it */
    bool tfa_failed;    /* the MSR exists but the write faulted: PMC3 stays with the microcode */
    uint64_t tfa_saved, tfa_now;
};

/*
 * Saves the state pmu_session_end restores. With TSX force-abort
 * (d->tsx_force_abort) it also checks that RTM_FORCE_ABORT can be set
 * (s->tfa, or s->tfa_failed: the caller keeps events off PMC3).
 */
void pmu_session_begin(struct pmu_session *s, const struct nb_platform *p, const struct pmu_desc *d);
/*
 * Programs one group (and the fixed counters when `fixed`); counters start
 * at 0 with the overflow and freeze bits of the global status cleared.
 * Returns false when nothing of the group counts (s->last says why, and
 * which events or fixed counters were skipped).
 */
bool pmu_program_group(struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed);
/*
 * What the generated code reads for the group just programmed: RDTSC first,
 * then the fixed counters (when `fixed` and they were programmed), then the
 * group's events in config order, leaving out those s->last skipped, then
 * its top-down events: TOPDOWN.SLOTS (fixed counter 3) first, read even
 * when the config does not name it if a IA32_PERF_METRICS field needs it
 * (named "TOPDOWN.SLOTS"), then the group's top-down events in order.
 * Returns the number of reads written to out (room for NB_MAX_COUNTERS).
 */
size_t pmu_group_reads(const struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed, struct counter_read *out);
/*
 * Stops the counters and writes every saved MSR back. Counter values go
 * through IA32_A_PMCx when full-width writes exist; otherwise the legacy
 * alias keeps only bits 31:0 sign-extended, so a saved count with other
 * high bits cannot be restored exactly. Returns the number of MSRs that
 * could not be restored (rejected writes).
 */
unsigned pmu_session_end(struct pmu_session *s);

/* The SDM/APM name of a PMU MSR for messages ("IA32_PERFEVTSEL1", "PERF_CTL2"), or "MSR". */
const char *pmu_msr_name(const struct pmu_desc *d, uint32_t msr, char *buf, size_t cap);

#endif
