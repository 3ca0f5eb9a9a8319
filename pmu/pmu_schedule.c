/*
 * pmu_schedule.c — counter-group scheduling (see pmu_schedule.h).
 */
#include "pmu_schedule.h"
#include "nb_text.h"

#define MAX_COUNTERS 32

uint32_t pmu_event_counters(const struct pmu_event *ev, uint32_t gp_mask)
{
    gp_mask &= pmu_low_bits(PMU_MAX_GP);
    if (ev->topdown)
        return 0; /* fixed counter 3 and IA32_PERF_METRICS (see place_topdown) */
    if (ev->merge)
        gp_mask &= pmu_merge_pairs(gp_mask);
    return ev->ctr_mask ? ev->ctr_mask & gp_mask : gp_mask;
}

/*
 * The even counters 2n whose odd partner 2n+1 is usable too: where a Large
 * Increment event may go (Linux amd_core_pmu_init builds the same
 * even_ctr_mask for its pair_constraint).
 */
uint32_t pmu_merge_pairs(uint32_t gp_mask)
{
    return gp_mask & (gp_mask >> 1) & 0x55555555u;
}

static unsigned popcount(uint32_t v)
{
    return (unsigned)__builtin_popcount(v);
}

uint32_t pmu_lowest_counters(uint32_t gp_mask, unsigned n)
{
    uint32_t kept = 0;
    for (; gp_mask && n; n--) {
        kept |= gp_mask & -gp_mask;
        gp_mask &= gp_mask - 1;
    }
    return kept;
}

static bool aux_compatible(const struct pmu_group *g, const struct pmu_event *ev)
{
    for (int a = 0; a < AUX_COUNT; a++) {
        if (ev->has_aux[a] && g->has_aux[a] && g->aux[a] != ev->aux[a])
            return false;
    }
    return true;
}

/* A group's events being matched to counters. */
struct matching {
    unsigned n;
    unsigned index[PMU_MAX_GP];    /* event index, most constrained first */
    uint32_t allowed[PMU_MAX_GP];
    bool merge[PMU_MAX_GP];        /* takes its counter and the next one (AMD MergeEvent) */
    int counter[PMU_MAX_GP];
    int owner[MAX_COUNTERS];       /* which member holds each counter, FREE, or PAIRED */
};
#define FREE (-1)
#define PAIRED (-2) /* held by a merge member's pair: never moved by an augmenting path */

/*
 * Kuhn's augmenting path: finds member m a counter, its lowest free allowed
 * one if there is any, else by moving another member elsewhere.
 */
static bool augment(struct matching *mt, unsigned m, uint32_t *visited)
{
    uint32_t free_allowed = 0;
    for (unsigned c = 0; c < MAX_COUNTERS; c++) {
        if (mt->owner[c] == FREE)
            free_allowed |= 1u << c;
    }
    free_allowed &= mt->allowed[m];
    if (free_allowed) {
        unsigned c = (unsigned)__builtin_ctz(free_allowed);
        *visited |= 1u << c;
        mt->owner[c] = (int)m;
        mt->counter[m] = (int)c;
        return true;
    }
    for (unsigned c = 0; c < MAX_COUNTERS; c++) {
        uint32_t bit = 1u << c;
        /* A merge member's pair is placed by place_merges and stays. */
        if (!(mt->allowed[m] & bit) || (*visited & bit) || mt->owner[c] == PAIRED ||
            mt->merge[mt->owner[c]])
            continue;
        *visited |= bit;
        if (augment(mt, (unsigned)mt->owner[c], visited)) {
            mt->owner[c] = (int)m;
            mt->counter[m] = (int)c;
            return true;
        }
    }
    return false;
}

/* Adds event `index` to the member list, keeping most-constrained-first order. */
static void add_member(struct matching *mt, unsigned index, uint32_t allowed, bool merge)
{
    unsigned at = mt->n;
    while (at > 0 && (popcount(mt->allowed[at - 1]) > popcount(allowed) ||
                      (popcount(mt->allowed[at - 1]) == popcount(allowed) && mt->index[at - 1] > index))) {
        mt->index[at] = mt->index[at - 1];
        mt->allowed[at] = mt->allowed[at - 1];
        mt->merge[at] = mt->merge[at - 1];
        at--;
    }
    mt->index[at] = index;
    mt->allowed[at] = allowed;
    mt->merge[at] = merge;
    mt->n++;
}

/* Kuhn's matching of the members that are not merge events, on the counters left. */
static bool match_singles(struct matching *mt)
{
    for (unsigned m = 0; m < mt->n; m++) {
        uint32_t visited = 0;
        if (!mt->merge[m] && !augment(mt, m, &visited))
            return false;
    }
    return true;
}

/*
 * Merge members take a pair each: every placement of them on distinct pairs
 * (lowest first) is tried until the others can be matched on what is left.
 * At most PMU_MAX_GP / 2 pairs, and AMD has 6 counters: 3 pairs.
 */
