/*
 * cpu_caches.c — see cpu_caches.h. Leaf layouts: Intel SDM vol. 2A CPUID
 * (leaf 04H "Deterministic Cache Parameters", leaf 18H "Deterministic Address
 * Translation Parameters"); AMD APM vol. 3 appendix E.4 (8000_0005H L1 cache
 * and TLB, 8000_0006H L2/L3 cache and L2 TLB, 8000_001DH cache topology).
 */
#include "cpu_caches.h"

#include "cpuid_bits.h"
#include "nb_text.h"

#define CPUID_LEAF_CACHE_PARAMS 0x04u
#define CPUID_LEAF_TLB_PARAMS 0x18u
#define CPUID_LEAF_AMD_L1 0x80000005u
#define CPUID_LEAF_AMD_L2_L3 0x80000006u
#define CPUID_LEAF_AMD_CACHE_TOPOLOGY 0x8000001Du
/* CPUID.8000_0001H:ECX[22] TopologyExtensions: leaf 8000_001DH exists (APM vol. 3 E.4.2). */
#define CPUID_80000001_ECX_TOPOEXT (1u << 22)

static void cpuid(const struct nb_platform *p, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    p->cpuid(p->ctx, leaf, sub, r);
}

static void cache_name(struct cpu_cache *c)
{
    const char *suffix = c->type == CACHE_DATA ? "d" : c->type == CACHE_INSTRUCTION ? "i" : "";
    nb_snprintf(c->name, sizeof(c->name), "L%u%s", c->level, suffix);
}

/* Leaf 04H and 8000_001DH share one layout: type, level, sharing, ways, partitions, line, sets. */
static void deterministic_caches(const struct nb_platform *p, uint32_t leaf, struct cpu_cache_info *out)
{
    for (uint32_t sub = 0; sub < 16 && out->n_caches < CPU_MAX_CACHES; sub++) {
        uint32_t r[4];
        cpuid(p, leaf, sub, r);
        unsigned type = r[CPUID_EAX] & 0x1F;
        if (type == 0)
            break;
        if (type > CACHE_UNIFIED)
            continue;
        struct cpu_cache *c = &out->caches[out->n_caches++];
        c->type = (enum cpu_cache_type)type;
        c->level = (r[CPUID_EAX] >> 5) & 0x7;
        c->shared_by = ((r[CPUID_EAX] >> 14) & 0xFFF) + 1;
        bool fully = (r[CPUID_EAX] >> 9) & 1;
        uint32_t ways = ((r[CPUID_EBX] >> 22) & 0x3FF) + 1;
        uint32_t partitions = ((r[CPUID_EBX] >> 12) & 0x3FF) + 1;
        c->line = (r[CPUID_EBX] & 0xFFF) + 1;
        c->sets = r[CPUID_ECX] + 1;
        c->size = (uint64_t)ways * partitions * c->line * c->sets;
        c->ways = fully ? 0 : ways;
        cache_name(c);
    }
    if (out->n_caches)
        out->cache_source = leaf == CPUID_LEAF_CACHE_PARAMS ? "CPUID.04H" : "CPUID.8000_001DH";
}

/* L2/L3/L2-TLB associativity codes of 8000_0006H (APM vol. 3 E.4.5); 0 = fully, ~0 = disabled/reserved. */
static uint32_t amd_assoc(unsigned code)
{
    static const uint32_t ways[16] = { ~0u, 1, 2, 3, 4, 6, 8, ~0u, 16, ~0u, 32, 48, 64, 96, 128, 0 };
    return ways[code & 0xF];
}

static void add_legacy_cache(struct cpu_cache_info *out, unsigned level, enum cpu_cache_type type,
                             uint64_t size, uint32_t ways, uint32_t line)
{
    if (!size || !line || ways == ~0u || out->n_caches == CPU_MAX_CACHES)
        return;
    struct cpu_cache *c = &out->caches[out->n_caches++];
    c->level = level;
    c->type = type;
    c->size = size;
    c->ways = ways;
    c->line = line;
    c->sets = ways ? (uint32_t)(size / line / ways) : 1;
    cache_name(c);
}

static void amd_legacy_caches(const struct nb_platform *p, const struct machine_info *m,
                              struct cpu_cache_info *out)
{
    uint32_t r[4];
    if (m->max_ext_leaf >= CPUID_LEAF_AMD_L1) {
        cpuid(p, CPUID_LEAF_AMD_L1, 0, r);
        /* ECX L1d, EDX L1i: size KiB [31:24], ways [23:16] (FFh fully), line [7:0]. */
        for (int i = 0; i < 2; i++) {
            uint32_t v = i == 0 ? r[CPUID_ECX] : r[CPUID_EDX];
            uint32_t ways = (v >> 16) & 0xFF;
            add_legacy_cache(out, 1, i == 0 ? CACHE_DATA : CACHE_INSTRUCTION, (uint64_t)(v >> 24) * 1024,
                             ways == 0xFF ? 0 : ways ? ways : ~0u, v & 0xFF);
        }
    }
    if (m->max_ext_leaf >= CPUID_LEAF_AMD_L2_L3) {
        cpuid(p, CPUID_LEAF_AMD_L2_L3, 0, r);
        /* ECX L2: KiB [31:16]; EDX L3: 512 KiB units [31:18]; ways code [15:12]; line [7:0]. */
        add_legacy_cache(out, 2, CACHE_UNIFIED, (uint64_t)(r[CPUID_ECX] >> 16) * 1024,
                         amd_assoc(r[CPUID_ECX] >> 12), r[CPUID_ECX] & 0xFF);
        add_legacy_cache(out, 3, CACHE_UNIFIED, (uint64_t)(r[CPUID_EDX] >> 18) * 512 * 1024,
                         amd_assoc(r[CPUID_EDX] >> 12), r[CPUID_EDX] & 0xFF);
    }
    if (out->n_caches)
        out->cache_source = "CPUID.8000_0005H/8000_0006H";
}

