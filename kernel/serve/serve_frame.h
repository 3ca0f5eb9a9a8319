/*
 * serve_frame.h — the binary frames of serve mode (docs/serve.md), both
 * directions on the serial line. They extend the line frames of
 * serial_frame.h (same CRC-16/CCITT-FALSE) to requests that carry code bytes:
 *
 *   0     SOH (0x01)
 *   1     type   (ASCII letter: B benchmark, F fingerprint, E end, P poll;
 *                 replies A ack, R result, X error, N damaged request,
 *                 C continue, S serving)
 *   2     seq    (the request's number modulo 256; a reply carries its request's)
 *   3..5  payload length, little-endian (24 bits)
 *   6..7  CRC-16 of bytes 1..5, little-endian: a damaged length is seen at once
 *   8..   payload
 *   +2    CRC-16 of bytes 1..end of payload, little-endian
 *
 * The text log the image prints never contains SOH; a stray SOH inside text
 * fails the header CRC and the scanner moves on one byte.
 */
#ifndef SERVE_FRAME_H
#define SERVE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_SOH 0x01
#define SERVE_HEADER 8
#define SERVE_TRAILER 2
#define SERVE_OVERHEAD (SERVE_HEADER + SERVE_TRAILER)
#define SERVE_LEN_MAX 0xFFFFFFu

/* Request types (host to image). */
#define SERVE_BENCH 'B'
#define SERVE_FINGERPRINT 'F'
#define SERVE_END 'E'
#define SERVE_POLL 'P'
/* Reply types (image to host). */
#define SERVE_ACK 'A'
#define SERVE_RESULT 'R'
#define SERVE_ERROR 'X'
#define SERVE_NAK 'N'
#define SERVE_READY 'S' /* sent once when the image starts serving (seq 0) */
#define SERVE_CONTINUE 'C' /* the header of a long request is good: send the rest */
/* A request longer than this on the line waits for C (or X) after its first SERVE_CHUNK bytes. */
#define SERVE_CHUNK 4096

struct serve_frame {
    uint8_t type;
    uint8_t seq;
    uint32_t len;
    uint16_t crc;           /* the frame's trailing CRC (tells a retransmission from a new request) */
    const uint8_t *payload; /* inside the scanned buffer */
};

enum serve_scan {
    SERVE_SCAN_MORE,      /* no complete frame yet: drop `consumed` bytes and read more */
    SERVE_SCAN_FRAME,     /* a good frame in *f */
    SERVE_SCAN_DAMAGED,   /* the header is good, the payload CRC is not: type and seq in *f */
    SERVE_SCAN_TOO_LARGE, /* a good header announcing more than `limit` bytes (only the header is consumed) */
    SERVE_SCAN_SKIP,      /* a SOH whose header is damaged: dropped, scan again */
};

/* Bytes a frame with `len` payload bytes takes on the line. */
static inline size_t serve_frame_size(uint32_t len)
{
    return (size_t)len + SERVE_OVERHEAD;
}

/* Writes a frame to out (serve_frame_size(len) bytes); returns its size, 0 when cap is too small. */
size_t serve_frame_encode(uint8_t *out, size_t cap, uint8_t type, uint8_t seq, const void *payload,
                          uint32_t len);

/*
 * Looks for the first frame in buf[0..n). *consumed is how many bytes the
 * caller drops from the front of its buffer before the next call (garbage
 * before SOH, the frame itself, or one byte of a damaged frame so that a
 * retransmission that starts inside it is found).
 */
enum serve_scan serve_frame_scan(const uint8_t *buf, size_t n, uint32_t limit, struct serve_frame *f,
                                 size_t *consumed);

#endif
