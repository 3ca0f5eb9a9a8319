/*
 * host_checks.c — a benchmark's options checked on the host (see host_checks.h).
 */
#define _GNU_SOURCE
#include "host_checks.h"
#include "bench_codegen.h" /* MAGIC_PAUSE, MAGIC_RESUME */
#include "bench_expect.h"
#include "host_file.h"
#include "mica_itypes.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of every .txt file in ROOT/DIR, concatenated (NUL-separated); NULL if none. */
static char *read_txt_files(const char *root, const char *dir_rel, size_t *len)
{
    char *dir_path = host_path_join(root, dir_rel);
    DIR *dir = opendir(dir_path);
    char *all = NULL;
    *len = 0;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
            continue;
        char *path = host_path_join(dir_path, e->d_name);
        size_t size;
        char *text = host_read_file(path, &size);
        free(path);
        if (!text)
            continue;
        all = realloc(all, *len + size + 2);
        memcpy(all + *len, text, size);
        *len += size;
        all[(*len)++] = '\n';
        all[*len] = '\0';
        free(text);
    }
    if (dir)
        closedir(dir);
    free(dir_path);
    return all;
}

/* Adds the `group NAME:` names of metric-file text to a comma list in groups (", " separated). */
static bool defines_group(const char *text, size_t len, const char *name, size_t n, char *all,
                          size_t all_cap)
{
    bool found = false;
    for (const char *p = text; p && p < text + len;) {
        const char *eol = memchr(p, '\n', (size_t)(text + len - p));
        const char *e = eol ? eol : text + len;
        if (e - p > 6 && strncmp(p, "group ", 6) == 0) {
            const char *g = p + 6, *c = memchr(g, ':', (size_t)(e - g));
            if (c) {
                size_t gn = (size_t)(c - g);
                found |= gn == n && strncmp(g, name, n) == 0;
                char item[64];
                snprintf(item, sizeof(item), "%.*s", (int)(gn < 60 ? gn : 60), g);
                /* Each group once in the list of known groups. */
                bool listed = false;
                for (const char *q = strstr(all, item); q; q = strstr(q + 1, item))
                    listed |= (q == all || q[-1] == ' ') && (q[gn] == ',' || q[gn] == '\0');
                if (!listed && strlen(all) + gn + 3 < all_cap) {
                    if (all[0])
                        strcat(all, ", ");
                    strcat(all, item);
                }
            }
        }
        p = eol ? eol + 1 : NULL;
    }
    return found;
}

int host_check_metrics(const char *root, const char *groups, char *why, size_t cap)
{
    size_t len;
    char *text = read_txt_files(root, "configs/metrics", &len);
    if (!text) {
        snprintf(why, cap, "no metric files in %s/configs/metrics", root);
        return -1;
    }
    int rc = 0;
    for (const char *start = groups; rc == 0;) {
        const char *end = strchr(start, ',');
        size_t n = end ? (size_t)(end - start) : strlen(start);
        char known[400] = "";
        if (!defines_group(text, len, start, n, known, sizeof(known))) {
            snprintf(why, cap, "no metric file defines a group '%.*s' (the groups: %s)",
                     (int)(n < 60 ? n : 60), start, known);
            rc = -1;
        }
        if (!end)
            break;
        start = end + 1;
    }
    free(text);
    return rc;
}

int host_check_mica_itypes(const char *path, char *why, size_t cap)
{
    size_t len;
    char *text = host_read_file(path, &len);
    if (!text) {
        snprintf(why, cap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct mica_itypes_spec *spec = NULL;
    char err[300];
    int rc = mica_itypes_spec_parse(text, len, path, &spec, err, sizeof(err));
    if (rc != 0)
        snprintf(why, cap, "%s", err);
    else
        mica_itypes_spec_free(spec);
    free(text);
    return rc == 0 ? 0 : -1;
}

static bool has_magic(const uint8_t *code, size_t len)
{
    for (size_t i = 0; i + 8 <= len; i++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | code[i + (size_t)b];
        if (v == MAGIC_PAUSE || v == MAGIC_RESUME)
            return true;
    }
    return false;
}

int host_check_magic(const struct bench_options *o, const uint8_t *main_code, size_t len,
                     char *why, size_t cap)
{
    if (o->no_mem || !main_code || !has_magic(main_code, len))
        return 0;
    snprintf(why, cap, "the main code contains nanoBench's pause/resume magic bytes "
                       "(0x%016llX / 0x%016llX), which need -no_mem (the counters then stay in "
                       "R8..R13 and the sequences become counter reads)",
             (unsigned long long)MAGIC_PAUSE, (unsigned long long)MAGIC_RESUME);
    return -1;
}

/* Names the image prints that no config file lists (fixed counters, TSC reads). */
static const char *const BUILT_IN_NAMES[] = {
    "RDTSC", "TSC_BY_RDMSR", "TSC_AUX", "Instructions retired", "Core cycles", "Reference cycles",
    "APERF", "MPERF",
};

/* True when `name` is a whitespace-separated word of text (or of text2). */
static bool is_word_of(const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (!text || !n)
        return false;
    for (const char *p = memmem(text, len, name, n); p;
         p = memmem(p + 1, len - (size_t)(p + 1 - text), name, n)) {
        bool start = p == text || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n';
        char after = p + n < text + len ? p[n] : '\n';
        if (start && (after == ' ' || after == '\t' || after == '\n' || after == '\r'))
            return true;
    }
    return false;
}

int host_check_expect(const char *root, const struct bench_options *o, const char *config,
                      size_t config_len, const char *msr_config, size_t msr_config_len, char *why,
                      size_t cap)
{
    static char *configs, *metrics;
    static size_t configs_len, metrics_len;
    static bool loaded;
    for (unsigned i = 0; i < o->n_expect; i++) {
        struct expectation e;
        char err[200];
        if (!expect_parse(o->expect[i], &e, err, sizeof(err)) || !e.value_is_event)
            continue;
        if (!loaded) {
            configs = read_txt_files(root, "configs", &configs_len);
            metrics = read_txt_files(root, "configs/metrics", &metrics_len);
            loaded = true;
        }
        bool known = false;
        for (unsigned k = 0; k < e.value_event.n && !known; k++) {
            const char *name = e.value_event.name[k];
            for (size_t b = 0; b < sizeof(BUILT_IN_NAMES) / sizeof(BUILT_IN_NAMES[0]); b++)
                known |= strcmp(name, BUILT_IN_NAMES[b]) == 0;
            known |= is_word_of(configs, configs_len, name) || is_word_of(metrics, metrics_len, name) ||
                     is_word_of(config, config_len, name) || is_word_of(msr_config, msr_config_len, name);
        }
        if (!known) {
            snprintf(why, cap, "option -expect \"%s\": '%s' is not a number (at most 2 decimals, "
                               "optionally ~TOLERANCE) and no config names such an event",
                     o->expect[i], e.value_event.name[0]);
            return -1;
        }
    }
    return 0;
}
