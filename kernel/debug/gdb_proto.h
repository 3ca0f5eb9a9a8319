/*
 * gdb_proto.h — framing of gdb's remote serial protocol (GDB manual,
 * "Remote Protocol", "Overview"): packets `$data#cs` where cs is the sum
 * of the data bytes modulo 256 in two hex digits; `}` escapes the next
 * byte (XOR 0x20); `+`/`-` acknowledge; a lone 0x03 asks to interrupt.
 * The receiver is a byte-at-a-time state machine that never reads past
 * its buffer, whatever arrives (tests/fuzz/fuzz_gdb_proto.c).
 */
#ifndef GDB_PROTO_H
#define GDB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GDB_PACKET_MAX 4096

enum gdb_rx_event {
    GDB_RX_NONE = 0,
    GDB_RX_PACKET,       /* a whole packet with a good checksum: rx->buf[0..len-1], NUL after it */
    GDB_RX_BAD_CHECKSUM, /* answer '-': gdb sends it again */
    GDB_RX_OVERFLOW,     /* longer than GDB_PACKET_MAX: dropped (answer '-') */
    GDB_RX_INTERRUPT,    /* 0x03 outside a packet */
    GDB_RX_ACK,
    GDB_RX_NACK,
};

struct gdb_rx {
    int state;
    uint8_t sum, check;
    bool escape, overflow;
    size_t len;
    char buf[GDB_PACKET_MAX + 1];
};

void gdb_rx_init(struct gdb_rx *rx);
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c);

/* `$payload#cs` with '#', '$', '}' and '*' escaped, into out; its length, or 0 when it does not fit. */
size_t gdb_frame(const char *payload, size_t len, char *out, size_t cap);

/* Hex helpers: a hex number up to 16 digits at *p (advanced); false when there is none. */
bool gdb_parse_hex(const char **p, const char *end, uint64_t *value);
/* Two hex digits per byte, into out (2 * n bytes, no NUL). */
void gdb_hex_bytes(char *out, const uint8_t *bytes, size_t n);
/* 2 * n hex digits at hex into bytes; false on a non-hex digit. */
bool gdb_unhex_bytes(uint8_t *bytes, const char *hex, size_t n);

#endif
