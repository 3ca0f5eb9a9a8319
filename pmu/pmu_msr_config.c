/*
 * pmu_msr_config.c — MSR config parser (format in pmu_msr_config.h).
 */
#include "pmu_msr_config.h"
#include "config_lines.h"
#include "msr_names.h"
#include "nb_text.h"


struct msr_line {
    unsigned line;
    pmu_config_error_fn on_error;
    void *arg;
};

static bool bad(struct msr_line *ml, const char *fmt, const char *a)
{
    char message[160];
    nb_snprintf(message, sizeof(message), fmt, a);
    if (ml->on_error)
        ml->on_error(ml->arg, ml->line, message);
    return false;
}

/* "msr_0x1A6", "msr_1a6", "msr_1A6h" -> 0x1A6 */
static bool parse_msr_name(struct msr_line *ml, char *text, uint32_t *msr)
{
    if (!nb_starts_with(text, "msr_"))
        return bad(ml, "'%s' is not of the form msr_ADDRESS", text);
    char *hex = text + 4;
    size_t n = nb_strlen(hex);
    if (n > 0 && (hex[n - 1] == 'h' || hex[n - 1] == 'H'))
        hex[n - 1] = '\0';
    uint64_t v;
    if (!nb_parse_hex_u64(hex, &v) || v > 0xFFFFFFFFull)
        return bad(ml, "bad MSR address in '%s' (hex)", text);
    *msr = (uint32_t)v;
    return true;
}

unsigned msr_counter_width(uint32_t msr)
{
    switch (msr) {
    case MSR_PKG_ENERGY_STATUS:
    case MSR_DRAM_ENERGY_STATUS:
    case MSR_PP0_ENERGY_STATUS:
    case MSR_PP1_ENERGY_STATUS:
    case MSR_PLATFORM_ENERGY_STATUS:
    case MSR_AMD_CORE_ENERGY_STAT:
    case MSR_AMD_PKG_ENERGY_STAT:
        return RAPL_ENERGY_BITS;
    case MSR_UNC_ARB_PERFCTR0:
    case MSR_UNC_ARB_PERFCTR0 + 1:
        return UNC_CTR_BITS;
    case MSR_UNC_PERF_FIXED_CTR:
        return UNC_FIXED_CTR_BITS;
    default:
        break;
    }
    for (uint32_t box = 0; box < MSR_UNC_CBO_BOXES; box++) {
        uint32_t ctr0 = MSR_UNC_CBO_0_PERFCTR0 + box * MSR_UNC_CBO_STRIDE;
        if (msr == ctr0 || msr == ctr0 + 1)
            return UNC_CTR_BITS;
    }
    if (msr >= MSR_AMD_L3_PERF_CTR0 && msr < MSR_AMD_L3_PERF_CTR0 + 2 * AMD_L3_COUNTERS &&
        (msr - MSR_AMD_L3_PERF_CTR0) % 2 == 0)
        return AMD_L3_CTR_BITS;
    return 0;
}

/* "msr_ADDR:BITS": the read MSR with a counter width; without ":" the known width. */
static bool parse_read_msr(struct msr_line *ml, char *text, struct msr_event *ev)
{
    char *colon = text;
    while (*colon && *colon != ':')
        colon++;
    if (!*colon) {
        if (!parse_msr_name(ml, text, &ev->read_msr))
            return false;
        ev->width = msr_counter_width(ev->read_msr);
        return true;
    }
    int64_t bits;
    *colon = '\0';
    if (!nb_parse_i64(colon + 1, &bits) || bits < 1 || bits > 64) {
        *colon = ':';
        return bad(ml, "bad counter width in '%s' (1..64 bits)", text);
    }
    ev->width = (unsigned)bits;
    return parse_msr_name(ml, text, &ev->read_msr);
}

static bool parse_writes(struct msr_line *ml, char *spec, struct msr_event *ev)
{
    char *item = spec;
    while (item) {
        char *next = item;
        while (*next && *next != '.')
            next++;
        char *following = *next ? next + 1 : NULL;
        *next = '\0';
        char *eq = item;
        while (*eq && *eq != '=')
            eq++;
        if (!*eq)
            return bad(ml, "'%s' needs msr_ADDRESS=VALUE", item);
        *eq = '\0';
        if (ev->n_writes == MSR_EVENT_MAX_WRITES)
            return bad(ml, "more than %s MSR writes", "10");
        if (!parse_msr_name(ml, item, &ev->write_msr[ev->n_writes]))
            return false;
        char *value = eq + 1;
        size_t n = nb_strlen(value);
        if (n > 0 && (value[n - 1] == 'h' || value[n - 1] == 'H')) {
            value[n - 1] = '\0';
            if (!nb_parse_hex_u64(value, &ev->write_value[ev->n_writes]))
                return bad(ml, "bad MSR value '%s'", value);
        } else {
            int64_t v;
            uint64_t u;
            if (nb_parse_i64(value, &v) && v >= 0)
                ev->write_value[ev->n_writes] = (uint64_t)v;
            else if ((value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) && nb_parse_hex_u64(value, &u))
                ev->write_value[ev->n_writes] = u;
            else
                return bad(ml, "bad MSR value '%s'", value);
        }
        ev->n_writes++;
        item = following;
    }
    return true;
}

/* Splits off the next space-separated word; NULL at the end. */
static char *next_word(char **s)
{
    while (nb_is_space(**s))
        (*s)++;
    if (!**s)
        return NULL;
    char *w = *s;
    while (**s && !nb_is_space(**s))
        (*s)++;
    if (**s)
        *(*s)++ = '\0';
    return w;
}

static bool parse_line(struct msr_line *ml, char *s, struct msr_event *ev)
{
    nb_memset(ev, 0, sizeof(*ev));
    ev->line = ml->line;
    char *words[3];
    int n = 0;
    char *w;
    while (n < 3 && (w = next_word(&s)))
        words[n++] = w;
    while (nb_is_space(*s))
        s++;
    if (n == 3 && *s)
        return bad(ml, "unexpected text after the name: '%s'", s);
    if (n < 2)
        return bad(ml, "'%s' needs a name", n ? words[0] : "");
    const char *name = words[n - 1];
    if (nb_strlen(name) >= PMU_EVENT_NAME_MAX)
        return bad(ml, "name '%s' is too long", name);
    nb_memcpy(ev->name, name, nb_strlen(name) + 1);
    if (n == 3 && !parse_writes(ml, words[0], ev))
        return false;
    return parse_read_msr(ml, words[n - 2], ev);
}

struct msr_parse {
    struct msr_line ml;
    struct msr_event *events;
    size_t max, count;
};

static bool msr_line_cb(void *arg, unsigned line, char *text)
{
    struct msr_parse *mp = arg;
    mp->ml.line = line;
    if (mp->count == mp->max) {
        bad(&mp->ml, "more than %s MSR events; the rest are ignored", "256");
        return false;
    }
    if (parse_line(&mp->ml, text, &mp->events[mp->count]))
        mp->count++;
    return true;
}

static void msr_long_line(void *arg, unsigned line)
{
    struct msr_parse *mp = arg;
    mp->ml.line = line;
    bad(&mp->ml, "line longer than %s characters", "511");
}

size_t msr_config_parse(const char *text, size_t len, struct msr_event *events, size_t max,
                        pmu_config_error_fn on_error, void *arg)
{
    struct msr_parse mp = { { 0, on_error, arg }, events, max, 0 };
    config_for_each_line(text, len, msr_line_cb, msr_long_line, &mp);
    return mp.count;
}
