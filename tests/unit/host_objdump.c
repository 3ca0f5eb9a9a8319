/*
 * host_objdump.c — see host_objdump.h.
 */
#define _GNU_SOURCE
#include "host_objdump.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *host_objdump(const uint8_t *buf, size_t start, size_t end)
{
    char path[] = "/tmp/nb_objdump.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, buf, end) == (ssize_t)end;
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof(cmd),
             "objdump -D -b binary -m i386:x86-64 -M intel --start-address=%zu --stop-address=%zu %s",
             start, end, path);
    FILE *p = ok ? popen(cmd, "r") : NULL;
    char *out = NULL;
    size_t n = 0;
    if (p) {
        size_t cap = 1 << 16, got;
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

