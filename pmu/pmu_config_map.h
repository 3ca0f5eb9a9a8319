/*
 * pmu_config_map.h — which event config belongs to which processor.
 *
 * configs/cpu_map.txt, one processor model per line:
 *     VENDOR FAMILY MODEL PREFIX [PREFIX_ECORE]
 * VENDOR is `intel` or `amd`; FAMILY and MODEL are the display values
 * (decimal or 0x-hex); the config is configs/cfg_PREFIX_common.txt. On hybrid
 * parts the second prefix is used on E-cores (CPUID.1AH core type 20H).
 * '#' starts a comment line.
 *
 * A model the map does not list, of a family it does list, gets the config of the
 * nearest listed model number of that family (ties: the higher, newer one): Intel and
 * AMD number models within a family roughly in release order, so that is usually the
 * same or an adjacent core generation. The caller says so with a warning.
 */
#ifndef PMU_CONFIG_MAP_H
#define PMU_CONFIG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

/*
 * Looks the processor up in map text; on a match writes
 * "configs/cfg_PREFIX_common.txt" to out and returns true.
 */
bool pmu_config_map_lookup(const char *text, size_t len, enum cpu_vendor vendor, uint32_t family,
                           uint32_t model, unsigned core_type, char *out, size_t cap);

enum config_match {
    CONFIG_MATCH_NONE,    /* no line of this vendor and family */
    CONFIG_MATCH_EXACT,   /* the processor's own line */
    CONFIG_MATCH_CLOSEST, /* the nearest listed model of the same family */
};

struct config_choice {
    char path[96];  /* "configs/cfg_PREFIX_common.txt" */
    uint32_t model; /* the model of the line that chose it */
    bool ecore;     /* the line's E-core prefix was taken */
};

/* Which config, and why (see above). */
enum config_match pmu_config_map_choose(const char *text, size_t len, enum cpu_vendor vendor,
                                        uint32_t family, uint32_t model, unsigned core_type,
                                        struct config_choice *out);

#endif