static bool place_merges(struct matching *mt, unsigned from)
{
    unsigned m = from;
    while (m < mt->n && !mt->merge[m])
        m++;
    if (m == mt->n) {
        struct matching trial = *mt;
        if (!match_singles(&trial))
            return false;
        *mt = trial;
        return true;
    }
    for (unsigned c = 0; c + 1 < MAX_COUNTERS; c += 2) {
        if (!(mt->allowed[m] & (1u << c)) || mt->owner[c] != FREE || mt->owner[c + 1] != FREE)
            continue;
        mt->owner[c] = (int)m;
        mt->owner[c + 1] = PAIRED;
        mt->counter[m] = (int)c;
        if (place_merges(mt, m + 1))
            return true;
        mt->owner[c] = FREE;
        mt->owner[c + 1] = FREE;
    }
    return false;
}

/*
 * Whether group g plus event `index` can all have counters; if so, writes
 * the group back with the new assignment (events in config order).
 */
static bool try_join(struct pmu_group *g, const struct pmu_event *events, unsigned index,
                     uint32_t gp_mask)
{
    const struct pmu_event *ev = &events[index];
    /* A merge event needs its counter and the next one. */
    unsigned taken = 1u + ev->merge;
    for (unsigned k = 0; k < g->n; k++)
        taken += 1u + events[g->event_index[k]].merge;
    if (g->alone || (ev->taken_alone && g->n > 0) || !aux_compatible(g, ev) ||
        g->n >= PMU_MAX_GP || taken > popcount(gp_mask & pmu_low_bits(PMU_MAX_GP)))
        return false;
    struct matching mt;
    mt.n = 0;
    uint32_t all = pmu_event_counters(ev, gp_mask);
    for (unsigned k = 0; k < g->n; k++) {
        const struct pmu_event *member = &events[g->event_index[k]];
        uint32_t allowed = pmu_event_counters(member, gp_mask);
        add_member(&mt, g->event_index[k], allowed, member->merge);
        all |= allowed;
    }
    add_member(&mt, index, pmu_event_counters(ev, gp_mask), ev->merge);
    if (popcount(all) < mt.n)
        return false; /* Hall's condition fails for the whole group */
    for (unsigned c = 0; c < MAX_COUNTERS; c++)
        mt.owner[c] = FREE;
    if (!place_merges(&mt, 0))
        return false;
    /* Write back in config order (the report prints in that order). */
    g->n = 0;
    for (unsigned m = 0; m < mt.n; m++) {
        unsigned at = g->n;
        while (at > 0 && g->event_index[at - 1] > mt.index[m]) {
            g->event_index[at] = g->event_index[at - 1];
            g->counter[at] = g->counter[at - 1];
            at--;
        }
        g->event_index[at] = mt.index[m];
        g->counter[at] = (unsigned)mt.counter[m];
        g->n++;
    }
    g->alone |= ev->taken_alone;
    for (int a = 0; a < AUX_COUNT; a++) {
        if (ev->has_aux[a]) {
            g->has_aux[a] = true;
            g->aux[a] = ev->aux[a];
        }
    }
    return true;
}

/*
 * Top-down pseudo events need no general-purpose counter; they share fixed
 * counter 3 and IA32_PERF_METRICS, whose fields are fractions of the same
 * slots, so they are measured together in the first group that is not
 * taken alone (a new one if there is none). More than PMU_TOPDOWN_MAX are
 * left out.
 */
static size_t place_topdown(const struct pmu_event *events, size_t n, struct pmu_group *groups,
                            size_t n_groups)
{
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (!events[i].topdown)
            continue;
        while (g < n_groups && groups[g].alone)
            g++;
        if (g == n_groups) {
            nb_memset(&groups[g], 0, sizeof(groups[g]));
            n_groups++;
        }
        if (groups[g].n_topdown < PMU_TOPDOWN_MAX)
            groups[g].topdown_index[groups[g].n_topdown++] = (unsigned)i;
    }
    return n_groups;
}

size_t pmu_schedule(const struct pmu_event *events, size_t n, uint32_t gp_mask,
                    struct pmu_group *groups)
{
    size_t n_groups = 0;
    gp_mask &= pmu_low_bits(PMU_MAX_GP);
    if (gp_mask == 0)
        return 0;
    /*
     * Most constrained first: for each number of allowed counters, from 1
     * up, the events with that many in config order (no sort buffer needed).
     */
    for (unsigned width = 1; width <= popcount(gp_mask); width++) {
        for (size_t i = 0; i < n; i++) {
            uint32_t allowed = pmu_event_counters(&events[i], gp_mask);
            if (popcount(allowed) != width)
                continue;
            size_t g = 0;
            while (g < n_groups && !try_join(&groups[g], events, (unsigned)i, gp_mask))
                g++;
            if (g == n_groups) {
                nb_memset(&groups[g], 0, sizeof(groups[g]));
                n_groups++;
                try_join(&groups[g], events, (unsigned)i, gp_mask); /* an empty group takes it */
            }
        }
    }
    return place_topdown(events, n, groups, n_groups);
}
