/*
 * pmu_config_parse.c — config file parser (format in pmu_event.h). Apart
 * from pmu_event.c, which pmu.h and pmu_ctr_rules.h build on: the parser
 * needs both (the PMU's description, the vendor's counter rules).
 */
#include "pmu_config_parse.h"
#include "config_lines.h"
#include "nb_text.h"
#include "pmu_ctr_rules.h"
#include "pmu_msrs.h"

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
    const char *msr; /* the MSR's SDM name, for the AMD refusal */
} AUX_MODIFIERS[] = {
    { "MSR_RSP0=", AUX_RSP0, "MSR_OFFCORE_RSP_0" },
    { "MSR_RSP1=", AUX_RSP1, "MSR_OFFCORE_RSP_1" },
    { "MSR_3F6H=", AUX_3F6H, "MSR_PEBS_LD_LAT_THRESHOLD" },
    { "MSR_PF=", AUX_PF, "MSR_PEBS_FRONTEND" },
};

/*
 * `.CTR=` (pmu_event.h): "n" pins the event to counter n; "a-b" and "a,b,..."
 * (mixed) are the set of counters the event may use, cut to those that exist.
 */
static bool parse_ctr(struct line_parser *lp, const char *text, uint32_t avail, struct pmu_event *ev)
{
    char have[64], what[128];
    uint32_t mask = 0;
    bool single = true;
    pmu_counter_set_format(avail, have, sizeof(have));
    if (!*text)
        return bad(lp, "%s", ".CTR= has an empty counter set");
    if (!pmu_counter_set_parse(text, &mask, &single))
        return bad(lp, "bad counter set '.CTR=%s' (n, a-b or a,b,... with counters 0..31)", text);
    if (single) {
        unsigned c = 0;
        while (!(mask & (1u << c)))
            c++;
        if (!(avail & mask)) {
            unsigned n = (unsigned)__builtin_popcount(avail);
            if (avail == pmu_low_bits(n))
                nb_snprintf(what, sizeof(what), ".CTR=%u is beyond the %u counters of this CPU", c, n);
            else
                nb_snprintf(what, sizeof(what), ".CTR=%u: this CPU has no counter %u (its counters: %s)",
                            c, c, have);
            return bad(lp, "%s", what);
        }
        ev->ctr = (int)c;
        ev->ctr_mask = mask;
        return true;
    }
    if (!(avail & mask)) {
        nb_snprintf(what, sizeof(what), ".CTR=%s: none of these counters exists on this CPU (its counters: %s)",
                    text, have);
        return bad(lp, "%s", what);
    }
    ev->ctr = -1; /* a later .CTR= replaces an earlier one entirely */
    ev->ctr_mask = mask & avail;
    return true;
}

