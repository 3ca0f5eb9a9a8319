/*
 * pmu_models.c — the known-model table (see pmu_models.h).
 *
 * Sources:
 *  - model numbers: Linux arch/x86/include/asm/intel-family.h; AMD Zen ranges
 *    from Linux arch/x86/kernel/cpu/amd.c (the same models as configs/cpu_map.txt);
 *  - Intel counter counts, widths, versions: SDM vol. 3B 20.2 and 20.3 (per
 *    microarchitecture sections: Skylake 20.3.8, Ice Lake / Sapphire Rapids /
 *    Alder Lake 20.3.9-20.3.11: 4 GP per thread with HT on Skylake, 8 GP per
 *    thread from Ice Lake on, fixed counter 3 TOPDOWN.SLOTS from Ice Lake on);
 *    Linux arch/x86/events/intel/core.c intel_pmu_init(): v5 and AnyThread
 *    deprecation (EDX[15]) on Ice Lake and later, PERF_METRICS on Ice Lake,
 *    Sapphire Rapids and the Golden Cove P-core, not on Gracemont E-cores;
 *  - Alder Lake / Raptor Lake: CPUID.0AH reports the common subset, 6 GP and
 *    3 fixed; the P-core has 8 and 4 (Linux: "cntr_mask64 <<= 2 | 0x3,
 *    fixed_cntr_mask64 <<= 1 | 0x1" for the hybrid core PMU);
 *  - AMD: PerfCtrExtCore on every Zen (6 counters, APM vol. 2 13.2), PerfMonV2
 *    from Zen 4 (CPUID.8000_0022H, Linux arch/x86/events/amd/core.c).
 */
#include "pmu_models.h"
#include "cpuid_bits.h"
#include "pmu_msrs.h"

#define SKL(m) { "Skylake", VENDOR_INTEL, 6, m, false, 4, 4, 48, 3, 48, false, true, false, false, false }
#define ICL(m) { "Ice Lake", VENDOR_INTEL, 6, m, false, 5, 8, 48, 4, 48, true, true, true, false, false }
#define ADL(n, m) { n, VENDOR_INTEL, 6, m, true, 5, 6, 48, 3, 48, true, true, true, false, false }
#define ZEN2(m) { "Zen 2", VENDOR_AMD, 0x17, m, false, 0, 6, 48, 0, 0, false, false, false, true, false }
#define ZEN3(m) { "Zen 3", VENDOR_AMD, 0x19, m, false, 0, 6, 48, 0, 0, false, false, false, true, false }
#define ZEN4(m) { "Zen 4", VENDOR_AMD, 0x19, m, false, 0, 6, 48, 0, 0, false, false, false, true, true }

static const struct pmu_model MODELS[] = {
    SKL(0x4E), SKL(0x5E), SKL(0x55), SKL(0x8E), SKL(0x9E), SKL(0xA5), SKL(0xA6),
    ICL(0x7D), ICL(0x7E), ICL(0x6A), ICL(0x6C),
    ADL("Alder Lake", 0x97), ADL("Alder Lake", 0x9A),
    ADL("Raptor Lake", 0xB7), ADL("Raptor Lake", 0xBA), ADL("Raptor Lake", 0xBF),
    /* Alder Lake-N: Gracemont E-cores only, no PERF_METRICS. */
    { "Alder Lake-N", VENDOR_INTEL, 6, 0xBE, false, 5, 6, 48, 3, 48, true, true, false, false, false },
    { "Sapphire Rapids", VENDOR_INTEL, 6, 0x8F, false, 5, 8, 48, 4, 48, true, true, true, false, false },
    ZEN2(0x31), ZEN2(0x60), ZEN2(0x68), ZEN2(0x71), ZEN2(0x90), ZEN2(0xA0),
    ZEN3(0x01), ZEN3(0x08), ZEN3(0x21), ZEN3(0x40), ZEN3(0x44), ZEN3(0x50),
    ZEN4(0x11), ZEN4(0x18), ZEN4(0x61), ZEN4(0x74), ZEN4(0x78),
};

const struct pmu_model *pmu_model_find(enum cpu_vendor vendor, uint32_t family, uint32_t model)
{
    for (unsigned i = 0; i < sizeof(MODELS) / sizeof(MODELS[0]); i++) {
        const struct pmu_model *m = &MODELS[i];
        if (m->vendor == vendor && m->family == family && m->model == model)
            return m;
    }
    return 0;
}

