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

/*
 * Row builders. Counter counts per core type are the highest counter that
 * Intel's perfmon event files (intel/perfmon, Counter fields, 2026) name for
 * the microarchitecture, which matches CPUID.0AH with Hyper-Threading on:
 * 2 GP on Core 2, Bonnell, Silvermont, Knights Landing; 4 from Nehalem to
 * Skylake-X/Cascade Lake and on Goldmont/Tremont; 8 from Ice Lake on and on
 * Crestmont/Skymont; 6 on Gracemont; 10 on Lion Cove. Fixed counters: 3, and
 * 4 (TOPDOWN.SLOTS) from Ice Lake on P-cores; Skymont has 0,1,2 and 4,5,6.
 * Widths: 40 bits on Core 2, Bonnell, Silvermont and Knights Landing, 48
 * elsewhere (SDM vol. 3B 20.3-20.6). Versions: 2 on Core 2, 3 up to
 * Broadwell/Silvermont/Knights Landing, 4 on Skylake/Goldmont, 5 from Ice
 * Lake/Tremont on, 6 on Lion Cove/Skymont parts (Linux intel_pmu_init).
 * Full-width writes (PERF_CAPABILITIES[13]) from Sandy Bridge and
 * Silvermont on (Linux prints "full-width counters" from those on).
 */
#define INTEL(n, m, last, ver, gp, width, fixed, fw, pm)                                            \
    { .name = n, .vendor = VENDOR_INTEL, .family = 6, .model = m, .model_last = last,                \
      .version = ver, .n_gp = gp, .gp_width = width, .n_fixed = fixed, .fixed_width = width,       \
      .anythread_deprecated = (ver) >= 5, .full_width_writes = fw, .perf_metrics = pm }
#define CORE2(m) INTEL("Core 2", m, 0, 2, 2, 40, 3, false, false)
#define BONNELL(m) INTEL("Bonnell", m, 0, 3, 2, 40, 3, false, false)
#define NEHALEM(n, m) INTEL(n, m, 0, 3, 4, 48, 3, false, false)
#define SNB(n, m) INTEL(n, m, 0, 3, 4, 48, 3, true, false)
#define SLM(n, m) INTEL(n, m, 0, 3, 2, 40, 3, true, false)
#define SKL(n, m) INTEL(n, m, 0, 4, 4, 48, 3, true, false)
#define TREMONT(n, m) INTEL(n, m, 0, 5, 4, 48, 3, true, false)
#define ICL(n, m) INTEL(n, m, 0, 5, 8, 48, 4, true, true)
/*
 * Golden Cove server cores (Sapphire/Emerald Rapids) and their successors
 * (Granite Rapids, Redwood Cove): IA32_PERF_METRICS with the level-2 bytes
 * (METRICS-FACTS 2b: ADL-P, SPR; Linux num_topdown_events 8 from SPR/ADL on).
 */
#define GLC(n, m)                                                                                  \
    { .name = n, .vendor = VENDOR_INTEL, .family = 6, .model = m, .version = 5, .n_gp = 8,         \
      .gp_width = 48, .n_fixed = 4, .fixed_width = 48, .anythread_deprecated = true,               \
      .full_width_writes = true, .perf_metrics = true, .perf_metrics_l2 = true }
/* Alder Lake / Raptor Lake: CPUID.0AH says 6 GP and 3 fixed (the common subset). */
#define ADL(n, m)                                                                                  \
    { .name = n, .vendor = VENDOR_INTEL, .family = 6, .model = m, .hybrid = true, .version = 5,     \
      .n_gp = 6, .gp_width = 48, .n_fixed = 3, .fixed_width = 48, .anythread_deprecated = true,    \
      .full_width_writes = true, .perf_metrics = true, .perf_metrics_l2 = true,                    \
      .p_core_beyond_0ah = true }
/*
 * Hybrid parts with CPUID.23H: per core type bitmaps. CPUID.0AH answers with
 * the common subset. Meteor Lake's leaf 23H is our reading, not verified on a
 * part: its GP counts (8 and 8) are the same either way, only the P-core's
 * fixed counter 3 would be missed without it.
 */
