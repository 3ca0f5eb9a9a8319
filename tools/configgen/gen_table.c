/*
 * gen_table — our event-table reader (see gen_table.h).
 */
#include "gen_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const struct gen_table *t, int lineno, const char *why)
{
    fprintf(stderr, "gen_configs: %s:%d: %s\n", t->path, lineno, why);
    return -1;
}

static int add(struct gen_table *t, size_t *cap)
{
    if (t->n < *cap)
        return 0;
    *cap = *cap ? *cap * 2 : 256;
    struct gen_entry *e = realloc(t->e, *cap * sizeof(*e));
    if (!e)
        return -1;
    t->e = e;
    uint32_t *a = realloc(t->allowed, *cap * sizeof(*a));
    if (!a)
        return -1;
    t->allowed = a;
    return 0;
}

/*
 * Intel's lists sometimes give one programming under two names with different counter
 * lists (Broadwell CYCLE_ACTIVITY.STALLS_TOTAL / CYCLES_NO_EXECUTE). The constraint is
 * a property of the hardware event, so both get the intersection: never a counter
 * one of the entries rules out. Skipped entries do not take part, nor do the "_PS"
 * precise-sampling twins (Knights Landing INST_RETIRED.ANY_PS: counter 0, the PEBS
 * counter; ANY_P: 0,1): their restriction is PEBS's, not counting's.
 */
static bool pebs_twin(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, "_PS") == 0;
}

static void unify_constraints(struct gen_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        for (size_t j = i + 1; j < t->n; j++) {
            struct gen_evtsel a = t->e[i].sel, b = t->e[j].sel;
            uint32_t m;

            a.ctr_mask = b.ctr_mask = 0;
            if (t->allowed[i] == t->allowed[j] || t->e[i].status != GEN_KEEP ||
                t->e[j].status != GEN_KEEP || pebs_twin(t->e[i].name) ||
                pebs_twin(t->e[j].name) || !gen_evtsel_same(&a, &b))
                continue;
            m = !t->allowed[i] ? t->allowed[j]
                : !t->allowed[j] ? t->allowed[i] : t->allowed[i] & t->allowed[j];
            t->allowed[i] = t->allowed[j] = m;
            t->e[i].sel.ctr_mask = t->e[j].sel.ctr_mask = m;
        }
}

