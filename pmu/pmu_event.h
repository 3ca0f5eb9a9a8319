/*
 * pmu_event.h — nanoBench's performance-counter config format:
 *
 *   EvtSel.UMASK(.CMSK=n)(.AnyT)(.EDG)(.INV)(.TakenAlone)(.CTR=set)
 *       (.MSR_3F6H=x)(.MSR_PF=x)(.MSR_RSP0=x)(.MSR_RSP1=x) Name
 *
 * EvtSel and UMASK are hex (2 digits for Intel, 3 for AMD's 12-bit event
 * codes); CMSK decimal or 0x-hex; MSR values hex. '#' lines and blank lines
 * are ignored. A bad line is reported (file line and reason) and skipped;
 * the other events are still measured.
 *
 * `.CTR=` takes a set of general-purpose counters the event may use:
 * `.CTR=n` (nanoBench's meaning: pinned to counter n), `.CTR=0-3`,
 * `.CTR=0,1,2,3`, or a mix `.CTR=0-1,4` (decimal numbers, ascending or not,
 * no spaces). A single number beyond this CPU's counters is an error; a set
 * with more than one counter is cut to the counters this CPU has, and is an
 * error only when none of them remains (configs list the counters of the
 * largest part, e.g. 0-7 for Skylake without Hyper-Threading, and stay
 * usable on the 4-counter part).
 *
 * The parser knows the PMU (struct pmu_desc): which counters exist, the
 * vendor (AMD has no AnyThread bit and none of the auxiliary MSRs) and
 * whether AnyThread is deprecated (Intel perfmon v5+, CPUID.0AH:EDX[15]).
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

/*
 * Intel top-down pseudo events (Ice Lake and later P-cores), in the
 * encodings of Intel's event lists and Linux's sysfs events: `00.04`
 * TOPDOWN.SLOTS counts on fixed counter 3 (IA32_FIXED_CTR3); `00.80`-`00.83`
 * (Linux INTEL_TD_METRIC_RETIRING 0x8000 ... BE_BOUND 0x8300: event 00H,
 * umask 80H + field) are the level-1 fields of IA32_PERF_METRICS and
 * `00.84`-`00.87` (HEAVY_OPS 0x8400 ... MEM_BOUND 0x8700) its level-2 fields
 * (Golden Cove and later P-cores, METRICS-FACTS 2b), reported as slots
 * (slots x field / 0xFF, Linux icl_get_metrics_event_value). None takes a
 * general-purpose counter.
 */
enum pmu_topdown {
    TOPDOWN_NONE = 0,
    TOPDOWN_SLOTS,  /* fixed counter 3 */
    TOPDOWN_METRIC, /* IA32_PERF_METRICS field `umask - TOPDOWN_METRIC_UMASK` */
};
#define TOPDOWN_SLOTS_UMASK 0x04u
#define TOPDOWN_METRIC_UMASK 0x80u

struct pmu_event {
    char name[PMU_EVENT_NAME_MAX];
    uint8_t topdown; /* enum pmu_topdown */
    /*
     * AMD Large Increment per Cycle event (PPR "Large Increment per Cycle
     * Events"): it may add more than 15 per cycle, so it runs on an even
     * counter 2n with the MergeEvent (event FFFH) on counter 2n+1, and the
     * even counter then reads the pair's 64-bit count. Like Linux
     * (amd_is_pair_event_code, family 17h and later) only event 003H,
     * Retired SSE/AVX FLOPs.
     */
    bool merge;
    uint16_t event; /* 8 bits on Intel, 12 on AMD */
    uint8_t umask;
    uint8_t cmask;
    bool any, edge, inv, taken_alone;
    int ctr;         /* `.CTR=n` with a single number: the pinned counter; else -1 */
    uint32_t ctr_mask; /* counters the event may use (bit i = counter i); 0 = any */
    uint64_t aux[AUX_COUNT];
    bool has_aux[AUX_COUNT];
    unsigned line;   /* line in the config file */
};

/* Called for every bad line; the line is skipped. */
typedef void (*pmu_config_error_fn)(void *arg, unsigned line, const char *message);

/*
 * Reads a counter set as `.CTR=` spells it ("2", "0-3", "0,1", "0-1,4"; counters
 * 0..31) into *mask; *single when it is one number. False when malformed.
 */
bool pmu_counter_set_parse(const char *text, uint32_t *mask, bool *single);

/* Writes a counter set as the config format spells it ("0-3", "0,2,4-5"); returns the length. */
size_t pmu_counter_set_format(uint32_t mask, char *out, size_t cap);

#endif
