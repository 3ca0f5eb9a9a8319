/*
 * pmu_event.c — config file parser (format in pmu_event.h).
 */
#include "pmu_event.h"
#include "config_lines.h"
#include "nb_text.h"


struct line_parser {
    unsigned line;
    pmu_config_error_fn on_error;
    void *arg;
    char message[160];
};

static bool bad(struct line_parser *lp, const char *fmt, const char *a)
{
    nb_snprintf(lp->message, sizeof(lp->message), fmt, a);
    if (lp->on_error)
        lp->on_error(lp->arg, lp->line, lp->message);
    return false;
}

static bool parse_hex_field(struct line_parser *lp, const char *text, unsigned max_digits,
                            uint64_t *out, const char *what)
{
    if (nb_strlen(text) > max_digits || !nb_parse_hex_u64(text, out))
        return bad(lp, what, text);
    return true;
}

static bool parse_number(struct line_parser *lp, const char *text, int64_t max, int64_t *out,
                         const char *what)
{
    if (!nb_parse_i64(text, out) || *out < 0 || *out > max)
        return bad(lp, what, text);
    return true;
}

static const struct {
    const char *prefix;
    enum pmu_aux aux;
} AUX_MODIFIERS[] = {
    { "MSR_RSP0=", AUX_RSP0 },
    { "MSR_RSP1=", AUX_RSP1 },
    { "MSR_3F6H=", AUX_3F6H },
    { "MSR_PF=", AUX_PF },
};

static bool parse_modifier(struct line_parser *lp, char *mod, unsigned n_counters,
                           struct pmu_event *ev)
{
    int64_t v;
    if (nb_strcmp(mod, "AnyT") == 0) {
        ev->any = true;
    } else if (nb_strcmp(mod, "EDG") == 0) {
        ev->edge = true;
    } else if (nb_strcmp(mod, "INV") == 0) {
        ev->inv = true;
    } else if (nb_strcmp(mod, "TakenAlone") == 0) {
        ev->taken_alone = true;
    } else if (nb_starts_with(mod, "CMSK=")) {
        if (!parse_number(lp, mod + 5, 255, &v, "bad counter mask '%s' (0..255)"))
            return false;
        ev->cmask = (uint8_t)v;
    } else if (nb_starts_with(mod, "CTR=")) {
        if (!parse_number(lp, mod + 4, 255, &v, "bad counter number '%s'"))
            return false;
        if (v >= (int64_t)n_counters) {
            char what[96];
            nb_snprintf(what, sizeof(what), ".CTR=%lld is beyond the %u counters of this CPU",
                        (long long)v, n_counters);
            return bad(lp, "%s", what);
        }
        ev->ctr = (int)v;
    } else {
        for (size_t i = 0; i < sizeof(AUX_MODIFIERS) / sizeof(AUX_MODIFIERS[0]); i++) {
            if (nb_starts_with(mod, AUX_MODIFIERS[i].prefix)) {
                uint64_t value;
                const char *text = mod + nb_strlen(AUX_MODIFIERS[i].prefix);
                if (!parse_hex_field(lp, text, 18, &value, "bad MSR value '%s' (hex)"))
                    return false;
                ev->aux[AUX_MODIFIERS[i].aux] = value;
                ev->has_aux[AUX_MODIFIERS[i].aux] = true;
                return true;
            }
        }
        return bad(lp, "unknown modifier '.%s'", mod);
    }
    return true;
}

/* One config line (already trimmed, not a comment). */
static bool parse_line(struct line_parser *lp, char *s, enum cpu_vendor vendor,
                       unsigned n_counters, struct pmu_event *ev)
{
    nb_memset(ev, 0, sizeof(*ev));
    ev->ctr = -1;
    ev->line = lp->line;

    char *spec = s;
    while (*s && !nb_is_space(*s))
        s++;
    if (*s)
        *s++ = '\0';
    while (nb_is_space(*s))
        s++;
    if (!*s)
        return bad(lp, "event '%s' has no name", spec);
    if (nb_strlen(s) >= PMU_EVENT_NAME_MAX)
        return bad(lp, "name '%s' is too long", s);
    for (char *c = s; *c; c++) {
        if (nb_is_space(*c))
            return bad(lp, "name '%s' contains a space", s);
    }
    nb_memcpy(ev->name, s, nb_strlen(s) + 1);

    /* Split the spec at dots: event, umask, modifiers. */
    char *fields[16];
    int n = 0;
    fields[n++] = spec;
    for (char *c = spec; *c; c++) {
        if (*c == '.') {
            *c = '\0';
            if (n == 16)
                return bad(lp, "too many modifiers in '%s'", spec);
            fields[n++] = c + 1;
        }
    }
    if (n < 2)
        return bad(lp, "'%s' needs EVENT.UMASK", spec);
    uint64_t value;
    unsigned event_digits = vendor == VENDOR_AMD ? 3 : 2;
    if (!parse_hex_field(lp, fields[0], event_digits, &value,
                         vendor == VENDOR_AMD ? "bad event code '%s' (1-3 hex digits)"
                                              : "bad event code '%s' (1-2 hex digits)"))
        return false;
    ev->event = (uint16_t)value;
    if (!parse_hex_field(lp, fields[1], 2, &value, "bad unit mask '%s' (1-2 hex digits)"))
        return false;
    ev->umask = (uint8_t)value;
    for (int i = 2; i < n; i++) {
        if (!parse_modifier(lp, fields[i], n_counters, ev))
            return false;
    }
    return true;
}

struct event_parse {
    struct line_parser lp;
    enum cpu_vendor vendor;
    unsigned n_counters;
    struct pmu_event *events;
    size_t max, count;
};

static bool event_line(void *arg, unsigned line, char *text)
{
    struct event_parse *ep = arg;
    ep->lp.line = line;
    if (ep->count == ep->max) {
        bad(&ep->lp, "more than %s events; the rest are ignored", "1024");
        return false;
    }
    if (parse_line(&ep->lp, text, ep->vendor, ep->n_counters, &ep->events[ep->count]))
        ep->count++;
    return true;
}

static void event_long_line(void *arg, unsigned line)
{
    struct event_parse *ep = arg;
    ep->lp.line = line;
    bad(&ep->lp, "line longer than %s characters", "511");
}

size_t pmu_config_parse(const char *text, size_t len, enum cpu_vendor vendor, unsigned n_counters,
                        struct pmu_event *events, size_t max, pmu_config_error_fn on_error,
                        void *arg)
{
    struct event_parse ep = { { 0, on_error, arg, "" }, vendor, n_counters, events, max, 0 };
    config_for_each_line(text, len, event_line, event_long_line, &ep);
    return ep.count;
}
