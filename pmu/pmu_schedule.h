/*
 * pmu_schedule.h — puts events into counter groups when there are more
 * events than general-purpose counters. Each group is measured by its own
 * runs of the benchmark (no multiplexing), so fewer groups mean fewer runs.
 *
 * Constraints: each event may use the counters of its `.CTR=` set (all
 * counters when it has none; `.CTR=n` pins it to n); an AMD Large Increment
 * event (`merge`) needs an even counter and the odd one after it, which
 * holds the MergeEvent and nothing else; `.TakenAlone` events get
 * a group of their own; each auxiliary MSR (offcore RSP0/RSP1, 3F6H, PF) can
 * hold one value per group, so events needing different values are split.
 *
 * Algorithm: events are placed most-constrained first (fewest allowed
 * counters, then config order), each into the first group where it fits.
 * "Fits" is decided by a bipartite matching of the group's events to
 * counters (augmenting paths, Kuhn), so an event is refused only when no
 * assignment of the whole group to allowed counters exists — never because
 * an unconstrained event happened to take the one counter it needs. The
 * matching visits events most-constrained first and counters from 0 up, so
 * constrained events get their lowest counters and the rest fill in. The
 * number of groups is that of this greedy placement: not proven minimal
 * (that is bin packing), but no group is opened while an existing one can
 * take the event.
 */
#ifndef PMU_SCHEDULE_H
#define PMU_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"
#include "pmu_event.h"

#define PMU_TOPDOWN_MAX 9 /* TOPDOWN.SLOTS and the 8 IA32_PERF_METRICS fields */

struct pmu_group {
    unsigned n;                        /* events in this group */
    unsigned event_index[PMU_MAX_GP];  /* into the events array, in config order */
    unsigned counter[PMU_MAX_GP];      /* counter of each event */
    bool alone;                        /* holds a .TakenAlone event */
    /*
     * AMD SMI count (pmu_msrs.h AMD_SMI_RX_EVENT): set by the caller, not the
     * scheduler, on a counter the group leaves free; programmed with the group.
     */
    bool smi;
    unsigned smi_counter;
    /*
     * Top-down pseudo events (pmu_event.h: TOPDOWN.SLOTS, IA32_PERF_METRICS
     * fields), counted by fixed counter 3 and read from one snapshot: all of
     * a config's go into one group (the first without a .TakenAlone event).
     */
    unsigned n_topdown;
    unsigned topdown_index[PMU_TOPDOWN_MAX];
    uint64_t aux[AUX_COUNT];
    bool has_aux[AUX_COUNT];
};

/* The counters `ev` may use among `gp_mask` (0 when none of them, and for top-down pseudo events). */
uint32_t pmu_event_counters(const struct pmu_event *ev, uint32_t gp_mask);

/*
 * The even counters of `gp_mask` whose odd neighbour is in it too: where an
 * AMD Large Increment event (pmu_event.h `merge`) may run, with the
 * MergeEvent on the odd one.
 */
uint32_t pmu_merge_pairs(uint32_t gp_mask);

/* The lowest `n` counters of `gp_mask` (what -no_mem leaves room to read). */
uint32_t pmu_lowest_counters(uint32_t gp_mask, unsigned n);

/*
 * Schedules events[0..n) on the counters of `gp_mask` (bit i = counter i;
 * counters from PMU_MAX_GP on are not used) into groups[] (room for n
 * groups). An event none of whose counters is in gp_mask is left out (the
 * parser rejects those; -no_mem can leave fewer counters). Returns the number
 * of groups; 0 when there are no events or no counters.
 */
size_t pmu_schedule(const struct pmu_event *events, size_t n, uint32_t gp_mask,
                    struct pmu_group *groups);

#endif
