/*
 * pmu_schedule.c — counter-group scheduling (see pmu_schedule.h).
 */
#include "pmu_schedule.h"
#include "nb_text.h"

static bool counter_free(const struct pmu_group *g, unsigned counter)
{
    for (unsigned i = 0; i < g->n; i++) {
        if (g->counter[i] == counter)
            return false;
    }
    return true;
}

static bool aux_compatible(const struct pmu_group *g, const struct pmu_event *ev)
{
    for (int a = 0; a < AUX_COUNT; a++) {
        if (ev->has_aux[a] && g->has_aux[a] && g->aux[a] != ev->aux[a])
            return false;
    }
    return true;
}

/* The counter `ev` would take in `g`, or -1. */
static int pick_counter(const struct pmu_group *g, const struct pmu_event *ev, unsigned n_gp)
{
    if (g->alone || (ev->taken_alone && g->n > 0) || !aux_compatible(g, ev))
        return -1;
    if (ev->ctr >= 0)
        return ((unsigned)ev->ctr < n_gp && counter_free(g, (unsigned)ev->ctr)) ? ev->ctr : -1;
    for (unsigned c = 0; c < n_gp; c++) {
        if (counter_free(g, c))
            return (int)c;
    }
    return -1;
}

static void place(struct pmu_group *g, const struct pmu_event *ev, unsigned index, unsigned counter)
{
    /* Keep the group's events in config order (the report prints in that order). */
    unsigned at = g->n;
    while (at > 0 && g->event_index[at - 1] > index) {
        g->event_index[at] = g->event_index[at - 1];
        g->counter[at] = g->counter[at - 1];
        at--;
    }
    g->event_index[at] = index;
    g->counter[at] = counter;
    g->n++;
    g->alone |= ev->taken_alone;
    for (int a = 0; a < AUX_COUNT; a++) {
        if (ev->has_aux[a]) {
            g->has_aux[a] = true;
            g->aux[a] = ev->aux[a];
        }
    }
}

size_t pmu_schedule(const struct pmu_event *events, size_t n, unsigned n_gp,
                    struct pmu_group *groups)
{
    size_t n_groups = 0;
    if (n_gp == 0)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const struct pmu_event *ev = &events[i];
            bool pinned = ev->ctr >= 0;
            if (pinned != (pass == 0))
                continue;
            if (pinned && (unsigned)ev->ctr >= n_gp)
                continue; /* the parser rejects these; never schedule them */
            size_t g = 0;
            int counter = -1;
            for (; g < n_groups; g++) {
                if ((counter = pick_counter(&groups[g], ev, n_gp)) >= 0)
                    break;
            }
            if (g == n_groups) {
                nb_memset(&groups[g], 0, sizeof(groups[g]));
                n_groups++;
                counter = pick_counter(&groups[g], ev, n_gp);
            }
            place(&groups[g], ev, (unsigned)i, (unsigned)counter);
        }
    }
    return n_groups;
}
