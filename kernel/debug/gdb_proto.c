/*
 * gdb_proto.c — gdb remote-protocol framing (see gdb_proto.h).
 */
#include "gdb_proto.h"

enum { RX_IDLE = 0, RX_DATA, RX_CHECK1, RX_CHECK2 };

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void gdb_rx_init(struct gdb_rx *rx)
{
    rx->state = RX_IDLE;
    rx->len = 0;
    rx->sum = rx->check = 0;
    rx->escape = rx->overflow = false;
    rx->buf[0] = '\0';
}

static void start(struct gdb_rx *rx)
{
    rx->state = RX_DATA;
    rx->len = 0;
    rx->sum = 0;
    rx->escape = rx->overflow = false;
}

enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c)
{
    switch (rx->state) {
    case RX_IDLE:
        if (c == '$')
            start(rx);
        else if (c == 0x03)
            return GDB_RX_INTERRUPT;
        else if (c == '+')
            return GDB_RX_ACK;
        else if (c == '-')
            return GDB_RX_NACK;
        return GDB_RX_NONE;
    case RX_DATA:
        if (c == '$' && !rx->escape) {
            start(rx); /* a new packet: the old one was cut off */
            return GDB_RX_NONE;
        }
        if (c == '#' && !rx->escape) {
            rx->state = RX_CHECK1;
            return GDB_RX_NONE;
        }
        rx->sum = (uint8_t)(rx->sum + c);
        if (rx->escape) {
            c ^= 0x20;
            rx->escape = false;
        } else if (c == '}') {
            rx->escape = true;
            return GDB_RX_NONE;
        }
        if (rx->len < GDB_PACKET_MAX)
            rx->buf[rx->len++] = (char)c;
        else
            rx->overflow = true;
        return GDB_RX_NONE;
    case RX_CHECK1: {
        int v = hex_value(c);
        if (v < 0) {
            rx->state = RX_IDLE;
            return GDB_RX_BAD_CHECKSUM;
        }
        rx->check = (uint8_t)(v << 4);
        rx->state = RX_CHECK2;
        return GDB_RX_NONE;
    }
    default: {
        int v = hex_value(c);
        rx->state = RX_IDLE;
        rx->buf[rx->len] = '\0';
        if (v < 0 || (uint8_t)(rx->check | v) != rx->sum)
            return GDB_RX_BAD_CHECKSUM;
        return rx->overflow ? GDB_RX_OVERFLOW : GDB_RX_PACKET;
    }
    }
}

static const char HEX[] = "0123456789abcdef";

size_t gdb_frame(const char *payload, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    uint8_t sum = 0;
    if (cap < 4)
        return 0;
    out[n++] = '$';
    for (size_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)payload[i];
        bool esc = c == '#' || c == '$' || c == '}' || c == '*';
        if (n + (esc ? 2 : 1) + 3 > cap)
            return 0;
        if (esc) {
            out[n++] = '}';
            sum = (uint8_t)(sum + '}');
            c ^= 0x20;
        }
        out[n++] = (char)c;
        sum = (uint8_t)(sum + c);
    }
    out[n++] = '#';
    out[n++] = HEX[sum >> 4];
    out[n++] = HEX[sum & 15];
    return n;
}

bool gdb_parse_hex(const char **p, const char *end, uint64_t *value)
{
    uint64_t v = 0;
    int digits = 0;
    while (*p < end && digits < 16) {
        int d = hex_value((uint8_t)**p);
        if (d < 0)
            break;
        v = v << 4 | (uint64_t)d;
        (*p)++;
        digits++;
    }
    *value = v;
    return digits > 0;
}

void gdb_hex_bytes(char *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = HEX[bytes[i] >> 4];
        out[2 * i + 1] = HEX[bytes[i] & 15];
    }
}

bool gdb_unhex_bytes(uint8_t *bytes, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value((uint8_t)hex[2 * i]), lo = hi < 0 ? -1 : hex_value((uint8_t)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}
