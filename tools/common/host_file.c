/*
 * host_file.c — file helpers for the host tools (see host_file.h).
 */
#define _GNU_SOURCE
#include "host_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *host_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    int stat_failed = fstat(fileno(f), &st) != 0;
    if (stat_failed || S_ISDIR(st.st_mode)) {
        int error = stat_failed ? errno : EISDIR;
        fclose(f);
        errno = error;
        return NULL;
    }
    /*
     * Read to EOF, not st_size bytes: a pipe (-suite <(...)), /dev/stdin or
     * /dev/null has size 0 and a growing file may have more.
     */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
    size_t n = 0;
    char *data = malloc(cap);
    while (data) {
        n += fread(data + n, 1, cap - 1 - n, f);
        if (n < cap - 1 || ferror(f))
            break;
        int c = fgetc(f); /* full: grow only when there is more (a regular file is not) */
        if (c == EOF)
            break;
        char *bigger = realloc(data, cap * 2);
        if (!bigger) {
            free(data);
            data = NULL;
            break;
        }
        data = bigger;
        cap *= 2;
        data[n++] = (char)c;
    }
    int failed = !data || ferror(f);
    int saved = data ? EIO : ENOMEM;
    fclose(f);
    if (failed) {
        free(data);
        errno = saved;
        return NULL;
    }
    data[n] = '\0';
    *size = n;
    return data;
}

int host_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(data, 1, size, f);
    int rc = (n == size) ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

int host_make_dirs(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *p = copy + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
                free(copy);
                return -1;
            }
            if (!saved)
                break;
            *p = saved;
        }
    }
    free(copy);
    return 0;
}

char *host_path_join(const char *dir, const char *path)
{
    char *out;
    if (path[0] == '/' || !dir || !dir[0])
        out = strdup(path);
    else if (asprintf(&out, "%s/%s", dir, path) < 0)
        out = NULL;
    if (!out) {
        perror("nanobench");
        exit(2);
    }
    return out;
}

char *host_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *out = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (out && !out[0]) {
        free(out);
        out = strdup("/");
    }
    if (!out) {
        perror("nanobench");
        exit(2);
    }
    return out;
}
