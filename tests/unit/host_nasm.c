/*
 * host_nasm.c — runs nasm on a temporary file (see host_nasm.h).
 */
#define _GNU_SOURCE
#include "host_nasm.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

uint8_t *host_nasm(size_t *len, const char *fmt, ...)
{
    char dir[] = "/tmp/nb_nasm.XXXXXX";
    if (!mkdtemp(dir))
        return NULL;
    char src[64], bin[64], err[64], cmd[256];
    snprintf(src, sizeof(src), "%s/in.asm", dir);
    snprintf(bin, sizeof(bin), "%s/out.bin", dir);
    snprintf(err, sizeof(err), "%s/err.txt", dir);

    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    FILE *f = text ? fopen(src, "w") : NULL;
    if (f) {
        fprintf(f, "bits 64\n%s\n", text);
        fclose(f);
    }
    snprintf(cmd, sizeof(cmd), "nasm -f bin -o %s %s 2>%s", bin, src, err);
    uint8_t *out = NULL;
    if (f && system(cmd) == 0) {
        out = (uint8_t *)read_all(bin, len);
    } else {
        size_t n;
        char *msg = read_all(err, &n);
        fprintf(stderr, "host_nasm: nasm failed on:\n%s\n%s", text ? text : "?", msg ? msg : "");
        free(msg);
    }
    free(text);
    unlink(src);
    unlink(bin);
    unlink(err);
    rmdir(dir);
    return out;
}

char *host_ndisasm(const uint8_t *bytes, size_t len)
{
    char path[] = "/tmp/nb_ndisasm.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, bytes, len) == (ssize_t)len;
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "ndisasm -b 64 %s", path);
    FILE *p = ok ? popen(cmd, "r") : NULL;
    char *out = NULL;
    if (p) {
        size_t cap = 4096, n = 0, got;
        out = malloc(cap + 1);
        while ((got = fread(out + n, 1, cap - n, p)) > 0) {
            n += got;
            if (n == cap)
                out = realloc(out, (cap *= 2) + 1);
        }
        out[n] = 0;
        pclose(p);
    }
    unlink(path);
    return out;
}
