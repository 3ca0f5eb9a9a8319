/*
 * pmu_ctr_rules.c — ctr_<NAME>.txt reader and lookup (see pmu_ctr_rules.h).
 */
#include "pmu_ctr_rules.h"
#include "config_lines.h"
#include "nb_text.h"

struct rules_parse {
    struct pmu_ctr_rules *out;
    enum cpu_vendor vendor;
    pmu_config_error_fn on_error;
    void *arg;
};

static bool bad(struct rules_parse *rp, unsigned line, const char *fmt, const char *a)
{
    char message[160];
    nb_snprintf(message, sizeof(message), fmt, a);
    if (rp->on_error)
        rp->on_error(rp->arg, line, message);
    return true; /* skip the line, read on */
}

static bool hex_field(const char *s, unsigned digits, uint64_t *out)
{
    return *s && nb_strlen(s) <= digits && nb_parse_hex_u64(s, out);
}

/* "EVENT[.UMASK[.CMSK=n][.AnyT][.EDG][.INV]] SET" */
static bool rule_line(void *arg, unsigned line, char *text)
{
    struct rules_parse *rp = arg;
    struct pmu_ctr_rule r = { 0 };
    char *spec = text, *set = text;
    while (*set && !nb_is_space(*set))
        set++;
    if (*set)
        *set++ = '\0';
    while (nb_is_space(*set))
        set++;
    bool single;
    if (!pmu_counter_set_parse(set, &r.mask, &single))
        return bad(rp, line, "bad counter set '%s' (n, a-b or a,b,...)", set);
    char *fields[8];
    int n = 0;
    fields[n++] = spec;
    for (char *c = spec; *c; c++) {
        if (*c == '.') {
            *c = '\0';
            if (n == 8)
                return bad(rp, line, "%s", "too many modifiers");
            fields[n++] = c + 1;
        }
    }
    uint64_t v;
    if (!hex_field(fields[0], rp->vendor == VENDOR_AMD ? 3 : 2, &v))
        return bad(rp, line, "bad event code '%s'", fields[0]);
    r.event = (uint16_t)v;
    r.kind = n == 1 ? CTR_RULE_EVENT : n == 2 ? CTR_RULE_UMASK : CTR_RULE_ENCODING;
    if (n >= 2) {
        if (!hex_field(fields[1], 2, &v))
            return bad(rp, line, "bad unit mask '%s'", fields[1]);
        r.umask = (uint8_t)v;
    }
    for (int i = 2; i < n; i++) {
        int64_t c;
        if (nb_strcmp(fields[i], "AnyT") == 0)
            r.any = true;
        else if (nb_strcmp(fields[i], "EDG") == 0)
            r.edge = true;
        else if (nb_strcmp(fields[i], "INV") == 0)
            r.inv = true;
        else if (nb_starts_with(fields[i], "CMSK=") && nb_parse_i64(fields[i] + 5, &c) && c > 0 &&
                 c <= 255)
            r.cmask = (uint8_t)c;
        else
            return bad(rp, line, "unknown modifier '.%s'", fields[i]);
    }
    if (rp->out->n == PMU_CTR_RULES_MAX) {
        bad(rp, line, "more than %s rules; the rest are ignored", "256");
        return false;
    }
    rp->out->rule[rp->out->n++] = r;
    return true;
}

static void long_line(void *arg, unsigned line)
{
    bad(arg, line, "line longer than %s characters", "511");
}

size_t pmu_ctr_rules_parse(const char *text, size_t len, enum cpu_vendor vendor, const char *path,
                           struct pmu_ctr_rules *out, pmu_config_error_fn on_error, void *arg)
{
    struct rules_parse rp = { out, vendor, on_error, arg };
    out->n = 0;
    nb_snprintf(out->path, sizeof(out->path), "%s", path);
    config_for_each_line(text, len, rule_line, long_line, &rp);
    return out->n;
}

uint32_t pmu_ctr_rules_lookup(const struct pmu_ctr_rules *rules, const struct pmu_event *ev)
{
    uint32_t by_kind[3] = { PMU_CTR_ALL, PMU_CTR_ALL, PMU_CTR_ALL };
    bool found[3] = { false, false, false };
    for (size_t i = 0; rules && i < rules->n; i++) {
        const struct pmu_ctr_rule *r = &rules->rule[i];
        if (r->event != ev->event)
            continue;
        if (r->kind != CTR_RULE_EVENT && r->umask != ev->umask)
            continue;
        if (r->kind == CTR_RULE_ENCODING && (r->cmask != ev->cmask || r->any != ev->any ||
                                             r->edge != ev->edge || r->inv != ev->inv))
            continue;
        by_kind[r->kind] &= r->mask;
        found[r->kind] = true;
    }
    for (int k = CTR_RULE_ENCODING; k >= CTR_RULE_EVENT; k--)
        if (found[k])
            return by_kind[k];
    return PMU_CTR_ALL;
}
