/*
 * pmu_event.h — nanoBench's performance-counter config format:
 *
 *   EvtSel.UMASK(.CMSK=n)(.AnyT)(.EDG)(.INV)(.TakenAlone)(.CTR=n)
 *       (.MSR_3F6H=x)(.MSR_PF=x)(.MSR_RSP0=x)(.MSR_RSP1=x) Name
 *
 * EvtSel and UMASK are hex (2 digits for Intel, 3 for AMD's 12-bit event
 * codes); CMSK and CTR decimal or 0x-hex; MSR values hex. '#' lines and
 * blank lines are ignored. A bad line is reported (file line and reason)
 * and skipped; the other events are still measured.
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

#define PMU_EVENT_NAME_MAX 80
#define PMU_MAX_EVENTS 1024

/* Auxiliary MSRs an event may need (at most one value of each per counter group). */
enum pmu_aux {
    AUX_RSP0 = 0, /* MSR_OFFCORE_RSP_0 */
    AUX_RSP1,     /* MSR_OFFCORE_RSP_1 */
    AUX_3F6H,     /* MSR_PEBS_LD_LAT_THRESHOLD */
    AUX_PF,       /* MSR_PEBS_FRONTEND */
    AUX_COUNT
};

struct pmu_event {
    char name[PMU_EVENT_NAME_MAX];
    uint16_t event; /* 8 bits on Intel, 12 on AMD */
    uint8_t umask;
    uint8_t cmask;
    bool any, edge, inv, taken_alone;
    int ctr;         /* required counter, or -1 */
    uint64_t aux[AUX_COUNT];
    bool has_aux[AUX_COUNT];
    unsigned line;   /* line in the config file */
};

/* Called for every bad line; the line is skipped. */
typedef void (*pmu_config_error_fn)(void *arg, unsigned line, const char *message);

/*
 * Parses config text for `vendor` with `n_counters` general-purpose counters
 * (for the .CTR check). Returns the number of events stored (at most max).
 */
size_t pmu_config_parse(const char *text, size_t len, enum cpu_vendor vendor, unsigned n_counters,
                        struct pmu_event *events, size_t max, pmu_config_error_fn on_error,
                        void *arg);

#endif