#define HYBRID_23H(n, m, ver, gp_p, fx_p, gp_e, fx_e, l2)                                           \
    { .name = n, .vendor = VENDOR_INTEL, .family = 6, .model = m, .hybrid = true, .version = ver,   \
      .n_gp = 8, .gp_width = 48, .n_fixed = 3, .fixed_width = 48, .anythread_deprecated = true,    \
      .full_width_writes = true, .perf_metrics = true, .perf_metrics_l2 = l2, .leaf_23h = true,    \
      .gp_mask_p = gp_p, .fixed_mask_p = fx_p, .gp_mask_e = gp_e, .fixed_mask_e = fx_e }
/* Redwood Cove P-core: a Golden Cove successor, level-2 bytes as on ADL-P. */
#define MTL(m) HYBRID_23H("Meteor Lake", m, 5, 0xFF, 0xF, 0xFF, 0x7, true)
/*
 * Lion Cove P-core: IA32_PERF_METRICS with the level-2 bytes. Intel's TMA metric
 * files for Lunar Lake and Arrow Lake (intel/perfmon LNL/ARL metrics, TMA 5.1) read
 * perf_metrics.heavy_operations, branch_mispredicts, fetch_latency and memory_bound.
 */
#define LION_SKYMONT(n, m) HYBRID_23H(n, m, 6, 0x3FF, 0xF, 0xFF, 0x77, true)
/*
 * Panther Lake: Cougar Cove P-core (GP counters 0-9, fixed 0-3) and Darkmont E-core
 * (GP 0-7, fixed 0-2 and 4-6), the counters Intel's perfmon event files name
 * (PTL/events, Counter fields), as on Lion Cove / Skymont.
 */
#define PTL(m) HYBRID_23H("Panther Lake", m, 6, 0x3FF, 0xF, 0xFF, 0x77, false)
/*
 * Nova Lake (display family 18 = 0FH + extended family 3): Coyote Cove P-core (GP 0-7,
 * fixed 0-3) and Arctic Wolf E-core (GP 0-7, fixed 0-2 and 4-6) per Intel's perfmon
 * event files (NVL/events, Counter fields). Version 6 as its predecessors: our reading.
 */
#define NVL(m)                                                                                     \
    { .name = "Nova Lake", .vendor = VENDOR_INTEL, .family = 18, .model = m, .hybrid = true,       \
      .version = 6, .n_gp = 8, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,                    \
      .anythread_deprecated = true, .full_width_writes = true, .perf_metrics = true,               \
      .leaf_23h = true, .gp_mask_p = 0xFF, .fixed_mask_p = 0xF, .gp_mask_e = 0xFF,                 \
      .fixed_mask_e = 0x77 }
/* AMD: model ranges from Linux arch/x86/kernel/cpu/amd.c, as configs/cpu_map.txt. */
#define AMD(n, fam, first, last, v2)                                                               \
    { .name = n, .vendor = VENDOR_AMD, .family = fam, .model = first, .model_last = last,          \
      .n_gp = 6, .gp_width = 48, .amd_ext_core = true, .amd_perfmon_v2 = v2 }

/*
 * Intel processors the image refuses, so that -plan_cpu gives the image's own
 * reason for them. Highest basic CPUID leaf (SDM vol. 2A, CPUID, "Highest
 * CPUID Source Operand for Intel 64 and IA-32 Processors"): 1 on the Pentium
 * (family 5), 2 on the P6 family, Pentium M and the first Pentium 4s, 5 on
 * the 90 nm Pentium 4 (Prescott), 6 on the 65 nm Pentium 4 (Cedar Mill):
 * none has leaf 0AH. The Core Solo/Duo (Yonah) has leaf 0AH with
 * architectural perfmon version 1, two 40-bit counters and no fixed counters
 * (SDM vol. 3B 20.2.1; fixed counters arrived with version 2).
 */
#define BEFORE_0AH(n, fam, first, last, leaf)                                                      \
    { .name = n, .vendor = VENDOR_INTEL, .family = fam, .model = first, .model_last = last,        \
      .max_leaf = leaf }

