/*
 * pmu_arch_events.c — built-in fallback configs (see pmu_arch_events.h).
 */
#include "pmu_arch_events.h"

static const char INTEL_ARCH[] =
    "3C.00 CORE_CYCLES\n"
    "C0.00 INST_RETIRED\n"
    "3C.01 REF_CYCLES\n"
    "2E.4F LLC_REFERENCES\n"
    "2E.41 LLC_MISSES\n"
    "C4.00 BR_INST_RETIRED\n"
    "C5.00 BR_MISP_RETIRED\n";

static const char AMD_COMMON[] =
    "076.00 CYCLES_NOT_IN_HALT\n"
    "0C0.00 RETIRED_INSTRUCTIONS\n"
    "0C1.00 RETIRED_UOPS\n"
    "0C2.00 RETIRED_BRANCH_INSTRUCTIONS\n"
    "0C3.00 RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED\n";

const char *pmu_arch_events(enum cpu_vendor vendor)
{
    switch (vendor) {
    case VENDOR_INTEL: return INTEL_ARCH;
    case VENDOR_AMD: return AMD_COMMON;
    default: return "";
    }
}
