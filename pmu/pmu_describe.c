/*
 * pmu_describe.c — the PMU description in words, shared by the image's
 * fingerprint and `-plan` (see pmu_desc_summary in pmu.h).
 */
#include "pmu.h"
#include "nb_text.h"
#include "pmu_arch_events.h"

void pmu_desc_summary(const struct pmu_desc *d, char *out, size_t cap)
{
    const char *kind = "";
    if (d->vendor == VENDOR_AMD)
        kind = d->amd_perfmon_v2 ? " PerfMonV2" : d->amd_ext_core ? " PerfCtrExtCore" : " legacy";
    size_t n = nb_snprintf(out, cap, "%s%s, %u general-purpose counters (%u bits), %u fixed",
                           pmu_ops_for(d->vendor)->name, kind, d->n_gp, d->gp_width, d->n_fixed);
    uint32_t gp = pmu_gp_mask(d), fixed = pmu_fixed_mask(d);
    bool holes = gp != pmu_low_bits(d->n_gp) || fixed != pmu_low_bits(d->n_fixed);
    const char *from = d->counters_from_leaf_23h ? " (CPUID.23H)"
                       : d->hybrid_p_core_counters ? " (hybrid P-core: more than CPUID.0AH's common subset)"
                                                   : "";
    if ((holes || from[0]) && n < cap)
        n += nb_snprintf(out + n, cap - n, ", bitmaps GP 0x%x fixed 0x%x%s", gp, fixed, from);
    if (d->anythread_deprecated && n < cap)
        nb_snprintf(out + n, cap - n, ", AnyThread deprecated");
}

size_t pmu_desc_missing(const struct pmu_desc *d, char lines[2][160])
{
    size_t n = 0;
    if (d->vendor != VENDOR_INTEL)
        return 0;
    uint32_t absent = ~pmu_fixed_mask(d) & 0x7u;
    if (absent) {
        char which[96] = "";
        size_t len = 0;
        for (unsigned i = 0; i < 3; i++) {
            if (absent & (1u << i))
                len += nb_snprintf(which + len, sizeof(which) - len, "%s%s (fixed counter %u)",
                                   len ? ", " : "", pmu_intel_fixed_names[i], i);
        }
        nb_snprintf(lines[n++], 160, "-fixed_counters leaves out %s: not on this CPU (CPUID.0AH)",
                    which);
    }
    char names[128];
    if (pmu_arch_events_missing(d, names, sizeof(names)))
        nb_snprintf(lines[n++], 160,
                    "built-in events leave out %s: CPUID.0AH:EBX marks them unavailable", names);
    return n;
}
