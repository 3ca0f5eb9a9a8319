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

/*
 * How many of the words w[from..n) (qualifiers) the processor satisfies; -1 when one
 * of them does not apply or is not understood (the line is then not for this CPU).
 */
static int qualifiers(char w[MAX_WORDS][40], int from, int n, const struct config_cpu *cpu)
{
    int count = 0;
    for (int i = from; i < n; i++) {
        int64_t lo, hi;
        char *eq = w[i];
        while (*eq && *eq != '=')
            eq++;
        if (!*eq)
            return -1;
        *eq = '\0';
        const char *key = w[i], *val = eq + 1;
        if (nb_strcmp(key, "stepping") == 0) {
            char first[40];
            size_t k = 0;
            while (val[k] && val[k] != '-' && k + 1 < sizeof(first)) {
                first[k] = val[k];
                k++;
            }
            first[k] = '\0';
            if (!nb_parse_i64(first, &lo))
                return -1;
            hi = lo;
            if (val[k] == '-' && !nb_parse_i64(val + k + 1, &hi))
                return -1;
            if (cpu->stepping < 0 || cpu->stepping < lo || cpu->stepping > hi)
                return -1;
        } else if (nb_strcmp(key, "native") == 0) {
            if (!nb_parse_i64(val, &lo) || cpu->native_model == 0 || (uint32_t)lo != cpu->native_model)
                return -1;
        } else {
            return -1;
        }
        count++;
    }
    return count;
}

enum config_match pmu_config_map_choose_cpu(const char *text, size_t len, const struct config_cpu *cpu,
                                            struct config_choice *out)
{
    const char *want = cpu->vendor == VENDOR_INTEL ? "intel" : cpu->vendor == VENDOR_AMD ? "amd" : NULL;
    const char *s = text, *end = text + len;
    enum config_match match = CONFIG_MATCH_NONE;
    int best_quals = -1;

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
            !nb_parse_i64(w[2], &m) || f != (int64_t)cpu->family)
            continue;
        match = CONFIG_MATCH_UNKNOWN_MODEL; /* the family is listed; a line of this model may follow */
        if (m != (int64_t)cpu->model)
            continue;
        /* PREFIX [E_PREFIX], then the qualifiers (words with '='). */
        int nprefix = 1;
        if (n >= 5) {
            const char *c = w[4];
            while (*c && *c != '=')
                c++;
            nprefix = *c ? 1 : 2;
        }
        int quals = qualifiers(w, 3 + nprefix, n, cpu);
        /* A line that does not apply, or one less qualified than the best so far. */
        if (quals < 0 || quals <= best_quals)
            continue;
        bool ecore = nprefix == 2 && cpu->core_type == HYBRID_CORE_ATOM;
        const char *prefix = ecore ? w[4] : w[3];
        nb_snprintf(out->path, sizeof(out->path), "configs/cfg_%s_common.txt", prefix);
        nb_snprintf(out->prefix, sizeof(out->prefix), "%s", prefix);
        out->model = (uint32_t)m;
        out->ecore = ecore;
        best_quals = quals;
    }
    return best_quals >= 0 ? CONFIG_MATCH_EXACT : match;
}

enum config_match pmu_config_map_choose(const char *text, size_t len, enum cpu_vendor vendor,
                                        uint32_t family, uint32_t model, unsigned core_type,
                                        struct config_choice *out)
{
    struct config_cpu cpu = { vendor, family, model, -1, core_type, 0 };
    return pmu_config_map_choose_cpu(text, len, &cpu, out);
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
