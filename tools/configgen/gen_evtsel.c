/*
 * gen_evtsel — decode, format and parse nanoBench config entries (see gen_evtsel.h).
 */
#include "gen_evtsel.h"
#include "pmu_msrs.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Bit fields of IA32_PERFEVTSELx and AMD PERF_CTLx: the image's own names
 * (pmu/pmu_msrs.h), plus the masks and TSX bits only the decoder needs.
 */
#define PERFEVTSEL_UMASK_MASK  (0xFFull << PERFEVTSEL_UMASK_SHIFT)
#define PERFEVTSEL_CMASK_MASK  (0xFFull << PERFEVTSEL_CMASK_SHIFT)
#define PERFEVTSEL_IN_TX       (1ull << 32) /* TSX filters (SDM "Performance Monitoring */
#define PERFEVTSEL_IN_TXCP     (1ull << 33) /*  and Intel TSX"): no nanoBench modifier */
#define PERF_CTL_EVENT_LO_MASK  AMD_PERF_CTL_EVENT_LO_MASK
#define PERF_CTL_UMASK_SHIFT    AMD_PERF_CTL_UMASK_SHIFT
#define PERF_CTL_UMASK_MASK     (0xFFull << PERF_CTL_UMASK_SHIFT)
#define PERF_CTL_USR            AMD_PERF_CTL_USR
#define PERF_CTL_OS             AMD_PERF_CTL_OS
#define PERF_CTL_EDGE           AMD_PERF_CTL_EDGE
#define PERF_CTL_INT            AMD_PERF_CTL_INT
#define PERF_CTL_EN             AMD_PERF_CTL_EN
#define PERF_CTL_INV            AMD_PERF_CTL_INV
#define PERF_CTL_CMASK_SHIFT    AMD_PERF_CTL_CMASK_SHIFT
#define PERF_CTL_CMASK_MASK     (0xFFull << PERF_CTL_CMASK_SHIFT)
#define PERF_CTL_EVENT_HI_SHIFT AMD_PERF_CTL_EVENT_HI_SHIFT
#define PERF_CTL_EVENT_HI_MASK  (0xFull << PERF_CTL_EVENT_HI_SHIFT)
/* nanoBench writes the AMD counter mask into 7 bits (PERF_CTL[30:24]). */
#define AMD_CMASK_MAX 0x7F

static const char *const msr_names[GEN_MSR_COUNT] = {
    [GEN_MSR_3F6H] = "MSR_3F6H",
    [GEN_MSR_PF] = "MSR_PF",
    [GEN_MSR_RSP0] = "MSR_RSP0",
    [GEN_MSR_RSP1] = "MSR_RSP1",
};

void gen_evtsel_init(struct gen_evtsel *e)
{
    memset(e, 0, sizeof(*e));
    e->ctr_mask = 0;
}

static int decode_intel(uint64_t raw, struct gen_evtsel *e, const char **why)
{
    uint64_t rest = raw & ~(PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_INT |
                            PERFEVTSEL_EN | PERFEVTSEL_PC);
    uint64_t known = PERFEVTSEL_EVENT_MASK | PERFEVTSEL_UMASK_MASK | PERFEVTSEL_EDGE |
                     PERFEVTSEL_ANY | PERFEVTSEL_INV | PERFEVTSEL_CMASK_MASK;

    e->event = (uint16_t)(rest & PERFEVTSEL_EVENT_MASK);
    e->umask = (uint8_t)((rest & PERFEVTSEL_UMASK_MASK) >> PERFEVTSEL_UMASK_SHIFT);
    e->cmask = (uint8_t)((rest & PERFEVTSEL_CMASK_MASK) >> PERFEVTSEL_CMASK_SHIFT);
    e->edge = (rest & PERFEVTSEL_EDGE) != 0;
    e->any = (rest & PERFEVTSEL_ANY) != 0;
    e->inv = (rest & PERFEVTSEL_INV) != 0;
    if (rest & (PERFEVTSEL_IN_TX | PERFEVTSEL_IN_TXCP)) {
        *why = "uses the TSX IN_TX/IN_TXCP filter bits (no nanoBench modifier)";
        return -1;
    }
    if (rest & ~known) {
        *why = "sets PERFEVTSEL bits nanoBench cannot express";
        return -1;
    }
    return 0;
}

