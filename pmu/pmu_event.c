/*
 * pmu_event.c — the counter sets of `.CTR=` (see pmu_event.h); the config
 * parser itself is pmu_config_parse.c.
 */
#include "pmu_event.h"
#include "nb_text.h"

size_t pmu_counter_set_format(uint32_t mask, char *out, size_t cap)
{
    size_t n = 0;
    if (cap)
        out[0] = '\0';
    for (unsigned i = 0; i < 32; i++) {
        if (!(mask & (1u << i)))
            continue;
        unsigned j = i;
        while (j + 1 < 32 && (mask & (1u << (j + 1))))
            j++;
        const char *sep = n ? "," : "";
        if (j == i)
            n += nb_snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%u", sep, i);
        else
            n += nb_snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%u-%u", sep, i, j);
        i = j;
    }
    return n;
}

/* A counter number of a .CTR set: decimal or 0x-hex, 0..31. */
static bool parse_counter(const char *s, const char *end, unsigned *out)
{
    char num[24];
    size_t len = (size_t)(end - s);
    int64_t v;
    if (len == 0 || len >= sizeof(num))
        return false;
    nb_memcpy(num, s, len);
    num[len] = '\0';
    if (!nb_parse_i64(num, &v) || v < 0 || v > 31)
        return false;
    *out = (unsigned)v;
    return true;
}

bool pmu_counter_set_parse(const char *text, uint32_t *out, bool *single_out)
{
    uint32_t mask = 0;
    bool single = true;
    const char *s = text;
    if (!*s)
        return false;
    while (*s) {
        const char *end = s;
        while (*end && *end != ',')
            end++;
        const char *dash = s;
        while (dash < end && *dash != '-')
            dash++;
        unsigned lo, hi;
        if (dash == end) {
            if (!parse_counter(s, end, &lo))
                return false;
            hi = lo;
        } else {
            single = false;
            if (!parse_counter(s, dash, &lo) || !parse_counter(dash + 1, end, &hi) || lo > hi)
                return false;
        }
        for (unsigned c = lo; c <= hi; c++)
            mask |= 1u << c;
        if (*end == ',') {
            single = false;
            if (!end[1])
                return false;
            end++;
        }
        s = end;
    }
    *out = mask;
    *single_out = single;
    return true;
}
