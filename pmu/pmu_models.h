/*
 * pmu_models.h — what the PMUs of known processor models report, as a table
 * of facts with their sources. Two users:
 *
 *  - the image's detection (pmu_detect.c), for what CPUID cannot say: on
 *    hybrid parts without CPUID.23H, CPUID.0AH reports only the counters
 *    common to both core types, and the P-core has more (Linux does the same
 *    from its model table);
 *  - `-plan -plan_cpu`, which answers CPUID and IA32_PERF_CAPABILITIES from a
 *    row (pmu_model_cpuid) and runs the image's own detection on them, so the
 *    plan shows what the image would find and write on that model.
 *
 * Counts are per logical processor as CPUID.0AH reports them with the
 * firmware's defaults: Skylake-family parts report 4 general-purpose
 * counters with Hyper-Threading on (the default) and 8 with it off; the
 * table says 4 (`-plan_cpu intel:6:0x55:8` describes the HT-off machine).
 */
#ifndef PMU_MODELS_H
#define PMU_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"

struct pmu_model {
    const char *name;
    enum cpu_vendor vendor;
    uint32_t family, model;      /* display values, as cpu_map.txt */
    uint32_t model_last;         /* table rows: the row covers model..model_last (0: model only) */
    bool hybrid;                 /* P-cores and E-cores (CPUID.1AH core type) */
    /*
     * Alder Lake / Raptor Lake: CPUID.0AH reports the subset common to both
     * core types and the P-core has 2 more GP counters and 1 more fixed
     * (Linux adds them for these models only, intel_pmu_init ADL case).
     */
    bool p_core_beyond_0ah;
    /*
     * CPUID.23H subleaf 1 gives the counter bitmaps per core type
     * (Lunar Lake, Arrow Lake, Meteor Lake): P-core then E-core.
     */
    bool leaf_23h;
    uint32_t gp_mask_p, fixed_mask_p, gp_mask_e, fixed_mask_e;
    /*
     * Intel: CPUID's highest basic leaf, for the processors before
     * architectural perfmon version 2 (0: the table's default, leaf 1AH or 23H).
     */
    uint8_t max_leaf;
    /* Intel: CPUID.0AH as reported (on hybrid parts: the common subset). */
    uint8_t version, n_gp, gp_width, n_fixed, fixed_width;
    bool anythread_deprecated;   /* CPUID.0AH:EDX[15] */
    bool full_width_writes;      /* IA32_PERF_CAPABILITIES[13] */
    bool perf_metrics;           /* IA32_PERF_CAPABILITIES[15] (P-core on hybrid parts) */
    bool perf_metrics_l2;        /* its level-2 bytes 4-7 (Golden Cove and later P-cores, pmu.h) */
    /* AMD */
    bool amd_ext_core;           /* CPUID.8000_0001H:ECX[23] */
    bool amd_perfmon_v2;         /* CPUID.8000_0022H:EAX[0], EBX[3:0] = n_gp */
};

/* The row covering a model (its `model` field is the row's first model), or NULL. */
const struct pmu_model *pmu_model_find(enum cpu_vendor vendor, uint32_t family, uint32_t model);

/*
 * A processor described for -plan: a table row (or a generic one) and the
 * core type on hybrid parts (HYBRID_CORE_CORE / HYBRID_CORE_ATOM).
 */
struct pmu_model_cpu {
    struct pmu_model row;
    unsigned core_type;
    uint32_t stepping;     /* CPUID.1:EAX[3:0] (0 unless given) */
    uint32_t native_model; /* CPUID.1AH:EAX[23:0] on hybrid parts (0 unless given) */
};

/* CPUID as that processor answers it (leaves the image reads; others 0). */
void pmu_model_cpuid(const struct pmu_model_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4]);
/* IA32_PERF_CAPABILITIES of that processor. */
uint64_t pmu_model_perf_capabilities(const struct pmu_model_cpu *c);

#endif
