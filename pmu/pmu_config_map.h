/*
 * pmu_config_map.h — which event config belongs to which processor.
 *
 * configs/cpu_map.txt, one processor model per line:
 *     VENDOR FAMILY MODEL PREFIX [PREFIX_ECORE]
 * VENDOR is `intel` or `amd`; FAMILY and MODEL are the display values
 * (decimal or 0x-hex); the config is configs/cfg_PREFIX_common.txt. On hybrid
 * parts the second prefix is used on E-cores (CPUID.1AH core type 20H).
 * '#' starts a comment line.
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

#endif
