/*
 * pmu_ctr_rules.h — the counters an event may use on this processor, whatever
 * config the event comes from.
 *
 * The vendor's event lists say which general-purpose counters count an event
 * (Intel perfmon "Counter", e.g. MEM_LOAD_RETIRED.* on PMC0-3 of an 8-counter
 * Skylake; Linux keeps the same facts in arch/x86/events/intel/core.c event
 * constraint tables). nanoBench's own cfg files and users' files carry no
 * `.CTR=`, so the image reads these restrictions from a file generated from the
 * same tables as the configs, configs/ctr_<NAME>.txt (tools/configgen/gen_ctr.h
 * for the format), chosen by cpu_map.txt like the default config, and applies
 * them to every event it parses: a `.CTR=` set then narrows the allowed
 * counters further, never widens them.
 *
 * Lookup, most specific first: the line of the event's whole encoding (event,
 * unit mask, counter mask, AnyThread, edge, invert), then the EVENT.UMASK line,
 * then the EVENT line; no line: every counter.
 */
#ifndef PMU_CTR_RULES_H
#define PMU_CTR_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "pmu_event.h"

#define PMU_CTR_RULES_MAX 256
#define PMU_CTR_ALL 0xFFFFFFFFu

enum pmu_ctr_rule_kind {
    CTR_RULE_EVENT,    /* "EVENT SET": every unit mask no other line names */
    CTR_RULE_UMASK,    /* "EVENT.UMASK SET": its encodings no line names */
    CTR_RULE_ENCODING, /* "EVENT.UMASK.CMSK=n... SET": this encoding */
};

struct pmu_ctr_rule {
    uint16_t event;
    uint8_t umask, cmask;
    uint8_t kind; /* enum pmu_ctr_rule_kind */
    bool any, edge, inv;
    uint32_t mask; /* the counters it may use (bit i = counter i) */
};

struct pmu_ctr_rules {
    char path[64]; /* where they came from, for messages ("configs/ctr_Skylake.txt") */
    size_t n;
    struct pmu_ctr_rule rule[PMU_CTR_RULES_MAX];
};

/*
 * Parses a ctr_<NAME>.txt for `vendor` into *out (path kept for messages). A bad
 * line is reported through on_error and skipped. Returns the number of rules.
 */
size_t pmu_ctr_rules_parse(const char *text, size_t len, enum cpu_vendor vendor, const char *path,
                           struct pmu_ctr_rules *out, pmu_config_error_fn on_error, void *arg);

/* The counters the rules allow `ev`; PMU_CTR_ALL when no line names it (or rules is NULL). */
uint32_t pmu_ctr_rules_lookup(const struct pmu_ctr_rules *rules, const struct pmu_event *ev);

#endif
