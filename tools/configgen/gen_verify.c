/*
 * gen_verify — check generated configs and the CPU map (see gen_verify.h).
 */
#define _GNU_SOURCE /* getline */
#include "gen_verify.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen_evtsel.h"

#define VENDOR_TAG "# vendor: "

struct seen {
    char name[GEN_NAME_MAX];
    struct gen_evtsel sel;
    int line;
};

static void chomp(char *s)
{
    size_t n = strlen(s);

    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static const char *vendor_text(enum gen_vendor v)
{
    return v == GEN_VENDOR_AMD ? "amd" : "intel";
}

static int vendor_from_text(const char *s, enum gen_vendor *v)
{
    if (strcmp(s, "intel") == 0)
        *v = GEN_VENDOR_INTEL;
    else if (strcmp(s, "amd") == 0)
        *v = GEN_VENDOR_AMD;
    else
        return -1;
    return 0;
}

int gen_verify_config(const char *path, FILE *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, problems = 0, events = 0;
    bool have_vendor = false;
    enum gen_vendor vendor = GEN_VENDOR_INTEL;
    struct seen *seen = NULL;
    size_t nseen = 0, seencap = 0;

    if (!f) {
        fprintf(err, "%s: cannot open\n", path);
        return 1;
    }
    while (getline(&line, &cap, f) >= 0) {
        struct gen_evtsel sel;
        enum gen_vendor v;
        char name[GEN_NAME_MAX];
        const char *why = NULL;

        lineno++;
        chomp(line);
        if (strncmp(line, VENDOR_TAG, strlen(VENDOR_TAG)) == 0) {
            if (have_vendor || events ||
                vendor_from_text(line + strlen(VENDOR_TAG), &vendor) != 0) {
                fprintf(err, "%s:%d: bad or misplaced vendor line\n", path, lineno);
                problems++;
            }
            have_vendor = true;
            continue;
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (strlen(line) >= GEN_LINE_MAX) {
            fprintf(err, "%s:%d: line too long\n", path, lineno);
            problems++;
            continue;
        }
        if (gen_evtsel_parse(line, &v, &sel, name, sizeof(name), &why) != 0) {
            fprintf(err, "%s:%d: %s: %s\n", path, lineno, why, line);
            problems++;
            continue;
        }
        if (!have_vendor && events == 0) {
            vendor = v;
            have_vendor = true;
        }
        if (v != vendor) {
            fprintf(err, "%s:%d: %s event code width in a %s config: %s\n", path, lineno,
                    vendor_text(v), vendor_text(vendor), line);
            problems++;
        }
        events++;
        for (size_t i = 0; i < nseen; i++) {
            if (strcmp(seen[i].name, name) == 0) {
                fprintf(err, "%s:%d: duplicate name %s (line %d)\n", path, lineno, name,
                        seen[i].line);
                problems++;
            } else if (gen_evtsel_same(&seen[i].sel, &sel)) {
                fprintf(err, "%s:%d: %s programs the same as %s (line %d)\n", path, lineno,
                        name, seen[i].name, seen[i].line);
                problems++;
            }
        }
        if (nseen == seencap) {
            size_t c = seencap ? seencap * 2 : 256;
            struct seen *s = realloc(seen, c * sizeof(*s));
            if (!s) {
                fprintf(err, "%s: out of memory\n", path);
                problems++;
                break;
            }
            seen = s;
            seencap = c;
        }
        strcpy(seen[nseen].name, name);
        seen[nseen].sel = sel;
        seen[nseen].line = lineno;
        nseen++;
    }
    if (events == 0) {
        fprintf(err, "%s: no events\n", path);
        problems++;
    }
    free(seen);
    free(line);
    fclose(f);
    return problems;
}

/* The vendor a config declares, or -1 when it cannot be read. */
static int config_vendor(const char *dir, const char *prefix, const char *set,
                         enum gen_vendor *v)
{
    char path[4096];
    char *line = NULL;
    size_t cap = 0;
    int ret = -1;
    FILE *f;

    if ((size_t)snprintf(path, sizeof(path), "%s/cfg_%s_%s.txt", dir, prefix, set) >=
            sizeof(path) ||
        !(f = fopen(path, "r")))
        return -1;
    while (getline(&line, &cap, f) >= 0) {
        chomp(line);
        if (strncmp(line, VENDOR_TAG, strlen(VENDOR_TAG)) == 0) {
            ret = vendor_from_text(line + strlen(VENDOR_TAG), v);
            break;
        }
    }
    free(line);
    fclose(f);
    return ret;
}

static bool parse_num(const char *s, unsigned long max, unsigned long *out)
{
    char *end;

    if (!s || !*s)
        return false;
    *out = strtoul(s, &end, 0);
    return *end == '\0' && *out <= max;
}

int gen_verify_cpu_map(const char *path, FILE *err)
{
    FILE *f = fopen(path, "r");
    char dir[4096];
    char *line = NULL, *slash;
    size_t cap = 0;
    int lineno = 0, problems = 0, rows = 0;
    struct {
        int vendor;
        unsigned long family, model;
        char quals[64]; /* the line's stepping= / native= qualifiers, as written */
        int line;
    } cpus[512];

    if (!f) {
        fprintf(err, "%s: cannot open\n", path);
        return 1;
    }
    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");

    while (getline(&line, &cap, f) >= 0) {
        char *tok[8] = {0}, *save = NULL, quals[64] = "";
        int ntok = 0, nprefix;
        enum gen_vendor v;
        unsigned long fam, model;

        lineno++;
        chomp(line);
        if (line[0] == '#' || line[0] == '\0')
            continue;
        for (char *t = strtok_r(line, " \t", &save); t && ntok < 8;
             t = strtok_r(NULL, " \t", &save))
            tok[ntok++] = t;
        /* PREFIX [PREFIX], then stepping=FIRST-LAST and native=ID (pmu/pmu_config_map.h) */
        nprefix = 0;
        while (3 + nprefix < ntok && !strchr(tok[3 + nprefix], '='))
            nprefix++;
        bool quals_ok = true;
        for (int i = 3 + nprefix; i < ntok; i++) {
            quals_ok &= strncmp(tok[i], "stepping=", 9) == 0 || strncmp(tok[i], "native=", 7) == 0;
            snprintf(quals + strlen(quals), sizeof(quals) - strlen(quals), " %s", tok[i]);
        }
        if (ntok < 4 || nprefix < 1 || nprefix > 2 || !quals_ok || vendor_from_text(tok[0], &v) != 0 ||
            !parse_num(tok[1], 0xFFF, &fam) || !parse_num(tok[2], 0xFF, &model)) {
            fprintf(err, "%s:%d: expected 'intel|amd FAMILY MODEL PREFIX [PREFIX] "
                         "[stepping=FIRST-LAST] [native=ID]'\n", path, lineno);
            problems++;
            continue;
        }
        for (int i = 0; i < rows; i++)
            if (cpus[i].vendor == (int)v && cpus[i].family == fam && cpus[i].model == model &&
                strcmp(cpus[i].quals, quals) == 0) {
                fprintf(err, "%s:%d: CPU listed twice (line %d)\n", path, lineno,
                        cpus[i].line);
                problems++;
            }
        if (rows < (int)(sizeof(cpus) / sizeof(cpus[0]))) {
            cpus[rows].vendor = (int)v;
            cpus[rows].family = fam;
            cpus[rows].model = model;
            snprintf(cpus[rows].quals, sizeof(cpus[rows].quals), "%s", quals);
            cpus[rows].line = lineno;
            rows++;
        }
        for (int i = 3; i < 3 + nprefix; i++) {
            static const char *const sets[] = {"all", "common"};
            for (size_t s = 0; s < 2; s++) {
                enum gen_vendor cv;
                /* Large tables split _all into _all_core and _all_offcore. */
                if (config_vendor(dir, tok[i], sets[s], &cv) != 0 &&
                    (s != 0 || config_vendor(dir, tok[i], "all_core", &cv) != 0)) {
                    fprintf(err, "%s:%d: %s/cfg_%s_%s.txt missing or without a vendor line\n",
                            path, lineno, dir, tok[i], sets[s]);
                    problems++;
                } else if (cv != v) {
                    fprintf(err, "%s:%d: cfg_%s_%s.txt is an %s config\n", path, lineno,
                            tok[i], sets[s], vendor_text(cv));
                    problems++;
                }
            }
        }
    }
    if (rows == 0) {
        fprintf(err, "%s: no CPUs\n", path);
        problems++;
    }
    free(line);
    fclose(f);
    return problems;
}

int gen_verify_file(const char *path, FILE *err)
{
    const char *base = strrchr(path, '/');

    base = base ? base + 1 : path;
    if (strncmp(base, "cpu_map", 7) == 0)
        return gen_verify_cpu_map(path, err);
    return gen_verify_config(path, err);
}
