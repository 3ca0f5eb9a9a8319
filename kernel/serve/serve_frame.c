/*
 * serve_frame.c — serve-mode frames (see serve_frame.h).
 */
#include "serve_frame.h"
#include "nb_text.h"
#include "serial_frame.h"

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* The trailing CRC covers type, seq, length, header CRC and payload: bytes 1..8+len-1. */
static uint16_t frame_crc(const uint8_t *frame, uint32_t len)
{
    return crc16_ccitt(CRC16_INIT, frame + 1, SERVE_HEADER - 1 + len);
}

size_t serve_frame_encode(uint8_t *out, size_t cap, uint8_t type, uint8_t seq, const void *payload,
                          uint32_t len)
{
    if (len > SERVE_LEN_MAX || cap < serve_frame_size(len))
        return 0;
    out[0] = SERVE_SOH;
    out[1] = type;
    out[2] = seq;
    out[3] = (uint8_t)len;
    out[4] = (uint8_t)(len >> 8);
    out[5] = (uint8_t)(len >> 16);
    put_le16(out + 6, crc16_ccitt(CRC16_INIT, out + 1, 5));
    if (len)
        nb_memcpy(out + SERVE_HEADER, payload, len);
    put_le16(out + SERVE_HEADER + len, frame_crc(out, len));
    return serve_frame_size(len);
}

enum serve_scan serve_frame_scan(const uint8_t *buf, size_t n, uint32_t limit, struct serve_frame *f,
                                 size_t *consumed)
{
    size_t pos = 0;
    while (pos < n && buf[pos] != SERVE_SOH)
        pos++;
    *consumed = pos;
    if (n - pos < SERVE_HEADER)
        return SERVE_SCAN_MORE;
    const uint8_t *h = buf + pos;
    if (get_le16(h + 6) != crc16_ccitt(CRC16_INIT, h + 1, 5)) {
        *consumed = pos + 1;
        return SERVE_SCAN_SKIP;
    }
    f->type = h[1];
    f->seq = h[2];
    f->len = (uint32_t)h[3] | (uint32_t)h[4] << 8 | (uint32_t)h[5] << 16;
    f->payload = h + SERVE_HEADER;
    f->crc = 0;
    if (f->len > limit) {
        *consumed = pos + SERVE_HEADER;
        return SERVE_SCAN_TOO_LARGE;
    }
    if (n - pos < serve_frame_size(f->len))
        return SERVE_SCAN_MORE;
    f->crc = get_le16(h + SERVE_HEADER + f->len);
    if (f->crc != frame_crc(h, f->len)) {
        *consumed = pos + 1;
        return SERVE_SCAN_DAMAGED;
    }
    *consumed = pos + serve_frame_size(f->len);
    return SERVE_SCAN_FRAME;
}
