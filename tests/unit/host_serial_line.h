/*
 * host_serial_line.h — a scripted serial line for host unit tests of serve
 * mode: the seam's serial_read hands out the bytes queued with
 * host_line_add (and nothing once they are over: the port is gone), and
 * serial_write collects what the image sends.
 *
 * There is one line, `host_line`: the seam's calls carry the host_platform
 * as their context. host_line_install resets it.
 */
#ifndef HOST_SERIAL_LINE_H
#define HOST_SERIAL_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "host_platform.h"

struct host_serial_line {
    uint8_t in[4096];  /* what the host sends, queued */
    size_t in_len, in_pos;
    uint8_t out[8192]; /* what the image wrote */
    size_t out_len;
};

extern struct host_serial_line host_line;

/* Empties host_line and sets h's serial_read and serial_write to it. */
void host_line_install(struct host_platform *h);

/* Queues n bytes for serial_read (a test fails if they do not fit). */
void host_line_add(const void *bytes, size_t n);

#endif
