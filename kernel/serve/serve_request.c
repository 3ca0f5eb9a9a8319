/*
 * serve_request.c — benchmark request payloads (see serve_request.h).
 */
#include "serve_request.h"
#include "nb_text.h"

#include <stdarg.h>

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nb_vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static int path_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == '/';
}

/* A relative path of safe characters, no empty, "." or ".." component. */
static int path_ok(const char *p, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !path_char_ok(p[i]))
            return 0;
        if (i == n || p[i] == '/') {
            size_t len = i - start;
            if (len == 0 || (len == 1 && p[start] == '.') ||
                (len == 2 && p[start] == '.' && p[start + 1] == '.'))
                return 0;
            start = i + 1;
        }
    }
    return 1;
}

int serve_request_parse(const uint8_t *payload, size_t len, struct serve_request *r, char *err,
                        size_t err_cap)
{
    nb_memset(r, 0, sizeof(*r));
    if (len < 1)
        return fail(err, err_cap, "request: empty payload (expected a file count)");
    size_t pos = 0, n = payload[pos++];
    if (n > SERVE_FILES_MAX)
        return fail(err, err_cap, "request: %llu files (at most %llu)", (unsigned long long)n, (unsigned long long)SERVE_FILES_MAX);
    for (size_t i = 0; i < n; i++) {
        if (len - pos < 1)
            return fail(err, err_cap, "request: file %llu: path length missing at byte %llu", (unsigned long long)(i + 1), (unsigned long long)pos);
        size_t plen = payload[pos++];
        if (plen == 0 || plen > SERVE_PATH_MAX)
            return fail(err, err_cap, "request: file %llu: path of %llu bytes (1 to 96)", (unsigned long long)(i + 1), (unsigned long long)plen);
        if (len - pos < plen + 4)
            return fail(err, err_cap, "request: file %llu: truncated at byte %llu", (unsigned long long)(i + 1), (unsigned long long)pos);
        const char *path = (const char *)payload + pos;
        if (!path_ok(path, plen))
            return fail(err, err_cap, "request: file %llu: path at byte %llu is not a relative path "
                                      "of [A-Za-z0-9_.-/]", (unsigned long long)(i + 1), (unsigned long long)pos);
        pos += plen;
        size_t size = (size_t)payload[pos] | (size_t)payload[pos + 1] << 8 |
                      (size_t)payload[pos + 2] << 16 | (size_t)payload[pos + 3] << 24;
        pos += 4;
        if (size > len - pos)
            return fail(err, err_cap, "request: file %llu: %llu bytes announced past the end", (unsigned long long)(i + 1), (unsigned long long)size);
        r->files[i] = (struct serve_file){ path, plen, payload + pos, size };
        pos += size;
    }
    r->n_files = n;
    r->text = (const char *)payload + pos;
    r->text_len = len - pos;
    for (size_t i = 0; i < r->text_len; i++)
        if (r->text[i] == '\0')
            return fail(err, err_cap, "request: NUL byte in the suite text at byte %llu", (unsigned long long)(pos + i));
    return 0;
}
