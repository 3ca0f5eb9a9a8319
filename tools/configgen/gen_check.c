/*
 * gen_check — generated configs against known values and table constraints
 * (see gen_check.h).
 */
#include "gen_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_ppr.h"
#include "gen_table.h"
#include "cpuid_bits.h"
#include "pmu_config_map.h"
#include "pmu_msr_config.h"

static const char *const kinds[] = {"all", "all_core", "all_offcore", "common"};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/*
 * Find name in cfg_<prefix>_<kind>.txt (the _all* ones), or the PPR-named line whose
 * comment gives name as its alias (gen_ppr.h); copy its encoding text.
 */
static bool find_line(const char *dir, const char *prefix, const char *name, char *code,
                      size_t size)
{
    for (size_t k = 0; k < NKINDS - 1; k++) {
        char path[1024], buf[GEN_LINE_MAX + 8], alias[GEN_NAME_MAX] = "";
        FILE *f;

        snprintf(path, sizeof(path), "%s/cfg_%s_%s.txt", dir, prefix, kinds[k]);
        if (!(f = fopen(path, "r")))
            continue;
        while (fgets(buf, sizeof(buf), f)) {
            char *sp;
            bool aliased;

            buf[strcspn(buf, "\r\n")] = 0;
            if (buf[0] == '#') {
                if (!gen_ppr_alias_comment(buf, alias, sizeof(alias)))
                    alias[0] = 0;
                continue;
            }
            aliased = alias[0] && strcmp(alias, name) == 0;
            alias[0] = 0;
            if (!(sp = strchr(buf, ' ')) || (strcmp(sp + 1, name) != 0 && !aliased))
                continue;
            snprintf(code, size, "%.*s", (int)(sp - buf), buf);
            fclose(f);
            return true;
        }
        fclose(f);
    }
    return false;
}

int gen_check_known(const char *known_path, const char *dir)
{
    char buf[1024];
    int problems = 0, lineno = 0, checked = 0;
    FILE *f = fopen(known_path, "r");

    if (!f) {
        fprintf(stderr, "gen_configs check: %s: cannot open\n", known_path);
        return 1;
    }
    while (fgets(buf, sizeof(buf), f)) {
        char prefix[128], name[GEN_NAME_MAX], want[GEN_LINE_MAX], got[GEN_LINE_MAX];

        lineno++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        if (sscanf(buf, "%127s %255s %511s", prefix, name, want) != 3) {
            fprintf(stderr, "%s:%d: expected 'PREFIX NAME ENCODING'\n", known_path, lineno);
            problems++;
            continue;
        }
        checked++;
        if (!find_line(dir, prefix, name, got, sizeof(got))) {
            fprintf(stderr, "%s:%d: %s not in cfg_%s_all*.txt\n", known_path, lineno, name,
                    prefix);
            problems++;
        } else if (strcmp(got, want) != 0) {
            fprintf(stderr, "%s:%d: %s %s: generated %s, vendor %s\n", known_path, lineno,
                    prefix, name, got, want);
            problems++;
        }
    }
    fclose(f);
    if (!checked) {
        fprintf(stderr, "%s: no known values\n", known_path);
        problems++;
    }
    return problems;
}

/* Same programming apart from the counter set? */
static bool same_but_ctr(const struct gen_evtsel *a, const struct gen_evtsel *b)
{
    struct gen_evtsel x = *a, y = *b;

    x.ctr_mask = y.ctr_mask = 0;
    return gen_evtsel_same(&x, &y);
}

static bool pebs_name(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, "_PS") == 0;
}

int gen_check_constraints(const char *prefix, const char *table_path, const char *dir)
{
    struct gen_table t;
    int problems = 0, files = 0;

    if (gen_table_load(table_path, &t) != 0)
        return 1;
    for (size_t k = 0; k < NKINDS; k++) {
        char path[1024], buf[GEN_LINE_MAX + 8], literal[GEN_NAME_MAX + 4] = "";
        int lineno = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/cfg_%s_%s.txt", dir, prefix, kinds[k]);
        if (!(f = fopen(path, "r")))
            continue;
        files++;
        while (fgets(buf, sizeof(buf), f)) {
            struct gen_evtsel sel;
            char name[GEN_NAME_MAX];
            const char *why;
            enum gen_vendor v;
            bool found = false;

            lineno++;
            buf[strcspn(buf, "\r\n")] = 0;
            if (buf[0] == '#') {
                /* "# NAME: nanoBench's encoding; ..." announces a line the table lacks */
                const char *mark = strstr(buf, ": nanoBench's encoding;");
                literal[0] = 0;
                if (mark && mark - buf - 2 > 0 && mark - buf - 2 < (long)sizeof(literal))
                    snprintf(literal, sizeof(literal), "%.*s", (int)(mark - buf - 2), buf + 2);
                continue;
            }
            if (!buf[0])
                continue;
            if (gen_evtsel_parse(buf, &v, &sel, name, sizeof(name), &why) != 0) {
                fprintf(stderr, "%s:%d: %s\n", path, lineno, why);
                problems++;
                continue;
            }
            found = literal[0] && strcmp(literal, name) == 0;
            literal[0] = 0;
            long named = found ? -1 : gen_table_find(&t, name);
            if (named >= 0 && same_but_ctr(&sel, &t.e[named].sel)) {
                found = true;
                if (sel.ctr_mask != t.allowed[named]) {
                    fprintf(stderr, "%s:%d: %s: counter set differs from %s\n", path,
                            lineno, name, t.path);
                    problems++;
                }
            }
            /* Short names (common files): the first entry with this programming. */
            for (size_t i = 0; i < t.n && !found; i++) {
                if (!same_but_ctr(&sel, &t.e[i].sel) || pebs_name(t.e[i].name))
                    continue;
                found = true;
                if (sel.ctr_mask != t.allowed[i]) {
                    fprintf(stderr, "%s:%d: %s: counter set differs from %s (%s)\n", path,
                            lineno, name, t.path, t.e[i].name);
                    problems++;
                }
            }
            if (!found) {
                fprintf(stderr, "%s:%d: %s: not in %s\n", path, lineno, name, t.path);
                problems++;
            }
        }
        fclose(f);
    }
    if (files < 2) {
        fprintf(stderr, "gen_configs check: %s: no _all/_common files in %s\n", prefix, dir);
        problems++;
    }
    gen_table_free(&t);
    return problems;
}

