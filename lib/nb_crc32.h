/*
 * nb_crc32.h — CRC-32/ISO-HDLC (zlib's crc32, gzip's trailer): the check
 * value of a trace file on the serial line (lib/nb_trace_format.h).
 */
#ifndef NB_CRC32_H
#define NB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues `crc` (0 to start) over n bytes. */
uint32_t nb_crc32(uint32_t crc, const void *data, size_t n);

#endif
