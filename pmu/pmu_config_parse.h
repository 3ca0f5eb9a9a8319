/*
 * pmu_config_parse.h — reads a counter config file (the format of
 * pmu_event.h: one event per line, with its modifiers) into struct pmu_event
 * for one PMU, applying the vendor's counter rules (pmu_ctr_rules.h).
 */
#ifndef PMU_CONFIG_PARSE_H
#define PMU_CONFIG_PARSE_H

#include <stddef.h>

#include "pmu.h"
#include "pmu_event.h"

/*
 * Parses config text for the PMU `d` (vendor, counter bitmap, AnyThread
 * deprecation). Returns the number of events stored (at most max).
 */
size_t pmu_config_parse(const char *text, size_t len, const struct pmu_desc *d,
                        struct pmu_event *events, size_t max, pmu_config_error_fn on_error,
                        void *arg);

#endif