static int decode_amd(uint64_t raw, struct gen_evtsel *e, const char **why)
{
    uint64_t rest = raw & ~(PERF_CTL_USR | PERF_CTL_OS | PERF_CTL_INT | PERF_CTL_EN);
    uint64_t known = PERF_CTL_EVENT_LO_MASK | PERF_CTL_UMASK_MASK | PERF_CTL_EDGE |
                     PERF_CTL_INV | PERF_CTL_CMASK_MASK | PERF_CTL_EVENT_HI_MASK;

    e->event = (uint16_t)((rest & PERF_CTL_EVENT_LO_MASK) |
                          ((rest & PERF_CTL_EVENT_HI_MASK) >> (PERF_CTL_EVENT_HI_SHIFT - 8)));
    e->umask = (uint8_t)((rest & PERF_CTL_UMASK_MASK) >> PERF_CTL_UMASK_SHIFT);
    e->cmask = (uint8_t)((rest & PERF_CTL_CMASK_MASK) >> PERF_CTL_CMASK_SHIFT);
    e->edge = (rest & PERF_CTL_EDGE) != 0;
    e->inv = (rest & PERF_CTL_INV) != 0;
    if (rest & ~known) {
        *why = "sets PERF_CTL bits nanoBench cannot express (e.g. HostOnly/GuestOnly)";
        return -1;
    }
    if (e->cmask > AMD_CMASK_MAX) {
        *why = "counter mask above 127 (nanoBench uses PERF_CTL[30:24] on AMD)";
        return -1;
    }
    return 0;
}

int gen_evtsel_decode(enum gen_vendor vendor, uint64_t raw, struct gen_evtsel *e,
                      const char **why)
{
    gen_evtsel_init(e);
    return vendor == GEN_VENDOR_AMD ? decode_amd(raw, e, why) : decode_intel(raw, e, why);
}

size_t gen_evtsel_format(enum gen_vendor vendor, const struct gen_evtsel *e, char *buf,
                         size_t size)
{
    size_t n = 0;

#define PUT(...)                                                                      \
    do {                                                                              \
        int r_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);             \
        if (r_ > 0)                                                                   \
            n += (size_t)r_;                                                          \
    } while (0)

    if (vendor == GEN_VENDOR_AMD)
        PUT("%03X.%02X", e->event, e->umask);
    else
        PUT("%02X.%02X", e->event, e->umask);
    if (e->cmask)
        PUT(".CMSK=%u", e->cmask);
    if (e->any)
        PUT(".AnyT");
    if (e->edge)
        PUT(".EDG");
    if (e->inv)
        PUT(".INV");
    if (e->taken_alone)
        PUT(".TakenAlone");
    if (e->ctr_mask) {
        char set[96];
        gen_ctr_format(e->ctr_mask, set, sizeof(set));
        PUT(".CTR=%s", set);
    }
    for (int m = 0; m < GEN_MSR_COUNT; m++)
        if (e->has_msr[m])
            PUT(".%s=0x%" PRIX64, msr_names[m], e->msr[m]);
#undef PUT
    return n;
}

/* The offcore value, whichever of the two RSP registers carries it. */
static bool offcore_value(const struct gen_evtsel *e, uint64_t *v)
{
    if (e->has_msr[GEN_MSR_RSP0]) {
        *v = e->msr[GEN_MSR_RSP0];
        return true;
    }
    if (e->has_msr[GEN_MSR_RSP1]) {
        *v = e->msr[GEN_MSR_RSP1];
        return true;
    }
    return false;
}

