/*
 * uarch_facts.c — issue width and peak FLOP per cycle (see uarch_facts.h).
 *
 * Sources, as collected in ../shared/METRICS-FACTS.md:
 * - width: Intel TMA_Metrics-full.csv "Pipeline_Width" (SKL/SKX/CLX 4,
 *   ICL/ICX/TGL 5, ADL-P/SPR 6; Gracemont 5 from E-core_TMA_Metrics.csv),
 *   Linux tools/perf amdzen4/pipeline.json (Zen 4 dispatch width 6). The
 *   Zen 2/3 width appears only in likwid/kernel metric text, unverified:
 *   unknown here.
 * - peak FLOP/cycle (FMA = 2 FLOP per lane): Skylake client 2 x 256-bit FMA
 *   (16 DP / 32 SP); Sapphire Rapids 2 x 512 (32 / 64); Zen 2/3/4 2 x 256
 *   FMA (16 / 32; Zen 4 double-pumps 512-bit ops). Skylake-SP/Cascade Lake
 *   have 1 or 2 AVX-512 FMA units depending on the SKU, Ice Lake, Alder Lake
 *   and Gracemont were not confirmed from a primary source (§7): unknown.
 */
#include "uarch_facts.h"
#include "cpuid_bits.h"

#define UNVERIFIED_PEAK "not confirmed from a primary source for this microarchitecture"
#define SKU_PEAK "1 or 2 AVX-512 FMA units depending on the SKU; CPUID does not say"
#define ZEN23_WIDTH "dispatch width not confirmed by the PPR for Zen 2/3"
#define NO_ROW "no entry for this microarchitecture in the table (pmu/uarch_facts.c)"

struct uarch_row {
    enum cpu_vendor vendor;
    uint32_t family, model_lo, model_hi;
    unsigned core_type; /* 0: any */
    struct uarch_facts facts;
};

#define ROW(v, fam, lo, hi, ct, name, w, wwhy, dp, sp, pwhy) \
    { v, fam, lo, hi, ct, { name, w, wwhy, dp, sp, pwhy } }
#define SKL(m) ROW(VENDOR_INTEL, 6, m, m, 0, "Skylake", 4, NULL, 16, 32, NULL)
#define ICL(m) ROW(VENDOR_INTEL, 6, m, m, 0, "Ice Lake", 5, NULL, 0, 0, UNVERIFIED_PEAK)
#define ADL(m)                                                                                       \
    ROW(VENDOR_INTEL, 6, m, m, HYBRID_CORE_CORE, "Golden Cove", 6, NULL, 0, 0, UNVERIFIED_PEAK),     \
    ROW(VENDOR_INTEL, 6, m, m, HYBRID_CORE_ATOM, "Gracemont", 5, NULL, 0, 0, UNVERIFIED_PEAK)

static const struct uarch_row ROWS[] = {
    /* Skylake client and its refreshes (Kaby, Coffee, Comet Lake). */
    SKL(0x4E), SKL(0x5E), SKL(0x8E), SKL(0x9E), SKL(0xA5), SKL(0xA6),
    ROW(VENDOR_INTEL, 6, 0x55, 0x55, 0, "Skylake-SP / Cascade Lake", 4, NULL, 0, 0, SKU_PEAK),
    /* Ice Lake client and server, Tiger Lake, Rocket Lake (TMA: ICX/TGL inherit ICL). */
    ICL(0x7D), ICL(0x7E), ICL(0x6A), ICL(0x6C), ICL(0x8C), ICL(0x8D), ICL(0xA7),
    /* Alder Lake and Raptor Lake: P-core Golden Cove, E-core Gracemont. */
    ADL(0x97), ADL(0x9A), ADL(0xB7), ADL(0xBA), ADL(0xBF),
    ROW(VENDOR_INTEL, 6, 0x8F, 0x8F, 0, "Sapphire Rapids", 6, NULL, 32, 64, NULL),
    /* Zen 2 (family 17h models 30h-4Fh, 60h-7Fh, 90h-91h, A0h-AFh; as pmu_models.c). */
#define ZEN2(lo, hi) ROW(VENDOR_AMD, 0x17, lo, hi, 0, "Zen 2", 0, ZEN23_WIDTH, 16, 32, NULL)
    ZEN2(0x30, 0x4F), ZEN2(0x60, 0x7F), ZEN2(0x90, 0x91), ZEN2(0xA0, 0xAF),
    /* Zen 3 (family 19h models 00h-0Fh, 20h-5Fh) and Zen 4 (10h-1Fh, 60h-AFh). */
    ROW(VENDOR_AMD, 0x19, 0x00, 0x0F, 0, "Zen 3", 0, ZEN23_WIDTH, 16, 32, NULL),
    ROW(VENDOR_AMD, 0x19, 0x20, 0x5F, 0, "Zen 3", 0, ZEN23_WIDTH, 16, 32, NULL),
    ROW(VENDOR_AMD, 0x19, 0x10, 0x1F, 0, "Zen 4", 6, NULL, 16, 32, NULL),
    ROW(VENDOR_AMD, 0x19, 0x60, 0xAF, 0, "Zen 4", 6, NULL, 16, 32, NULL),
};

void uarch_facts_for(enum cpu_vendor vendor, uint32_t family, uint32_t model, unsigned core_type,
                     struct uarch_facts *f)
{
    for (unsigned i = 0; i < sizeof(ROWS) / sizeof(ROWS[0]); i++) {
        const struct uarch_row *r = &ROWS[i];
        if (r->vendor == vendor && r->family == family && model >= r->model_lo &&
            model <= r->model_hi && (!r->core_type || r->core_type == core_type)) {
            *f = r->facts;
            return;
        }
    }
    *f = (struct uarch_facts){ NULL, 0, NO_ROW, 0, 0, NO_ROW };
}
