/*
 * efi_libc.c — the freestanding C library calls GCC may emit on its own
 * (struct copies, array initialisers, loop idioms). gnu-efi 3.0.15's libefi
 * already provides memcpy and memset (init.o); the other two live here.
 * Built with -fno-tree-loop-distribute-patterns (boot/boot.mk) so GCC does
 * not turn these loops back into calls to themselves.
 */
#include <stddef.h>

void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (d == s || n == 0)
        return dst;
    if (d < s) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a;
    const unsigned char *q = b;

    for (size_t i = 0; i < n; i++) {
        if (p[i] != q[i])
            return p[i] < q[i] ? -1 : 1;
    }
    return 0;
}