int gen_table_load(const char *path, struct gen_table *t)
{
    char buf[GEN_LINE_MAX + 256];
    size_t cap = 0;
    int lineno = 0, have_vendor = 0;
    FILE *f;

    memset(t, 0, sizeof(*t));
    snprintf(t->path, sizeof(t->path), "%s", path);
    if (!(f = fopen(path, "r"))) {
        fprintf(stderr, "gen_configs: %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(buf, sizeof(buf), f)) {
        char code[GEN_LINE_MAX], name[GEN_NAME_MAX], ctrs[96], flags[256] = "";
        char line[GEN_LINE_MAX + GEN_NAME_MAX + 8], parsed_name[GEN_NAME_MAX];
        struct gen_entry *e;
        const char *why = NULL;
        enum gen_vendor v;
        int fields;

        lineno++;
        buf[strcspn(buf, "\r\n")] = 0;
        if (buf[0] == '#') {
            if (!t->source[0] && strncmp(buf, "# source: ", 10) == 0)
                snprintf(t->source, sizeof(t->source), "%s", buf + 10);
            continue;
        }
        if (!buf[0])
            continue;
        if (strncmp(buf, "vendor ", 7) == 0) {
            if (strcmp(buf + 7, "intel") == 0)
                t->vendor = GEN_VENDOR_INTEL;
            else if (strcmp(buf + 7, "amd") == 0)
                t->vendor = GEN_VENDOR_AMD;
            else
                goto bad_vendor;
            have_vendor = 1;
            continue;
        }
        if (sscanf(buf, "gp %d", &t->gp) == 1) {
            if (t->gp < 1 || t->gp > 32)
                goto bad_gp;
            continue;
        }
        fields = sscanf(buf, "%511s %255s %95s %255[^\n]", code, name, ctrs, flags);
        if (fields < 3 || !have_vendor || !t->gp) {
            fclose(f);
            return fail(t, lineno, "expected 'CODE NAME COUNTERS [FLAG...]' after "
                                   "'vendor' and 'gp' lines");
        }
        if (add(t, &cap) != 0) {
            fclose(f);
            return fail(t, lineno, "out of memory");
        }
        e = &t->e[t->n];
        memset(e, 0, sizeof(*e));
        t->allowed[t->n] = 0;
        snprintf(line, sizeof(line), "%s %s", code, name);
        if (gen_evtsel_parse(line, &v, &e->sel, parsed_name, sizeof(parsed_name), &why) != 0 ||
            v != t->vendor || e->sel.ctr_mask) {
            fclose(f);
            return fail(t, lineno, why ? why : "code of the wrong vendor or with .CTR");
        }
        snprintf(e->name, sizeof(e->name), "%s", name);
        e->status = GEN_KEEP;
        e->alias_of = -1;
        if (strncmp(ctrs, "fixed:", 6) == 0) {
            e->status = GEN_SKIP_FIXED;
            snprintf(e->why, sizeof(e->why), "only fixed counter %.8s counts it; the image "
                     "reads the fixed counters itself", ctrs + 6);
        } else if (strcmp(ctrs, "any") != 0) {
            uint32_t all = t->gp == 32 ? 0xFFFFFFFFu : (1u << t->gp) - 1;
            if (gen_ctr_parse(ctrs, strlen(ctrs), &t->allowed[t->n]) != 0 ||
                (t->allowed[t->n] & ~all)) {
                fclose(f);
                return fail(t, lineno, "bad counter set (or beyond the 'gp' count)");
            }
            /* All counters of the core: no constraint to write. */
            if (t->allowed[t->n] == all)
                t->allowed[t->n] = 0;
            e->sel.ctr_mask = t->allowed[t->n];
        }
        for (char *save = NULL, *fl = strtok_r(flags, " ", &save); fl;
             fl = strtok_r(NULL, " ", &save)) {
            if (strcmp(fl, "offcore") == 0) {
                e->offcore = true;
            } else if (strcmp(fl, "merge") == 0) {
                e->needs_merge = true;
            } else if (strncmp(fl, "tma:", 4) == 0 && fl[4]) {
                /* A variant Intel's TMA formulas use (perfmon_table.py --tma) */
                snprintf(e->note, sizeof(e->note),
                         "%.64s: %.64s of Intel's top-down (TMA) formulas; the event list "
                         "names no event with this encoding", name, fl + 4);
            } else if (strncmp(fl, "skip:", 5) == 0) {
                if (e->status == GEN_KEEP) {
                    e->status = GEN_SKIP_BITS;
                    snprintf(e->why, sizeof(e->why), "%s", fl + 5);
                    for (char *p = e->why; *p; p++)
                        if (*p == '_') /* the table spells spaces as '_' */
                            *p = ' ';
                }
            } else {
                fclose(f);
                return fail(t, lineno, "unknown flag");
            }
        }
        t->n++;
    }
    fclose(f);
    if (!t->n)
        return fail(t, lineno, "no events");
    unify_constraints(t);
    return 0;
bad_vendor:
    fclose(f);
    return fail(t, lineno, "vendor must be intel or amd");
bad_gp:
    fclose(f);
    return fail(t, lineno, "gp must be 1..32");
}

void gen_table_free(struct gen_table *t)
{
    free(t->e);
    free(t->allowed);
    t->e = NULL;
    t->allowed = NULL;
    t->n = 0;
}

long gen_table_find(const struct gen_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->e[i].name, name) == 0)
            return (long)i;
    return -1;
}
