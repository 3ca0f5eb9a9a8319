/*
 * plan_cpu_names.c — processor names for -plan_cpu (see plan_cpu_names.h).
 */
#define _GNU_SOURCE
#include "plan_cpu_names.h"
#include "host_file.h"
#include "pmu_models.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cpu_name {
    char name[64], vendor[16];
    char quals[64]; /* ":stepping=N:native=ID" for lines the map tells apart by them */
    unsigned long family, model;
    bool hybrid, known; /* known: pmu/pmu_models.c has the row */
};

/* The name of a cpu_map line: its config prefix in lower case; on hybrid lines the common stem. */
static void line_name(const char *prefix, const char *e_prefix, char *out, size_t cap)
{
    size_t n = strlen(prefix);
    if (e_prefix) {
        size_t k = 0;
        while (prefix[k] && prefix[k] == e_prefix[k])
            k++;
        n = k;
    }
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)prefix[i]);
    out[n] = '\0';
}

/* Every name of configs/cpu_map.txt, once, with its first model the image's table knows. */
static size_t read_names(const char *root, struct cpu_name **out)
{
    char *path = host_path_join(root, "configs/cpu_map.txt");
    size_t len;
    char *text = host_read_file(path, &len);
    free(path);
    struct cpu_name *names = NULL;
    size_t n = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        char vendor[16], family[16], model[16], prefix[80], e_prefix[80], q[2][40];
        if (line[0] == '#')
            continue;
        int fields = sscanf(line, "%15s %15s %15s %79s %79s %39s %39s", vendor, family, model, prefix,
                            e_prefix, q[0], q[1]);
        if (fields < 4)
            continue;
        /* Words with '=' are qualifiers (stepping=A-B, native=ID), not an E-core prefix. */
        const char *words[3] = { fields > 4 ? e_prefix : NULL, fields > 5 ? q[0] : NULL, fields > 6 ? q[1] : NULL };
        bool has_e = words[0] && !strchr(words[0], '=');
        struct cpu_name c = { .hybrid = has_e };
        for (int w = has_e ? 1 : 0; w < 3; w++) {
            if (!words[w] || !strchr(words[w], '='))
                continue;
            /* A stepping range stands for its first stepping. */
            size_t used = strlen(c.quals), k = strcspn(words[w], "-");
            snprintf(c.quals + used, sizeof(c.quals) - used, ":%.*s", (int)k, words[w]);
        }
        snprintf(c.vendor, sizeof(c.vendor), "%s", vendor);
        c.family = strtoul(family, NULL, 0);
        c.model = strtoul(model, NULL, 0);
        line_name(prefix, has_e ? e_prefix : NULL, c.name, sizeof(c.name));
        c.known = pmu_model_find(strcmp(vendor, "amd") == 0 ? VENDOR_AMD : VENDOR_INTEL,
                                 (uint32_t)c.family, (uint32_t)c.model) != NULL;
        size_t i = 0;
        while (i < n && strcmp(names[i].name, c.name) != 0)
            i++;
        if (i < n) {
            if (!names[i].known && c.known)
                names[i] = c;
            continue;
        }
        names = realloc(names, (n + 1) * sizeof(*names));
        names[n++] = c;
    }
    free(text);
    *out = names;
    return n;
}

int plan_cpu_resolve(const char *root, const char *spec, char *out, size_t cap, char *why,
                     size_t why_cap)
{
    size_t head = strcspn(spec, ":");
    if ((head == 5 && strncmp(spec, "intel", 5) == 0) || (head == 3 && strncmp(spec, "amd", 3) == 0))
        return 0;
    struct cpu_name *names;
    size_t n = read_names(root, &names);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (strlen(names[i].name) != head || strncasecmp(names[i].name, spec, head) != 0)
            continue;
        /* The core type (:p, :e) comes before the qualifiers, the counter count after them. */
        const char *rest = spec + head;
        size_t core = (rest[0] == ':' && (rest[1] == 'p' || rest[1] == 'e') && (rest[2] == ':' || !rest[2])) ? 2 : 0;
        snprintf(out, cap, "%s:%#lx:%#lx%.*s%s%s", names[i].vendor, names[i].family, names[i].model,
                 (int)core, rest, names[i].quals, rest + core);
        rc = 1;
    }
    if (rc < 0)
        snprintf(why, why_cap, "not a processor name (-plan_cpu list prints them) nor "
                               "VENDOR:FAMILY:MODEL");
    free(names);
    return rc;
}

void plan_cpu_list(const char *root, FILE *f)
{
    struct cpu_name *names;
    size_t n = read_names(root, &names);
    fprintf(f, "# -plan_cpu NAME: the processors of configs/cpu_map.txt (hybrid parts: NAME:p or "
               "NAME:e)\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%-28s %s:%#lx:%#lx%s%s\n", names[i].name, names[i].vendor, names[i].family,
                names[i].model, names[i].quals, names[i].hybrid ? " (hybrid: :p or :e)" : "");
    free(names);
}
