/*
 * serial_frame.c — line frames for the serial log (see serial_frame.h).
 */
#include "serial_frame.h"
#include "nb_text.h"

uint16_t crc16_ccitt(uint16_t crc, const void *data, size_t len)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(b[i] << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

static uint16_t line_crc(const char *line, size_t len, unsigned seq)
{
    char number[8];
    size_t n = nb_snprintf(number, sizeof(number), "%04u", seq % SERIAL_SEQ_MODULO);
    return crc16_ccitt(crc16_ccitt(CRC16_INIT, number, n), line, len);
}

size_t serial_frame(char *out, const char *line, size_t len, unsigned seq)
{
    return nb_snprintf(out, SERIAL_FRAME_MAX, "\t|%04u %04x", seq % SERIAL_SEQ_MODULO,
                       line_crc(line, len, seq));
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool serial_unframe(const char *line, size_t len, size_t *text_len, unsigned *seq, bool *ok)
{
    const size_t frame_len = SERIAL_FRAME_MAX - 1;
    if (len < frame_len)
        return false;
    const char *f = line + len - frame_len;
    if (f[0] != '\t' || f[1] != '|' || f[6] != ' ')
        return false;
    unsigned number = 0, crc = 0;
    for (int i = 2; i < 6; i++) {
        if (f[i] < '0' || f[i] > '9')
            return false;
        number = number * 10 + (unsigned)(f[i] - '0');
    }
    for (int i = 7; i < 11; i++) {
        int v = hex_value(f[i]);
        if (v < 0)
            return false;
        crc = crc << 4 | (unsigned)v;
    }
    *text_len = len - frame_len;
    *seq = number;
    *ok = line_crc(line, *text_len, number) == crc;
    return true;
}
