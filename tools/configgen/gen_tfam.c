/*
 * gen_tfam — configs from one of our event tables (see gen_tfam.h).
 */
#include "gen_tfam.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_common.h"
#include "gen_ctr.h"
#include "gen_ppr.h"
#include "gen_table.h"
#include "gen_write.h"

#define COMMON_FILE "common.txt"

static bool is_offcore(const struct gen_entry *e) { return e->offcore; }
static bool is_core(const struct gen_entry *e) { return !e->offcore; }

/* Is word one of the space-separated names between '[' and ']'? */
static bool section_has(const char *hdr, const char *word)
{
    size_t len = strlen(word);
    const char *p = hdr + 1;

    while (*p && *p != ']') {
        size_t n = strcspn(p, " ]");
        if (n == len && strncmp(p, word, len) == 0)
            return true;
        p += n;
        while (*p == ' ')
            p++;
    }
    return false;
}

/*
 * An entry for nanoBench's literal encoding code ("D1.20"), named name, for an event
 * the table's source does not list: written with a comment saying so.
 */
static int literal_entry(const char *code, const char *name, const struct gen_table *t,
                         struct gen_entry *e)
{
    enum gen_vendor v;
    char line[GEN_NAME_MAX + 64], parsed[GEN_NAME_MAX];
    const char *why;

    memset(e, 0, sizeof(*e));
    snprintf(line, sizeof(line), "%s %s", code, name);
    if (gen_evtsel_parse(line, &v, &e->sel, parsed, sizeof(parsed), &why) != 0 ||
        v != t->vendor)
        return -1;
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->status = GEN_KEEP;
    /* t->path: our table (reduced from the vendor's list), or the libpfm4 PMU */
    snprintf(e->note, sizeof(e->note), "%.*s: nanoBench's encoding; %.*s does not list this event",
             64, name, 120, t->path);
    return 0;
}

/*
 * Append nanoBench's entries for this family (its section of common.txt, else the
 * vendor's) to out; *nout grows. Returns -1 on a missing required event.
 */
static int nanobench_entries(const char *path, const char *prefix, const struct gen_table *t,
                             struct gen_entry *out, size_t *nout, size_t cap)
{
    const char *vendor = t->vendor == GEN_VENDOR_AMD ? "amd" : "intel";
    char buf[1024];
    struct gen_entry lit;
    int pass, lineno, problems = 0;
    bool found = false;
    FILE *f;

    /* Pass 0 looks for the family's own section, pass 1 for the vendor default. */
    for (pass = 0; pass < 2 && !found; pass++) {
        bool in = false;

        if (!(f = fopen(path, "r"))) {
            fprintf(stderr, "gen_configs: %s: cannot open\n", path);
            return -1;
        }
        lineno = 0;
        while (fgets(buf, sizeof(buf), f)) {
            char shortname[GEN_NAME_MAX], names[768];
            bool optional = false;
            long idx = -1;

            lineno++;
            buf[strcspn(buf, "\r\n")] = 0;
            if (buf[0] == '#' || !buf[0])
                continue;
            if (buf[0] == '[') {
                in = section_has(buf, pass == 0 ? prefix : vendor);
                found |= in;
                continue;
            }
            if (!in)
                continue;
            if (sscanf(buf, "%255s %767s", shortname, names) != 2) {
                fprintf(stderr, "gen_configs: %s:%d: expected 'SHORT EVENT'\n", path, lineno);
                problems++;
                continue;
            }
            if (shortname[0] == '?') {
                optional = true;
                memmove(shortname, shortname + 1, strlen(shortname));
            }
            for (char *save = NULL, *n = strtok_r(names, "|", &save); n && idx < 0;
                 n = strtok_r(NULL, "|", &save)) {
                if (n[0] == '=') {
                    /* nanoBench's own encoding, for an event the source does not list */
                    if (literal_entry(n + 1, shortname, t, &lit) != 0) {
                        fprintf(stderr, "gen_configs: %s:%d: %s: bad encoding \"%s\"\n", path,
                                lineno, shortname, n + 1);
                        problems++;
                        idx = -2;
                    } else {
                        idx = -3;
                    }
                    break;
                }
                idx = gen_table_find(t, n);
                if (idx >= 0 && t->e[idx].status != GEN_KEEP && t->e[idx].status != GEN_ALIAS)
                    idx = -1; /* fixed-only or inexpressible: not for a GP counter */
            }
            if (idx == -2)
                continue;
            if (idx == -3) {
                if (*nout >= cap || !gen_name_ok(shortname)) {
                    fprintf(stderr, "gen_configs: %s:%d: bad name or too many\n", path, lineno);
                    problems++;
                    continue;
                }
                out[(*nout)++] = lit;
                continue;
            }
            if (idx < 0) {
                if (!optional) {
                    fprintf(stderr, "gen_configs: %s:%d: %s: no such event in %s\n", path,
                            lineno, shortname, t->path);
                    problems++;
                }
                continue;
            }
            if (*nout >= cap || !gen_name_ok(shortname)) {
                fprintf(stderr, "gen_configs: %s:%d: bad name or too many\n", path, lineno);
                problems++;
                continue;
            }
            out[*nout] = t->e[idx];
            out[*nout].status = GEN_KEEP;
            snprintf(out[*nout].name, sizeof(out[*nout].name), "%s", shortname);
            (*nout)++;
        }
        fclose(f);
    }
    return problems ? -1 : 0;
}