int gen_check_cpu_map(const char *dir)
{
    char path[1024], line[512];
    int problems = 0, lineno = 0, rows = 0;
    static char text[1 << 20];
    size_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/cpu_map.txt", dir);
    if (!(f = fopen(path, "r"))) {
        fprintf(stderr, "gen_configs check: %s: cannot open\n", path);
        return 1;
    }
    len = fread(text, 1, sizeof(text), f);
    rewind(f);
    while (fgets(line, sizeof(line), f)) {
        char vendor[16], prefix[128], eprefix[128] = "";
        unsigned long fam, model;
        int stepping = -1;
        unsigned long native = 0;
        const char *q;

        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%15s %li %li %127s %127s", vendor, (long *)&fam, (long *)&model,
                   prefix, eprefix) < 4) {
            fprintf(stderr, "%s:%d: unreadable\n", path, lineno);
            problems++;
            continue;
        }
        if (strchr(eprefix, '='))
            eprefix[0] = 0; /* a qualifier, not an E-core prefix */
        /* A processor the line's qualifiers are for: the first stepping of the range. */
        if ((q = strstr(line, " stepping=")) != NULL)
            stepping = atoi(q + strlen(" stepping="));
        if ((q = strstr(line, " native=")) != NULL)
            native = strtoul(q + strlen(" native="), NULL, 0);
        rows++;
        for (int e = 0; e < 2; e++) {
            struct config_choice c;
            char want[256], file[1300];
            FILE *cfg;
            struct config_cpu cpu = {strcmp(vendor, "amd") == 0 ? VENDOR_AMD : VENDOR_INTEL,
                                     (uint32_t)fam, (uint32_t)model, stepping,
                                     e ? HYBRID_CORE_ATOM : HYBRID_CORE_CORE, (uint32_t)native};
            enum config_match m = pmu_config_map_choose_cpu(text, len, &cpu, &c);

            snprintf(want, sizeof(want), "configs/cfg_%s_common.txt",
                     e && eprefix[0] ? eprefix : prefix);
            if (m != CONFIG_MATCH_EXACT || strcmp(c.path, want) != 0) {
                fprintf(stderr, "%s:%d: lookup of %s 0x%lx 0x%lx (%s) gives %s, not %s\n",
                        path, lineno, vendor, fam, model, e ? "E-core" : "P-core",
                        m == CONFIG_MATCH_NONE ? "nothing" : c.path, want);
                problems++;
                continue;
            }
            snprintf(file, sizeof(file), "%s/%s", dir, c.path + strlen("configs/"));
            if (!(cfg = fopen(file, "r"))) {
                fprintf(stderr, "%s:%d: %s does not exist\n", path, lineno, file);
                problems++;
            } else {
                fclose(cfg);
            }
        }
    }
    fclose(f);
    if (!rows) {
        fprintf(stderr, "%s: no CPUs\n", path);
        problems++;
    }
    return problems;
}

static void msr_error(void *arg, unsigned line, const char *message)
{
    int *problems = arg;
    fprintf(stderr, "msr config line %u: %s\n", line, message);
    (*problems)++;
}

int gen_check_msr(const char *dir, const char *const *names, int count)
{
    static char text[1 << 16];
    static struct msr_event ev[MSR_EVENT_MAX];
    int problems = 0;

    for (int i = 0; i < count; i++) {
        char path[1024];
        size_t len, n;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (!(f = fopen(path, "r"))) {
            fprintf(stderr, "gen_configs check: %s: cannot open\n", path);
            problems++;
            continue;
        }
        len = fread(text, 1, sizeof(text), f);
        fclose(f);
        int before = problems;
        n = msr_config_parse(text, len, ev, MSR_EVENT_MAX, msr_error, &problems);
        if (problems != before || n == 0) {
            fprintf(stderr, "gen_configs check: %s: %zu events, rejected lines above\n", path, n);
            problems += n == 0;
        }
    }
    return problems;
}
