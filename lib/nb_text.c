/*
 * nb_text.c — freestanding string helpers and printf subset (see nb_text.h).
 */
#include "nb_text.h"

size_t nb_strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int nb_strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int nb_strncmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i] || !a[i])
            return (unsigned char)a[i] - (unsigned char)b[i];
    }
    return 0;
}

bool nb_starts_with(const char *s, const char *prefix)
{
    return nb_strncmp(s, prefix, nb_strlen(prefix)) == 0;
}

void nb_memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (n--)
        *d++ = *s++;
}

/*
 * Eight bytes a store where the destination allows: the benchmark's five
 * 1 MiB areas are cleared before every benchmark, and under QEMU (TCG) a byte
 * loop over them was most of the per-benchmark time. The attribute keeps gcc
 * from turning the loops back into a call to memset, which in the image is
 * gnu-efi's byte loop.
 */
typedef uint64_t __attribute__((may_alias)) nb_word; /* stores into memory of any type */

__attribute__((optimize("no-tree-loop-distribute-patterns")))
void nb_memset(void *dst, int value, size_t n)
{
    uint8_t *d = dst;
    while (n && ((uintptr_t)d & 7u)) {
        *d++ = (uint8_t)value;
        n--;
    }
    uint64_t word = 0x0101010101010101ull * (uint8_t)value;
    for (; n >= 64; n -= 64, d += 64) {
        nb_word *q = (nb_word *)(void *)d;
        q[0] = word; q[1] = word; q[2] = word; q[3] = word;
        q[4] = word; q[5] = word; q[6] = word; q[7] = word;
    }
    for (; n >= 8; n -= 8, d += 8)
        *(nb_word *)(void *)d = word;
    while (n--)
        *d++ = (uint8_t)value;
}

int nb_memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i])
            return x[i] - y[i];
    }
    return 0;
}

bool nb_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

char nb_to_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = nb_to_lower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool nb_parse_hex_u64(const char *s, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (!*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int d = hex_digit(*s);
        if (d < 0 || v > (UINT64_MAX >> 4))
            return false;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return true;
}

bool nb_parse_i64(const char *s, int64_t *out)
{
    bool negative = false;
    if (*s == '-') {
        negative = true;
        s++;
    } else if (*s == '+') {
        s++;
    }
    uint64_t v = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (!nb_parse_hex_u64(s, &v))
            return false;
    } else {
        if (!*s)
            return false;
        for (; *s; s++) {
            if (*s < '0' || *s > '9')
                return false;
            uint64_t d = (uint64_t)(*s - '0');
            if (v > (UINT64_MAX - d) / 10)
                return false;
            v = v * 10 + d;
        }
    }
    if (negative) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        *out = (int64_t)(0 - v);
    } else {
        if (v > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)v;
    }
    return true;
}

/* Output cursor that counts what it would have written past the capacity. */
struct sink {
    char *buf;
    size_t cap;
    size_t len;
};

static void put_char(struct sink *s, char c)
{
    if (s->len + 1 < s->cap)
        s->buf[s->len] = c;
    s->len++;
}

static void put_padded(struct sink *s, const char *text, size_t n, int width, char pad)
{
    for (int i = (int)n; i < width; i++)
        put_char(s, pad);
    for (size_t i = 0; i < n; i++)
        put_char(s, text[i]);
}

static void put_unsigned(struct sink *s, uint64_t v, unsigned base, bool upper, bool negative,
                         int width, char pad)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);
    if (negative) {
        if (pad == '0') {
            put_char(s, '-');
            width--;
        } else {
            tmp[n++] = '-';
        }
    }
    char out[24];
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    put_padded(s, out, n, width, pad);
}

size_t nb_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    struct sink s = { buf, cap, 0 };
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put_char(&s, *p);
            continue;
        }
        p++;
        char pad = ' ';
        int width = 0;
        int precision = -1;
        if (*p == '0') {
            pad = '0';
            p++;
        }
        if (*p == '*') {
            width = va_arg(ap, int);
            p++;
        }
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
        if (*p == '.' && p[1] == '*') {
            precision = va_arg(ap, int);
            p += 2;
        }
        int longs = 0;
        bool size_mod = false;
        while (*p == 'l') {
            longs++;
            p++;
        }
        if (*p == 'z') {
            size_mod = true;
            p++;
        }
        switch (*p) {
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            /* With a precision the array need not be NUL-terminated (C11 7.21.6.1p8). */
            size_t n = 0;
            while ((precision < 0 || n < (size_t)precision) && str[n])
                n++;
            put_padded(&s, str, n, width, ' ');
            break;
        }
        case 'c':
            put_char(&s, (char)va_arg(ap, int));
            break;
        case 'd': {
            int64_t v = size_mod ? (int64_t)va_arg(ap, ptrdiff_t)
                        : longs ? (int64_t)va_arg(ap, long long) : va_arg(ap, int);
            uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
            put_unsigned(&s, mag, 10, false, v < 0, width, pad);
            break;
        }
        case 'u':
        case 'x':
        case 'X': {
            uint64_t v = size_mod ? (uint64_t)va_arg(ap, size_t)
                         : longs ? (uint64_t)va_arg(ap, unsigned long long)
                                 : va_arg(ap, unsigned int);
            put_unsigned(&s, v, *p == 'u' ? 10 : 16, *p == 'X', false, width, pad);
            break;
        }
        case '%':
            put_char(&s, '%');
            break;
        default:
            /* Unknown conversion: show it literally so the bug is visible. */
            put_char(&s, '%');
            if (*p)
                put_char(&s, *p);
            else
                p--;
            break;
        }
    }
    if (cap > 0)
        buf[s.len < cap ? s.len : cap - 1] = '\0';
    return s.len;
}

size_t nb_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = nb_vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

size_t nb_format_centi(char *buf, size_t cap, int64_t centi)
{
    uint64_t mag = centi < 0 ? 0 - (uint64_t)centi : (uint64_t)centi;
    return nb_snprintf(buf, cap, "%s%llu.%02llu", centi < 0 ? "-" : "",
                       (unsigned long long)(mag / 100), (unsigned long long)(mag % 100));
}
