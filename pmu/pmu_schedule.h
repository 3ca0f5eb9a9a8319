/*
 * pmu_schedule.h — puts events into counter groups when there are more
 * events than general-purpose counters. Each group is measured by its own
 * runs of the benchmark (no multiplexing), so fewer groups mean fewer runs.
 *
 * Constraints: `.CTR=n` pins an event to counter n; `.TakenAlone` events get
 * a group of their own; each auxiliary MSR (offcore RSP0/RSP1, 3F6H, PF) can
 * hold one value per group, so events needing different values are split.
 * Events with a pinned counter are placed first, then the rest first-fit.
 */
#ifndef PMU_SCHEDULE_H
#define PMU_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"
#include "pmu_event.h"

struct pmu_group {
    unsigned n;                        /* events in this group */
    unsigned event_index[PMU_MAX_GP];  /* into the events array, in config order */
    unsigned counter[PMU_MAX_GP];      /* counter of each event */
    bool alone;                        /* holds a .TakenAlone event */
    uint64_t aux[AUX_COUNT];
    bool has_aux[AUX_COUNT];
};

/*
 * Schedules events[0..n) on n_gp counters into groups[] (room for n groups).
 * Returns the number of groups; 0 when there are no events.
 */
size_t pmu_schedule(const struct pmu_event *events, size_t n, unsigned n_gp,
                    struct pmu_group *groups);

#endif
