/*
 * pmu_config_map.h — which event config belongs to which processor.
 *
 * configs/cpu_map.txt, one processor model per line:
 *     VENDOR FAMILY MODEL PREFIX [PREFIX_ECORE] [stepping=FIRST-LAST] [native=ID]
 * VENDOR is `intel` or `amd`; FAMILY and MODEL are the display values
 * (decimal or 0x-hex); the config is configs/cfg_PREFIX_common.txt. On hybrid
 * parts the second prefix is used on E-cores (CPUID.1AH core type 20H).
 * '#' starts a comment line.
 *
 * A line with qualifiers applies only to a processor that satisfies all of them:
 * stepping= (CPUID.1:EAX[3:0] in FIRST-LAST, or one number) and native= (the native
 * model ID of CPUID.1AH:EAX[23:0]), as Intel's perfmon mapfile tells Cascade Lake
 * (6-55 steppings 5-F) from Skylake-SP, and the low-power E-cores of 6-C5 from its
 * others. Of the lines of the processor's model that apply, the one with the most
 * qualifiers wins; an unknown qualifier, or an unknown stepping or native model ID
 * (-1 / 0) of the processor, makes the line not apply.
 *
 * Only the processor's own line counts: a model the map does not list gets no
 * config, even when its family is listed. Intel model numbers are not ordered
 * by microarchitecture (Panther Lake 0xCC and Clearwater Forest 0xDD sit next
 * to Emerald Rapids 0xCF), so a neighbour's events would give plausible, wrong
 * numbers; the caller measures the architectural events instead and says so.
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
    CONFIG_MATCH_NONE,          /* no line of this vendor and family */
    CONFIG_MATCH_EXACT,         /* the processor's own line */
    CONFIG_MATCH_UNKNOWN_MODEL, /* the family is listed, this model is not: no config */
};

struct config_choice {
    char path[96];   /* "configs/cfg_PREFIX_common.txt"; "" without an exact line */
    char prefix[48]; /* PREFIX (the E-core one on E-cores); "" without an exact line */
    uint32_t model;  /* the model of the line that chose it */
    bool ecore;     /* the line's E-core prefix was taken */
};

/* Which config, and why (see above), without stepping or native model ID. */
enum config_match pmu_config_map_choose(const char *text, size_t len, enum cpu_vendor vendor,
                                        uint32_t family, uint32_t model, unsigned core_type,
                                        struct config_choice *out);

/* The processor as cpu_map.txt's lines describe it. */
struct config_cpu {
    enum cpu_vendor vendor;
    uint32_t family, model;
    int stepping;          /* CPUID.1:EAX[3:0], -1 unknown */
    unsigned core_type;    /* CPUID.1AH:EAX[31:24], 0 if not hybrid */
    uint32_t native_model; /* CPUID.1AH:EAX[23:0], 0 unknown */
};

/* Which config, and why, with the stepping= and native= qualifiers (see above). */
enum config_match pmu_config_map_choose_cpu(const char *text, size_t len, const struct config_cpu *cpu,
                                            struct config_choice *out);

#endif