static const struct pmu_model MODELS[] = {
    BEFORE_0AH("Pentium", 5, 0x00, 0x0F, 1),
    BEFORE_0AH("Pentium Pro/II/III", 6, 0x00, 0x08, 2), BEFORE_0AH("Pentium III", 6, 0x0A, 0x0B, 2),
    BEFORE_0AH("Pentium M", 6, 0x09, 0, 2), BEFORE_0AH("Pentium M", 6, 0x0D, 0, 2),
    { .name = "Core Solo/Duo", .vendor = VENDOR_INTEL, .family = 6, .model = 0x0E,
      .max_leaf = CPUID_LEAF_PERFMON, .version = 1, .n_gp = 2, .gp_width = 40 },
    BEFORE_0AH("Pentium 4", 0xF, 0x00, 0x02, 2), BEFORE_0AH("Pentium 4", 0xF, 0x03, 0x04, 5),
    BEFORE_0AH("Pentium 4", 0xF, 0x06, 0, 6),
    CORE2(0x0F), CORE2(0x16), CORE2(0x17), CORE2(0x1D),
    BONNELL(0x1C), BONNELL(0x26), BONNELL(0x27), BONNELL(0x35), BONNELL(0x36),
    NEHALEM("Nehalem", 0x1A), NEHALEM("Nehalem", 0x1E), NEHALEM("Nehalem", 0x1F),
    NEHALEM("Nehalem-EX", 0x2E), NEHALEM("Westmere", 0x25), NEHALEM("Westmere-EP", 0x2C),
    NEHALEM("Westmere-EX", 0x2F),
    SNB("Sandy Bridge", 0x2A), SNB("Sandy Bridge-EP", 0x2D), SNB("Ivy Bridge", 0x3A),
    SNB("Ivy Bridge-EP", 0x3E), SNB("Haswell", 0x3C), SNB("Haswell", 0x45), SNB("Haswell", 0x46),
    SNB("Haswell-X", 0x3F), SNB("Broadwell", 0x3D), SNB("Broadwell", 0x47),
    SNB("Broadwell-DE", 0x56), SNB("Broadwell-X", 0x4F),
    SLM("Silvermont", 0x37), SLM("Silvermont", 0x4A), SLM("Silvermont", 0x4C),
    SLM("Silvermont", 0x4D), SLM("Silvermont", 0x5A),
    SLM("Knights Landing", 0x57), SLM("Knights Mill", 0x85),
    SKL("Goldmont", 0x5C), SKL("Goldmont", 0x5F), SKL("Goldmont Plus", 0x7A),
    SKL("Skylake", 0x4E), SKL("Skylake", 0x5E), SKL("Skylake-X", 0x55), SKL("Kaby Lake", 0x8E),
    SKL("Kaby Lake", 0x9E), SKL("Comet Lake", 0xA5), SKL("Comet Lake", 0xA6),
    TREMONT("Tremont", 0x96), TREMONT("Tremont", 0x9C), TREMONT("Snow Ridge", 0x86),
    ICL("Ice Lake", 0x7D), ICL("Ice Lake", 0x7E), ICL("Ice Lake-X", 0x6A), ICL("Ice Lake-D", 0x6C),
    ICL("Tiger Lake", 0x8C), ICL("Tiger Lake", 0x8D), ICL("Rocket Lake", 0xA7),
    GLC("Sapphire Rapids", 0x8F), GLC("Emerald Rapids", 0xCF), GLC("Granite Rapids", 0xAD),
    GLC("Granite Rapids", 0xAE),
    /* Gracemont (Alder Lake-N) and Crestmont (Sierra Forest) without P-cores: no PERF_METRICS. */
    INTEL("Alder Lake-N", 0xBE, 0, 5, 6, 48, 3, true, false),
    INTEL("Sierra Forest", 0xAF, 0, 5, 8, 48, 3, true, false),
    /* Grand Ridge (Crestmont) as Sierra Forest; Clearwater Forest (Darkmont): GP 0-7,
     * fixed 0-2 (4-6 too, which the image does not use), version 6 as Skymont. */
    INTEL("Grand Ridge", 0xB6, 0, 5, 8, 48, 3, true, false),
    INTEL("Clearwater Forest", 0xDD, 0, 6, 8, 48, 3, true, false),
    ADL("Alder Lake", 0x97), ADL("Alder Lake", 0x9A),
    ADL("Raptor Lake", 0xB7), ADL("Raptor Lake", 0xBA), ADL("Raptor Lake", 0xBF),
    MTL(0xAA), MTL(0xAC), MTL(0xB5),
    LION_SKYMONT("Lunar Lake", 0xBD), LION_SKYMONT("Arrow Lake", 0xC5), LION_SKYMONT("Arrow Lake", 0xC6),
    PTL(0xCC), PTL(0xD5), PTL(0xE5), NVL(0x01), NVL(0x03),
    AMD("Zen", 0x17, 0x00, 0x2F, false), AMD("Zen", 0x17, 0x50, 0x5F, false),
    AMD("Zen 2", 0x17, 0x30, 0x4F, false), AMD("Zen 2", 0x17, 0x60, 0x7F, false),
    AMD("Zen 2", 0x17, 0x90, 0x91, false), AMD("Zen 2", 0x17, 0xA0, 0xAF, false),
    AMD("Zen 3", 0x19, 0x00, 0x0F, false), AMD("Zen 3", 0x19, 0x20, 0x5F, false),
    AMD("Zen 4", 0x19, 0x10, 0x1F, true), AMD("Zen 4", 0x19, 0x60, 0xAF, true),
    AMD("Zen 5", 0x1A, 0x00, 0x2F, true), AMD("Zen 5", 0x1A, 0x40, 0x4F, true),
    AMD("Zen 5", 0x1A, 0x60, 0x7F, true),
};