static uint32_t le32(const char *s)
{
    return (uint32_t)(uint8_t)s[0] | (uint32_t)(uint8_t)s[1] << 8 | (uint32_t)(uint8_t)s[2] << 16 |
           (uint32_t)(uint8_t)s[3] << 24;
}

/* CPUID.01H:EAX signature for a display family/model (SDM vol. 2A, figure 3-6). */
static uint32_t signature(uint32_t family, uint32_t model)
{
    uint32_t base_family = family >= 0xF ? 0xF : family;
    uint32_t ext_family = family >= 0xF ? family - 0xF : 0;
    return (ext_family << 20) | ((model >> 4) << 16) | (base_family << 8) | ((model & 0xF) << 4);
}

void pmu_model_cpuid(const struct pmu_model_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    const struct pmu_model *m = &c->row;
    unsigned n_gp = m->n_gp;
    bool intel = m->vendor == VENDOR_INTEL;
    r[0] = r[1] = r[2] = r[3] = 0;
    switch (leaf) {
    case CPUID_LEAF_VENDOR: {
        const char *v = intel ? "GenuineIntel" : "AuthenticAMD";
        /* Intel: up to leaf 1AH (hybrid core type), but no leaf 23H on these models. */
        r[CPUID_EAX] = intel ? CPUID_LEAF_HYBRID : CPUID_LEAF_FREQUENCY;
        r[CPUID_EBX] = le32(v);
        r[CPUID_EDX] = le32(v + 4);
        r[CPUID_ECX] = le32(v + 8);
        break;
    }
    case CPUID_LEAF_FEATURES:
        r[CPUID_EAX] = signature(m->family, m->model);
        r[CPUID_ECX] = intel ? CPUID_01_ECX_PDCM : 0;
        r[CPUID_EDX] = CPUID_01_EDX_TSC;
        break;
    case CPUID_LEAF_PERFMON:
        if (!intel || subleaf)
            break;
        /* EBX length 7 with no bit set: all architectural events of table 20-1 exist. */
        r[CPUID_EAX] = m->version | n_gp << 8 | (uint32_t)m->gp_width << 16 | 7u << 24;
        r[CPUID_EDX] = m->n_fixed | (uint32_t)m->fixed_width << 5 |
                       (m->anythread_deprecated ? PERFMON_EDX_ANYTHREAD_DEPRECATED : 0);
        break;
    case CPUID_LEAF_STRUCTURED_EXT:
        /* Subleaf 0 EDX[15]: both core types enabled (the firmware default). */
        if (intel && m->hybrid && subleaf == 0)
            r[CPUID_EDX] = CPUID_07_EDX_HYBRID;
        break;
    case CPUID_LEAF_HYBRID:
        if (intel && m->hybrid)
            r[CPUID_EAX] = c->core_type << 24;
        break;
    case CPUID_LEAF_EXT_MAX:
        r[CPUID_EAX] = intel ? CPUID_LEAF_POWER_MGMT : CPUID_LEAF_AMD_PERFMON;
        break;
    case CPUID_LEAF_EXT_FEATURES:
        r[CPUID_ECX] = m->amd_ext_core ? CPUID_80000001_ECX_PERFCTR_EXT_CORE : 0;
        break;
    case CPUID_LEAF_AMD_PERFMON:
        if (!intel && m->amd_perfmon_v2) {
            r[CPUID_EAX] = CPUID_80000022_EAX_PERFMON_V2;
            r[CPUID_EBX] = n_gp & 0xF;
        }
        break;
    default:
        break;
    }
}

uint64_t pmu_model_perf_capabilities(const struct pmu_model_cpu *c)
{
    const struct pmu_model *m = &c->row;
    uint64_t caps = 0;
    if (m->full_width_writes)
        caps |= PERF_CAPABILITIES_FW_WRITE;
    /* On hybrid parts only the P-core (Golden Cove) has PERF_METRICS. */
    if (m->perf_metrics && (!m->hybrid || c->core_type == HYBRID_CORE_CORE))
        caps |= PERF_CAPABILITIES_PERF_METRICS;
    return caps;
}
