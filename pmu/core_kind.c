/*
 * core_kind.c — the core kind of a processor from CPUID leaves 07H and 1AH
 * (see core_kind.h).
 */
#include "core_kind.h"
#include "cpuid_bits.h"
#include "nb_text.h"

void core_kind_read(const struct nb_platform *p, struct core_kind *out)
{
    uint32_t r[4];
    out->type = 0;
    out->native_model = 0;
    p->cpuid(p->ctx, CPUID_LEAF_VENDOR, 0, r);
    uint32_t max_leaf = r[CPUID_EAX];
    if (max_leaf < CPUID_LEAF_HYBRID)
        return;
    /* Leaf 1AH is only meaningful where CPUID.(7,0):EDX[15] says the part is hybrid. */
    p->cpuid(p->ctx, CPUID_LEAF_STRUCTURED_EXT, 0, r);
    if (!(r[CPUID_EDX] & CPUID_07_EDX_HYBRID))
        return;
    p->cpuid(p->ctx, CPUID_LEAF_HYBRID, 0, r);
    out->type = HYBRID_CORE_TYPE(r[CPUID_EAX]);
    out->native_model = HYBRID_NATIVE_MODEL(r[CPUID_EAX]);
}

void core_kind_describe(const struct core_kind *k, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (!k->type && !k->native_model)
        return;
    char name[24];
    if (k->type == HYBRID_CORE_CORE)
        nb_snprintf(name, sizeof(name), "P-core");
    else if (k->type == HYBRID_CORE_ATOM)
        nb_snprintf(name, sizeof(name), "E-core");
    else
        nb_snprintf(name, sizeof(name), "core type %02XH", k->type);
    nb_snprintf(out, cap, "%s (CPUID.1AH core type %02XH, native model %06XH)", name, k->type,
                (unsigned)k->native_model);
}