int gen_tfam_write_common(const char *prefix, const char *section, const struct gen_table *t,
                          const char *tables_dir, const char *out_dir, const char *source,
                          const char *regen, size_t *ncommon)
{
    char path[1024], summary[512];
    struct gen_entry *c = calloc(t->n + 64, sizeof(*c));
    size_t n = 0, nnb;
    int ret = -1;

    if (!c)
        return -1;
    snprintf(path, sizeof(path), "%s/%s", tables_dir, COMMON_FILE);
    if (nanobench_entries(path, section, t, c, &n, t->n + 64) != 0)
        goto out;
    nnb = n;
    /* Our additions, in table order, unless nanoBench's part programs them already. */
    for (size_t i = 0; i < t->n; i++) {
        bool dup = false;

        if (t->e[i].status != GEN_KEEP || !gen_common_wanted(t->vendor, t->e[i].name))
            continue;
        for (size_t j = 0; j < n && !dup; j++)
            dup = gen_evtsel_same(&c[j].sel, &t->e[i].sel) || !strcmp(c[j].name, t->e[i].name);
        if (!dup)
            c[n++] = t->e[i];
    }
    snprintf(summary, sizeof(summary),
             "First %zu: nanoBench's short names and order (configs/tables/common.txt);\n"
             "then our additions (tools/configgen/gen_common.c patterns), under the source's names.",
             nnb);
    struct gen_file_spec s = {prefix, "common", source, regen, summary, t->vendor, false};
    ret = gen_write_entries(out_dir, &s, c, n, NULL, ncommon);
out:
    free(c);
    return ret;
}

