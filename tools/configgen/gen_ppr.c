/*
 * gen_ppr — AMD's PPR event names for the Zen families (see gen_ppr.h).
 */
#include "gen_ppr.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_evtsel.h"

/*
 * Zen 1: nanoBench's own list (its cfg_Zen_all.txt), in its order. Zen 2 to Zen 5: Linux's
 * event names (the PPR mnemonics in snake case) back in CamelCase, by
 * tools/configgen/ppr_names.py (make ppr-tables).
 */
static const struct gen_ppr tables[] = {
    {"Zen", "zen_ppr_names.txt", "nanoBench's order", "nanoBench's", "nanoBench's"},
    {"Zen2", "zen2_ppr_names.txt", "encoding order", "Linux's, in CamelCase", "Linux's"},
    {"Zen3", "zen3_ppr_names.txt", "encoding order", "Linux's, in CamelCase", "Linux's"},
    {"Zen4", "zen4_ppr_names.txt", "encoding order", "Linux's, in CamelCase", "Linux's"},
    {"Zen5", "zen5_ppr_names.txt", "encoding order", "Linux's, in CamelCase", "Linux's"},
};

#define ALIAS_MARK "; "
#define ALIAS_VERB " calls it "

const struct gen_ppr *gen_ppr_find(const char *prefix)
{
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        if (strcmp(tables[i].prefix, prefix) == 0)
            return &tables[i];
    return NULL;
}

/* The merge flag of the source's entries of this event select (PMCx003 and the like). */
static bool merge_of(const struct gen_entry *e, size_t n, unsigned event)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].sel.event == event && e[i].needs_merge)
            return true;
    return false;
}

struct gen_entry *gen_ppr_order(const struct gen_ppr *p, const char *tables_dir,
                                const char *src, const char *src_full, enum gen_vendor vendor,
                                const struct gen_entry *e, size_t n, size_t *nout,
                                struct gen_ppr_counts *c)
{
    char path[1024], buf[512];
    size_t cap = n + 1024, k = 0;
    struct gen_entry *out = calloc(cap, sizeof(*out));
    size_t *newidx = calloc(n ? n : 1, sizeof(*newidx));
    bool *used = calloc(n ? n : 1, sizeof(*used));
    int lineno = 0, bad = 0;
    FILE *f;

    memset(c, 0, sizeof(*c));
    snprintf(path, sizeof(path), "%s/%s", tables_dir, p->table);
    f = fopen(path, "r");
    if (!out || !newidx || !used || !f) {
        fprintf(stderr, "gen_configs: %s: cannot read\n", path);
        goto fail;
    }
    while (fgets(buf, sizeof(buf), f)) {
        struct gen_evtsel sel;
        char name[GEN_NAME_MAX];
        const char *why;
        enum gen_vendor v;
        size_t i;

        lineno++;
        buf[strcspn(buf, "\r\n")] = 0;
        if (buf[0] == '#' || !buf[0])
            continue;
        if (k >= cap) {
            fprintf(stderr, "gen_configs: %s:%d: too many lines\n", path, lineno);
            bad++;
            break;
        }
        if (gen_evtsel_parse(buf, &v, &sel, name, sizeof(name), &why) != 0 || v != vendor) {
            fprintf(stderr, "gen_configs: %s:%d: %s\n", path, lineno,
                    v != vendor ? "wrong vendor" : why);
            bad++;
            continue;
        }
        for (size_t j = 0; j < k; j++)
            if (strcmp(out[j].name, name) == 0 || gen_evtsel_same(&out[j].sel, &sel)) {
                fprintf(stderr, "gen_configs: %s:%d: %s: name or encoding listed twice\n", path,
                        lineno, name);
                bad++;
            }
        for (i = 0; i < n; i++)
            if (!used[i] && e[i].status == GEN_KEEP && gen_evtsel_same(&e[i].sel, &sel))
                break;
        if (i < n) {
            out[k] = e[i];
            used[i] = true;
            newidx[i] = k;
            if (strcmp(e[i].name, name) != 0) {
                snprintf(out[k].note, sizeof(out[k].note), "%.80s: AMD's PPR name (%s)" ALIAS_MARK
                         "%s" ALIAS_VERB "%.100s", name, p->origin, src, e[i].name);
                c->aliased++;
            }
        } else {
            memset(&out[k], 0, sizeof(out[k]));
            out[k].sel = sel;
            out[k].status = GEN_KEEP;
            out[k].needs_merge = merge_of(e, n, sel.event);
            snprintf(out[k].note, sizeof(out[k].note),
                     "%.80s: %s encoding and AMD's PPR name; %.64s does not list this event",
                     name, p->encodings, src_full);
            c->missing++;
        }
        snprintf(out[k].name, sizeof(out[k].name), "%s", name);
        k++;
        c->table++;
    }
    fclose(f);
    f = NULL;
    for (size_t i = 0; i < n; i++)
        if (!used[i]) {
            if (k >= cap) {
                bad++;
                break;
            }
            newidx[i] = k;
            c->rest += e[i].status == GEN_KEEP;
            out[k++] = e[i];
        }
    for (size_t i = 0; i < k; i++)
        if (out[i].status == GEN_ALIAS)
            out[i].alias_of = (int)newidx[out[i].alias_of];
    if (bad)
        goto fail;
    free(newidx);
    free(used);
    *nout = k;
    return out;
fail:
    if (f)
        fclose(f);
    free(out);
    free(newidx);
    free(used);
    return NULL;
}

void gen_ppr_summary(const struct gen_ppr *p, const char *src, const struct gen_ppr_counts *c,
                     char *buf, size_t size)
{
    snprintf(buf, size,
             "First %zu: AMD's PPR names (%s) in %s (configs/tables/%s);\n"
             "%zu of them with %s's name of the same encoding noted as its alias, %zu\n"
             "%s encodings of events %s does not list. Then %s's other %zu events.",
             c->table, p->origin, p->order, p->table, c->aliased, src, c->missing, p->encodings,
             src, src, c->rest);
}

bool gen_ppr_alias_comment(const char *line, char *alias, size_t size)
{
    const char *mark = strstr(line, ": AMD's PPR name (");
    const char *verb, *end;

    if (strncmp(line, "# ", 2) != 0 || !mark || !(verb = strstr(mark, ALIAS_VERB)))
        return false;
    verb += strlen(ALIAS_VERB);
    end = verb + strcspn(verb, " \r\n");
    if (end == verb || (size_t)(end - verb) >= size)
        return false;
    snprintf(alias, size, "%.*s", (int)(end - verb), verb);
    return true;
}