bool gen_evtsel_same(const struct gen_evtsel *a, const struct gen_evtsel *b)
{
    uint64_t va = 0, vb = 0;
    bool oa = offcore_value(a, &va), ob = offcore_value(b, &vb);

    if (oa || ob) {
        /* OFFCORE_RESPONSE_0 and _1 are the same event on two MSRs: compare values. */
        if (oa != ob || va != vb)
            return false;
    } else if (a->event != b->event || a->umask != b->umask) {
        return false;
    }
    if (a->cmask != b->cmask || a->any != b->any || a->edge != b->edge ||
        a->inv != b->inv || a->taken_alone != b->taken_alone || a->ctr_mask != b->ctr_mask)
        return false;
    for (int m = GEN_MSR_3F6H; m <= GEN_MSR_PF; m++)
        if (a->has_msr[m] != b->has_msr[m] || (a->has_msr[m] && a->msr[m] != b->msr[m]))
            return false;
    return true;
}

bool gen_name_ok(const char *name)
{
    if (!*name)
        return false;
    for (const char *p = name; *p; p++)
        if (!(isalpha((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' ||
              *p == '.'))
            return false;
    return true;
}

/* Exactly `digits` upper-case hex digits, then end of field. */
static bool parse_hex_field(const char *s, size_t len, size_t digits, unsigned *out)
{
    unsigned v = 0;

    if (len != digits)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            v = v * 16 + (unsigned)(c - '0');
        else if (c >= 'A' && c <= 'F')
            v = v * 16 + (unsigned)(c - 'A' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

static bool parse_dec(const char *s, size_t len, unsigned max, unsigned *out)
{
    unsigned long v = 0;

    if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool parse_msr_value(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;

    if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
        return false;
    for (size_t i = 2; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            v = v * 16 + (uint64_t)(c - '0');
        else if (c >= 'A' && c <= 'F')
            v = v * 16 + (uint64_t)(c - 'A' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

size_t gen_ctr_format(uint32_t mask, char *buf, size_t size)
{
    size_t n = 0;

    if (size)
        buf[0] = 0;
    for (int i = 0; i < 32; i++) {
        int j = i;
        int r;

        if (!(mask & (1u << i)))
            continue;
        while (j < 31 && (mask & (1u << (j + 1))))
            j++;
        if (j == i)
            r = snprintf(buf + n, n < size ? size - n : 0, "%s%d", n ? "," : "", i);
        else
            r = snprintf(buf + n, n < size ? size - n : 0, "%s%d-%d", n ? "," : "", i, j);
        if (r > 0)
            n += (size_t)r;
        i = j;
    }
    return n;
}

int gen_ctr_parse(const char *s, size_t len, uint32_t *mask)
{
    const char *end = s + len;
    uint32_t m = 0;
    int last = -1;

    while (s < end) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *item_end = comma ? comma : end;
        const char *dash = memchr(s, '-', (size_t)(item_end - s));
        unsigned lo, hi;

        if (dash) {
            if (!parse_dec(s, (size_t)(dash - s), 31, &lo) ||
                !parse_dec(dash + 1, (size_t)(item_end - dash - 1), 31, &hi) || hi <= lo)
                return -1;
        } else {
            if (!parse_dec(s, (size_t)(item_end - s), 31, &lo))
                return -1;
            hi = lo;
        }
        if ((int)lo <= last)
            return -1; /* ascending, no overlap: one way to read every set */
        for (unsigned i = lo; i <= hi; i++)
            m |= 1u << i;
        last = (int)hi;
        if (!comma)
            break;
        s = comma + 1;
        if (s == end)
            return -1;
    }
    if (!m)
        return -1;
    *mask = m;
    return 0;
}

/* Modifier kinds in the order the grammar allows them. */
enum mod { MOD_CMSK, MOD_ANYT, MOD_EDG, MOD_INV, MOD_ALONE, MOD_CTR, MOD_MSR0 };

int gen_evtsel_parse(const char *line, enum gen_vendor *vendor, struct gen_evtsel *e,
                     char *name, size_t name_size, const char **why)
{
    const char *sp = strchr(line, ' ');
    const char *p = line, *end;
    unsigned v;
    int next_mod = MOD_CMSK;

    gen_evtsel_init(e);
    if (!sp || sp == line) {
        *why = "expected 'EvtSel.UMASK... Name'";
        return -1;
    }
    if (strlen(sp + 1) >= name_size || !gen_name_ok(sp + 1)) {
        *why = "name must be [A-Za-z0-9_.]+ (one space after the event, nothing after)";
        return -1;
    }
    strcpy(name, sp + 1);

    end = memchr(p, '.', (size_t)(sp - p));
    if (!end) {
        *why = "missing '.UMASK'";
        return -1;
    }
    if (parse_hex_field(p, (size_t)(end - p), 2, &v)) {
        *vendor = GEN_VENDOR_INTEL;
    } else if (parse_hex_field(p, (size_t)(end - p), 3, &v)) {
        *vendor = GEN_VENDOR_AMD;
    } else {
        *why = "event code must be 2 (Intel) or 3 (AMD) upper-case hex digits";
        return -1;
    }
    e->event = (uint16_t)v;
    p = end + 1;
    end = memchr(p, '.', (size_t)(sp - p));
    if (!end)
        end = sp;
    if (!parse_hex_field(p, (size_t)(end - p), 2, &v)) {
        *why = "umask must be 2 upper-case hex digits";
        return -1;
    }
    e->umask = (uint8_t)v;

    while (end < sp) {
        size_t len;
        const char *eq;
        int mod = -1, msr = -1;

        p = end + 1;
        end = memchr(p, '.', (size_t)(sp - p));
        if (!end)
            end = sp;
        len = (size_t)(end - p);
        eq = memchr(p, '=', len);
        if (len == 4 && !memcmp(p, "AnyT", 4)) {
            mod = MOD_ANYT;
            e->any = true;
        } else if (len == 3 && !memcmp(p, "EDG", 3)) {
            mod = MOD_EDG;
            e->edge = true;
        } else if (len == 3 && !memcmp(p, "INV", 3)) {
            mod = MOD_INV;
            e->inv = true;
        } else if (len == 10 && !memcmp(p, "TakenAlone", 10)) {
            mod = MOD_ALONE;
            e->taken_alone = true;
        } else if (eq && eq - p == 4 && !memcmp(p, "CMSK", 4)) {
            mod = MOD_CMSK;
            if (!parse_dec(eq + 1, (size_t)(end - eq - 1), 255, &v) || v == 0) {
                *why = "CMSK must be a decimal 1..255";
                return -1;
            }
            e->cmask = (uint8_t)v;
        } else if (eq && eq - p == 3 && !memcmp(p, "CTR", 3)) {
            mod = MOD_CTR;
            if (gen_ctr_parse(eq + 1, (size_t)(end - eq - 1), &e->ctr_mask) != 0) {
                *why = "CTR must be counter indices 0..31: n, n-m, n,m,... ascending";
                return -1;
            }
        } else if (eq) {
            for (int m = 0; m < GEN_MSR_COUNT; m++)
                if ((size_t)(eq - p) == strlen(msr_names[m]) &&
                    !memcmp(p, msr_names[m], (size_t)(eq - p)))
                    msr = m;
            if (msr < 0) {
                *why = "unknown modifier";
                return -1;
            }
            mod = MOD_MSR0 + msr;
            if (!parse_msr_value(eq + 1, (size_t)(end - eq - 1), &e->msr[msr])) {
                *why = "MSR value must be 0x followed by 1-16 upper-case hex digits";
                return -1;
            }
            e->has_msr[msr] = true;
        } else {
            *why = "unknown modifier";
            return -1;
        }
        if (mod < next_mod) {
            *why = "modifier repeated or out of grammar order";
            return -1;
        }
        next_mod = mod + 1;
    }

    if (*vendor == GEN_VENDOR_AMD) {
        if (e->any) {
            *why = "AnyT is Intel-only";
            return -1;
        }
        for (int m = 0; m < GEN_MSR_COUNT; m++)
            if (e->has_msr[m]) {
                *why = "MSR_* modifiers are Intel-only";
                return -1;
            }
        if (e->cmask > AMD_CMASK_MAX) {
            *why = "AMD CMSK must be at most 127";
            return -1;
        }
    }
    return 0;
}