int gen_tfam_generate(const struct gen_tfam *fam, const char *tables_dir, const char *out_dir)
{
    char path[1024], source[1024], regen[256], summary[1400];
    struct gen_table t;
    size_t noff = 0, nw = 0, nw2 = 0, ncommon = 0, counts[GEN_STATUS_COUNT] = {0};
    char ppr_line[160] = ""; /* the PPR names' summary line, printed after the family's */
    int ret = -1;

    snprintf(path, sizeof(path), "%s/%s.txt", tables_dir, fam->table);
    if (gen_table_load(path, &t) != 0)
        return -1;
    gen_dedupe(t.e, t.n);
    for (size_t i = 0; i < t.n; i++) {
        counts[t.e[i].status]++;
        noff += t.e[i].status == GEN_KEEP && t.e[i].offcore;
    }
    snprintf(source, sizeof(source), "configs/tables/%s.txt, reduced from %s", fam->table,
             t.source);
    snprintf(regen, sizeof(regen), "table: configs/tables/%s.txt, family %s in "
             "tools/configgen/gen_configs.c", fam->table, fam->prefix);
    bool split = noff >= GEN_OFFCORE_SPLIT || fam->split;

    snprintf(summary, sizeof(summary),
             "Every event of the table a general-purpose counter can count%s;\n"
             "fixed-counter-only events and the ones nanoBench's syntax cannot express\n"
             "are listed by name at the end%s.",
             split ? ", offcore response in _all_offcore.txt" : "",
             split ? " of _all_core.txt" : "");
    if (split) {
        struct gen_file_spec core = {fam->prefix, "all_core", source, regen, summary,
                                     t.vendor, true};
        struct gen_file_spec off = {fam->prefix, "all_offcore", source, regen,
                                    "The offcore-response events (MSR_OFFCORE_RSP_x) of the "
                                    "table.", t.vendor, false};
        if (gen_write_entries(out_dir, &core, t.e, t.n, is_core, &nw) != 0 ||
            gen_write_entries(out_dir, &off, t.e, t.n, is_offcore, &nw2) != 0)
            goto out;
    }
    if (noff < GEN_OFFCORE_SPLIT) {
        /* Also when split for nanoBench's file list: existing -config lines name it. */
        size_t nall = 0, nw_ppr = 0;
        const struct gen_ppr *ppr = split ? NULL : gen_ppr_find(fam->prefix);
        struct gen_entry *w = NULL;
        char ppr_summary[768] = "";

        if (ppr) {
            /* AMD's PPR names first, the table's (Linux's) names as their aliases. */
            struct gen_ppr_counts pc;
            char src_full[600];

            snprintf(src_full, sizeof(src_full), "configs/tables/%s.txt", fam->table);
            if (!(w = gen_ppr_order(ppr, tables_dir, "Linux", src_full, t.vendor, t.e, t.n,
                                    &nw_ppr, &pc)))
                goto out;
            gen_ppr_summary(ppr, "Linux", &pc, ppr_summary, sizeof(ppr_summary));
            snprintf(ppr_line, sizeof(ppr_line),
                     "%-24s PPR names: %zu (%zu aliased, %zu not in the table); %zu under Linux's names\n",
                     "", pc.table, pc.aliased, pc.missing, pc.rest);
        }
        snprintf(summary, sizeof(summary),
                 "Every event of the table a general-purpose counter can count%s;\n"
                 "fixed-counter-only events and the ones nanoBench's syntax cannot express\n"
                 "are listed by name at the end.%s%s",
                 split ? " (the same as _all_core.txt and _all_offcore.txt together)" : "",
                 ppr ? "\n" : "", ppr_summary);
        struct gen_file_spec all = {fam->prefix, "all", source, regen, summary, t.vendor, true};
        int failed = w ? gen_write_entries(out_dir, &all, w, nw_ppr, NULL, &nall)
                       : gen_write_entries(out_dir, &all, t.e, t.n, NULL, &nall);
        free(w);
        if (failed != 0)
            goto out;
        if (!split)
            nw = nall;
    }
    if (gen_tfam_write_common(fam->prefix, fam->prefix, &t, tables_dir, out_dir, source, regen,
                              &ncommon) != 0 ||
        gen_ctr_write(out_dir, fam->prefix, t.vendor, t.gp, t.e, t.n, source) != 0)
        goto out;
    if (fam->alias && gen_tfam_write_common(fam->alias, fam->prefix, &t, tables_dir, out_dir,
                                            source, regen, &ncommon) != 0)
        goto out;
    printf("%-24s %4zu written (%zu offcore), %3zu common; not written:", fam->prefix,
           nw + nw2, noff, ncommon);
    if (counts[GEN_KEEP] == t.n)
        printf(" none");
    for (int s = GEN_ALIAS; s < GEN_STATUS_COUNT; s++)
        if (counts[s])
            printf(" %zu %s;", counts[s], gen_status_text(s));
    printf("\n%s", ppr_line);
    ret = 0;
out:
    gen_table_free(&t);
    return ret;
}
