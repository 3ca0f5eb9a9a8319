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

struct pmu_session {
    const struct nb_platform *p;
    const struct pmu_desc *d;
    const struct pmu_ops *ops;
    size_t n_saved;
    struct {
        uint32_t msr;
        uint64_t value;
    } saved[PMU_SESSION_MAX_SAVED];
};

void pmu_session_begin(struct pmu_session *s, const struct nb_platform *p, const struct pmu_desc *d);
/* Programs one group (and the fixed counters when `fixed`); counters start at 0. */
void pmu_program_group(struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed);
/*
 * What the generated code reads for this group: RDTSC first, then the fixed
 * counters (when `fixed`), then the group's events in config order.
 * Returns the number of reads written to out (room for NB_MAX_COUNTERS).
 */
size_t pmu_group_reads(const struct pmu_session *s, const struct pmu_event *events,
                       const struct pmu_group *g, bool fixed, struct counter_read *out);
/* Stops the counters and writes every saved MSR back. */
void pmu_session_end(struct pmu_session *s);

#endif
