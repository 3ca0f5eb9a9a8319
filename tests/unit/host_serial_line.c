/*
 * host_serial_line.c — a scripted serial line (host_serial_line.h).
 */
#include "host_serial_line.h"

#include "nb_test.h"

#include <string.h>

struct host_serial_line host_line;

static size_t line_read(void *ctx, void *buf, size_t min, size_t cap)
{
    (void)ctx;
    size_t left = host_line.in_len - host_line.in_pos;
    if (left < min || left == 0)
        return 0; /* the script is over: the port is gone */
    size_t n = left < cap ? left : cap;
    memcpy(buf, host_line.in + host_line.in_pos, n);
    host_line.in_pos += n;
    return n;
}

static void line_write(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    REQUIRE(host_line.out_len + len <= sizeof(host_line.out));
    memcpy(host_line.out + host_line.out_len, data, len);
    host_line.out_len += len;
}

void host_line_install(struct host_platform *h)
{
    memset(&host_line, 0, sizeof(host_line));
    h->p.serial_read = line_read;
    h->p.serial_write = line_write;
}

void host_line_add(const void *bytes, size_t n)
{
    REQUIRE(host_line.in_len + n <= sizeof(host_line.in));
    memcpy(host_line.in + host_line.in_len, bytes, n);
    host_line.in_len += n;
}