static bool parse_modifier(struct line_parser *lp, char *mod, const struct pmu_desc *d,
                           struct pmu_event *ev)
{
    int64_t v;
    if (nb_strcmp(mod, "AnyT") == 0) {
        /* APM vol. 2 13.2.1: PERF_CTL bit 21 is reserved; SDM vol. 3B 20.2.5.1: deprecated in v5. */
        if (d->vendor == VENDOR_AMD)
            return bad(lp, "%s", "'.AnyT' is Intel's AnyThread bit; AMD PERF_CTL has none");
        if (d->anythread_deprecated)
            return bad(lp, "%s",
                       "'.AnyT': AnyThread is deprecated on this CPU (CPUID.0AH:EDX[15]), the bit "
                       "would be ignored and count this thread only");
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
        return parse_ctr(lp, mod + 4, pmu_gp_mask(d), ev);
    } else {
        for (size_t i = 0; i < sizeof(AUX_MODIFIERS) / sizeof(AUX_MODIFIERS[0]); i++) {
            if (nb_starts_with(mod, AUX_MODIFIERS[i].prefix)) {
                uint64_t value;
                const char *text = mod + nb_strlen(AUX_MODIFIERS[i].prefix);
                if (d->vendor == VENDOR_AMD) {
                    char what[128];
                    nb_snprintf(what, sizeof(what),
                                "'.%.*s' is an Intel-only auxiliary MSR (%s); AMD has none",
                                (int)nb_strlen(AUX_MODIFIERS[i].prefix) - 1, AUX_MODIFIERS[i].prefix,
                                AUX_MODIFIERS[i].msr);
                    return bad(lp, "%s", what);
                }
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

/*
 * Intel event select 00H: the pseudo-encoding of the fixed-counter-only
 * events (Intel's event lists; Linux FIXED_EVENT_CONSTRAINT). 00.04
 * TOPDOWN.SLOTS and the IA32_PERF_METRICS fields 00.80-00.87 are measured
 * through fixed counter 3 (pmu_event.h); the other fixed counters through
 * -fixed_counters. A general-purpose counter would count none of them.
 * The level-2 fields 00.84-00.87 (bytes 4-7, METRICS-FACTS 2b) only where
 * the CPU has them (pmu_desc.perf_metrics_l2): Ice Lake's bytes 4-7 are
 * not Heavy Operations etc., and a refused line cannot read them.
 */
static bool parse_topdown(struct line_parser *lp, const struct pmu_desc *d, struct pmu_event *ev,
                          bool modifiers)
{
    bool slots = ev->umask == TOPDOWN_SLOTS_UMASK;
    bool metric = ev->umask >= TOPDOWN_METRIC_UMASK &&
                  ev->umask < TOPDOWN_METRIC_UMASK + PERF_METRICS_L2_FIELDS;
    bool level2 = metric && ev->umask >= TOPDOWN_METRIC_UMASK + PERF_METRICS_L1_FIELDS;
    if (!slots && !metric)
        return bad(lp, "%s",
                   "event 00H is a fixed-counter-only event (00.01-00.03: use -fixed_counters; "
                   "00.04, 00.80-00.87: top-down)");
    if (modifiers)
        return bad(lp, "%s", "a top-down pseudo event (00.04, 00.80-00.87) takes no modifiers");
    /* Fixed counter i exists per CPUID.0AH (EDX[4:0], or the ECX bitmap of perfmon v5). */
    if (!(pmu_fixed_mask(d) & (1u << FIXED_SLOTS)))
        return bad(lp, "%s", "top-down events need fixed counter 3 (TOPDOWN.SLOTS), which this CPU does not have "
                             "(CPUID.0AH)");
    if (metric && !d->perf_metrics)
        return bad(lp, "%s", "top-down metrics need IA32_PERF_METRICS, which this CPU does not "
                             "have (IA32_PERF_CAPABILITIES[15])");
    if (level2 && !d->perf_metrics_l2)
        return bad(lp, "%s", "top-down level 2 (00.84-00.87) needs the level-2 fields of IA32_PERF_METRICS "
                             "(bits 63:32, Golden Cove and later P-cores), which this CPU does not have");
    ev->topdown = slots ? TOPDOWN_SLOTS : TOPDOWN_METRIC;
    return true;
}

/*
 * The vendor's restriction for this event on this core (pmu_ctr_rules.h),
 * whatever file it comes from: without `.CTR=` it takes the restricted set,
 * with one the intersection. An event none of whose allowed counters is
 * left is refused with the line.
 */
static bool apply_rules(struct line_parser *lp, const struct pmu_desc *d, struct pmu_event *ev,
                        const char *event, const char *umask)
{
    uint32_t allowed = pmu_ctr_rules_lookup(d->ctr_rules, ev);
    uint32_t avail = pmu_gp_mask(d);
    if (allowed == PMU_CTR_ALL || (allowed & avail) == avail)
        return true;
    uint32_t want = ev->ctr_mask ? ev->ctr_mask : avail;
    char set[64], what[160], asked[64];
    pmu_counter_set_format(allowed, set, sizeof(set));
    if (!(want & allowed & avail)) {
        if (ev->ctr_mask) {
            pmu_counter_set_format(ev->ctr_mask, asked, sizeof(asked));
            nb_snprintf(what, sizeof(what), ".CTR=%s: this processor counts %s.%s only on "
                        "counters %s (%s)", asked, event, umask, set, d->ctr_rules->path);
        } else {
            nb_snprintf(what, sizeof(what), "this processor counts %s.%s only on counters %s "
                        "(%s), none of which is here", event, umask, set, d->ctr_rules->path);
        }
        return bad(lp, "%s", what);
    }
    ev->ctr_mask = want & allowed & avail;
    return true;
}

/* One config line (already trimmed, not a comment). */
static bool parse_line(struct line_parser *lp, char *s, const struct pmu_desc *d,
                       struct pmu_event *ev)
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
    enum cpu_vendor vendor = d->vendor;
    unsigned event_digits = vendor == VENDOR_AMD ? 3 : 2;
    if (!parse_hex_field(lp, fields[0], event_digits, &value,
                         vendor == VENDOR_AMD ? "bad event code '%s' (1-3 hex digits)"
                                              : "bad event code '%s' (1-2 hex digits)"))
        return false;
    ev->event = (uint16_t)value;
    /*
     * Intel event select 00H is the pseudo-encoding of the fixed-counter-only
     * events (Intel's event lists; Linux FIXED_EVENT_CONSTRAINT): a
     * general-purpose counter would not count them.
     */
    if (!parse_hex_field(lp, fields[1], 2, &value, "bad unit mask '%s' (1-2 hex digits)"))
        return false;
    ev->umask = (uint8_t)value;
    if (vendor == VENDOR_INTEL && ev->event == 0)
        return parse_topdown(lp, d, ev, n > 2);
    for (int i = 2; i < n; i++) {
        if (!parse_modifier(lp, fields[i], d, ev))
            return false;
    }
    ev->merge = vendor == VENDOR_AMD && d->family >= AMD_MERGE_MIN_FAMILY && ev->event == AMD_FLOPS_EVENT;
    return apply_rules(lp, d, ev, fields[0], fields[1]);
}

struct event_parse {
    struct line_parser lp;
    const struct pmu_desc *d;
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
    if (parse_line(&ep->lp, text, ep->d, &ep->events[ep->count]))
        ep->count++;
    return true;
}

static void event_long_line(void *arg, unsigned line)
{
    struct event_parse *ep = arg;
    ep->lp.line = line;
    bad(&ep->lp, "line longer than %s characters", "511");
}

size_t pmu_config_parse(const char *text, size_t len, const struct pmu_desc *d,
                        struct pmu_event *events, size_t max, pmu_config_error_fn on_error,
                        void *arg)
{
    struct event_parse ep = { { 0, on_error, arg, "" }, d, events, max, 0 };
    config_for_each_line(text, len, event_line, event_long_line, &ep);
    return ep.count;
}
