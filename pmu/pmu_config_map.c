/*
 * pmu_config_map.c — cpu_map.txt lookup (see pmu_config_map.h).
 */
#include "pmu_config_map.h"
#include "cpuid_bits.h"
#include "nb_text.h"

#define MAX_WORDS 6

/* Splits one line into words; returns the count (a '#' word ends the line). */
static int split(const char *s, const char *end, char words[MAX_WORDS][40])
{
    int n = 0;
    while (s < end && n < MAX_WORDS) {
        while (s < end && nb_is_space(*s))
            s++;
        if (s == end || *s == '#')
            break;
        size_t k = 0;
        while (s < end && !nb_is_space(*s)) {
            if (k + 1 < sizeof(words[n]))
                words[n][k++] = *s;
            s++;
        }
        words[n++][k] = '\0';
    }
    return n;
}

enum config_match pmu_config_map_choose(const char *text, size_t len, enum cpu_vendor vendor,
                                        uint32_t family, uint32_t model, unsigned core_type,
                                        struct config_choice *out)
{
    const char *want = vendor == VENDOR_INTEL ? "intel" : vendor == VENDOR_AMD ? "amd" : NULL;
    const char *s = text, *end = text + len;
    enum config_match match = CONFIG_MATCH_NONE;

    out->path[0] = out->prefix[0] = '\0';
    out->model = 0;
    out->ecore = false;
    while (want && s < end) {
        const char *line_end = s;
        while (line_end < end && *line_end != '\n')
            line_end++;
        char w[MAX_WORDS][40];
        int n = split(s, line_end, w);
        int64_t f, m;
        s = line_end < end ? line_end + 1 : end;
        if (n < 4 || nb_strcmp(w[0], want) != 0 || !nb_parse_i64(w[1], &f) ||
            !nb_parse_i64(w[2], &m) || f != (int64_t)family)
            continue;
        match = CONFIG_MATCH_UNKNOWN_MODEL;
        if (m != (int64_t)model)
            continue;
        bool ecore = n >= 5 && core_type == HYBRID_CORE_ATOM;
        const char *prefix = ecore ? w[4] : w[3];
        nb_snprintf(out->path, sizeof(out->path), "configs/cfg_%s_common.txt", prefix);
        nb_snprintf(out->prefix, sizeof(out->prefix), "%s", prefix);
        out->model = (uint32_t)m;
        out->ecore = ecore;
        return CONFIG_MATCH_EXACT;
    }
    return match;
}

bool pmu_config_map_lookup(const char *text, size_t len, enum cpu_vendor vendor, uint32_t family,
                           uint32_t model, unsigned core_type, char *out, size_t cap)
{
    struct config_choice c;
    if (pmu_config_map_choose(text, len, vendor, family, model, core_type, &c) !=
        CONFIG_MATCH_EXACT)
        return false;
    nb_snprintf(out, cap, "%s", c.path);
    return true;
}
