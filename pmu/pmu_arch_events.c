/*
 * pmu_arch_events.c — built-in fallback configs (see pmu_arch_events.h).
 */
#include "pmu_arch_events.h"
#include "nb_text.h"
#include "pmu.h"

/* Line i is architectural event i of SDM table 20-1 (= CPUID.0AH:EBX bit i). */
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

/* Calls fn for each line of INTEL_ARCH with its bit number; returns nothing. */
static void for_each_intel_line(void (*fn)(void *arg, unsigned bit, const char *line, size_t len),
                                void *arg)
{
    const char *s = INTEL_ARCH;
    for (unsigned bit = 0; *s; bit++) {
        const char *end = s;
        while (*end != '\n')
            end++;
        fn(arg, bit, s, (size_t)(end - s + 1));
        s = end + 1;
    }
}

struct filter {
    uint32_t missing;
    bool names;    /* write the names of missing events, else the lines of present ones */
    char *out;
    size_t cap, len;
    unsigned count;
};

static void append(struct filter *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (f->len + 1 < f->cap)
            f->out[f->len] = s[i];
        f->len++;
    }
    if (f->cap)
        f->out[f->len < f->cap ? f->len : f->cap - 1] = '\0';
}

static void filter_line(void *arg, unsigned bit, const char *line, size_t len)
{
    struct filter *f = arg;
    bool missing = (f->missing >> bit) & 1;
    if (!f->names) {
        if (!missing)
            append(f, line, len);
        return;
    }
    if (!missing)
        return;
    const char *name = line;
    while (*name != ' ')
        name++;
    name++;
    if (f->count++)
        append(f, " ", 1);
    append(f, name, (size_t)(line + len - 1 - name));
}

size_t pmu_arch_events_for(const struct pmu_desc *d, char *out, size_t cap)
{
    struct filter f = { d->arch_events_missing, false, out, cap, 0, 0 };
    if (cap)
        out[0] = '\0';
    if (d->vendor != VENDOR_INTEL) {
        const char *text = pmu_arch_events(d->vendor);
        append(&f, text, nb_strlen(text));
        return f.len;
    }
    for_each_intel_line(filter_line, &f);
    return f.len;
}

unsigned pmu_arch_events_missing(const struct pmu_desc *d, char *out, size_t cap)
{
    struct filter f = { d->arch_events_missing, true, out, cap, 0, 0 };
    if (cap)
        out[0] = '\0';
    if (d->vendor == VENDOR_INTEL)
        for_each_intel_line(filter_line, &f);
    return f.count;
}