static void add_tlb(struct cpu_cache_info *out, const char *name, const char *pages, uint32_t entries,
                    uint32_t ways)
{
    if (!entries || ways == ~0u || out->n_tlbs == CPU_MAX_TLBS)
        return;
    struct cpu_tlb *t = &out->tlbs[out->n_tlbs++];
    nb_snprintf(t->name, sizeof(t->name), "%s", name);
    nb_snprintf(t->pages, sizeof(t->pages), "%s", pages);
    t->entries = entries;
    t->ways = ways;
}

static void amd_tlbs(const struct nb_platform *p, const struct machine_info *m, struct cpu_cache_info *out)
{
    uint32_t r[4];
    if (m->max_ext_leaf < CPUID_LEAF_AMD_L1) {
        out->tlb_missing = "CPUID has no leaf 8000_0005H";
        return;
    }
    cpuid(p, CPUID_LEAF_AMD_L1, 0, r);
    /* EAX 2M/4M pages, EBX 4K pages: dTLB ways [31:24] entries [23:16], iTLB ways [15:8] entries [7:0]. */
    for (int i = 0; i < 2; i++) {
        uint32_t v = i == 0 ? r[CPUID_EBX] : r[CPUID_EAX];
        const char *pages = i == 0 ? "4K" : "2M/4M";
        uint32_t dw = (v >> 24) & 0xFF, iw = (v >> 8) & 0xFF;
        add_tlb(out, "L1d", pages, (v >> 16) & 0xFF, dw == 0xFF ? 0 : dw ? dw : ~0u);
        add_tlb(out, "L1i", pages, v & 0xFF, iw == 0xFF ? 0 : iw ? iw : ~0u);
    }
    if (m->max_ext_leaf >= CPUID_LEAF_AMD_L2_L3) {
        cpuid(p, CPUID_LEAF_AMD_L2_L3, 0, r);
        /* EAX 2M/4M, EBX 4K: dTLB ways code [31:28] entries [27:16], iTLB ways [15:12] entries [11:0]. */
        for (int i = 0; i < 2; i++) {
            uint32_t v = i == 0 ? r[CPUID_EBX] : r[CPUID_EAX];
            const char *pages = i == 0 ? "4K" : "2M/4M";
            add_tlb(out, "L2d", pages, (v >> 16) & 0xFFF, amd_assoc(v >> 28));
            add_tlb(out, "L2i", pages, v & 0xFFF, amd_assoc(v >> 12));
        }
    }
    out->tlb_source = "CPUID.8000_0005H/8000_0006H";
}

static void intel_tlbs(const struct nb_platform *p, const struct machine_info *m, struct cpu_cache_info *out)
{
    uint32_t r[4];
    if (m->max_leaf < CPUID_LEAF_TLB_PARAMS) {
        out->tlb_missing = "CPUID has no leaf 18H (the leaf-2 descriptors are not decoded)";
        return;
    }
    cpuid(p, CPUID_LEAF_TLB_PARAMS, 0, r);
    uint32_t max_sub = r[CPUID_EAX];
    for (uint32_t sub = 0; sub <= max_sub && sub < 32; sub++) {
        if (sub)
            cpuid(p, CPUID_LEAF_TLB_PARAMS, sub, r);
        unsigned type = r[CPUID_EDX] & 0x1F;
        if (type == 0)
            continue;
        static const char *const type_suffix[] = { "", "d", "i", "", "load", "store" };
        char name[8], pages[16] = "";
        nb_snprintf(name, sizeof(name), "L%u%s", (r[CPUID_EDX] >> 5) & 0x7,
                    type < 6 ? type_suffix[type] : "?");
        static const char *const sizes[] = { "4K", "2M", "4M", "1G" };
        size_t n = 0;
        for (int b = 0; b < 4; b++)
            if (r[CPUID_EBX] & (1u << b))
                n += nb_snprintf(pages + n, sizeof(pages) - n, "%s%s", n ? "/" : "", sizes[b]);
        uint32_t ways = r[CPUID_EBX] >> 16;
        bool fully = (r[CPUID_EDX] >> 8) & 1;
        add_tlb(out, name, pages, ways * r[CPUID_ECX], fully ? 0 : ways);
    }
    out->tlb_source = "CPUID.18H";
}

void cpu_caches_read(const struct nb_platform *p, const struct machine_info *m, struct cpu_cache_info *out)
{
    nb_memset(out, 0, sizeof(*out));
    uint32_t r[4] = { 0 };
    if (m->vendor_id == VENDOR_AMD) {
        if (m->max_ext_leaf >= CPUID_LEAF_AMD_CACHE_TOPOLOGY && m->max_ext_leaf >= CPUID_LEAF_EXT_FEATURES) {
            cpuid(p, CPUID_LEAF_EXT_FEATURES, 0, r);
            if (r[CPUID_ECX] & CPUID_80000001_ECX_TOPOEXT)
                deterministic_caches(p, CPUID_LEAF_AMD_CACHE_TOPOLOGY, out);
        }
        if (!out->n_caches)
            amd_legacy_caches(p, m, out);
        amd_tlbs(p, m, out);
    } else if (m->vendor_id == VENDOR_INTEL) {
        if (m->max_leaf >= CPUID_LEAF_CACHE_PARAMS)
            deterministic_caches(p, CPUID_LEAF_CACHE_PARAMS, out);
        intel_tlbs(p, m, out);
    } else {
        out->tlb_missing = "unknown vendor";
    }
}