const struct pmu_model *pmu_model_find(enum cpu_vendor vendor, uint32_t family, uint32_t model)
{
    for (unsigned i = 0; i < sizeof(MODELS) / sizeof(MODELS[0]); i++) {
        const struct pmu_model *m = &MODELS[i];
        uint32_t last = m->model_last ? m->model_last : m->model;
        if (m->vendor == vendor && m->family == family && model >= m->model && model <= last)
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
    if (intel && m->max_leaf && leaf > m->max_leaf && leaf < CPUID_LEAF_EXT_MAX)
        return;
    switch (leaf) {
    case CPUID_LEAF_VENDOR: {
        const char *v = intel ? "GenuineIntel" : "AuthenticAMD";
        /* Intel: up to leaf 1AH (hybrid core type), or 23H where the row has it. */
        r[CPUID_EAX] = !intel ? CPUID_LEAF_FREQUENCY : m->max_leaf ? m->max_leaf
                       : m->leaf_23h ? CPUID_LEAF_PERFMON_EXT : CPUID_LEAF_HYBRID;
        r[CPUID_EBX] = le32(v);
        r[CPUID_EDX] = le32(v + 4);
        r[CPUID_ECX] = le32(v + 8);
        break;
    }
    case CPUID_LEAF_FEATURES:
        r[CPUID_EAX] = signature(m->family, m->model) | (c->stepping & 0xF);
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
        if (intel && m->leaf_23h && subleaf == 1)
            r[CPUID_EAX] = CPUID_07_1_EAX_ARCH_PERFMON_EXT;
        break;
    case CPUID_LEAF_PERFMON_EXT:
        if (!intel || !m->leaf_23h)
            break;
        if (subleaf == 0) {
            r[CPUID_EAX] = PERFMON_EXT_EAX_COUNTERS_VALID;
        } else if (subleaf == PERFMON_EXT_SUBLEAF_COUNTERS) {
            bool p_core = !m->hybrid || c->core_type == HYBRID_CORE_CORE;
            r[CPUID_EAX] = p_core ? m->gp_mask_p : m->gp_mask_e;
            r[CPUID_EBX] = p_core ? m->fixed_mask_p : m->fixed_mask_e;
        }
        break;
    case CPUID_LEAF_HYBRID:
        if (intel && m->hybrid)
            r[CPUID_EAX] = c->core_type << 24 | (c->native_model & 0xFFFFFF);
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
