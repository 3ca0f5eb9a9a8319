/*
 * nb_crc32.c — CRC-32/ISO-HDLC, reflected polynomial 0xEDB88320, bitwise
 * (a trace is checked once, after it is written: no table needed).
 */
#include "nb_crc32.h"

uint32_t nb_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
