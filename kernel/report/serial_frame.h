/*
 * serial_frame.h — corruption detection for the serial log.
 *
 * A null-modem cable can flip or drop bytes without anyone noticing. Every
 * line the image prints ends with a tab and a short frame:
 *
 *     RDTSC: 32.00<TAB>|0007 3fa2
 *
 * 0007 is the line's sequence number in this boot (modulo 10000; a gap
 * means lost lines) and 3fa2 the CRC-16/CCITT-FALSE of the number and the
 * text, so a damaged line is detected. The results files on the partition
 * carry the plain text. tools/nb_serial checks a captured log and turns it
 * back into the results CSV.
 */
#ifndef SERIAL_FRAME_H
#define SERIAL_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERIAL_FRAME_MAX 12 /* "\t|NNNN XXXX" */
#define SERIAL_SEQ_MODULO 10000u

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), continuing from `crc`. */
uint16_t crc16_ccitt(uint16_t crc, const void *data, size_t len);
#define CRC16_INIT 0xFFFFu

/* Writes "\t|NNNN XXXX" for the line (without its newline) to out[SERIAL_FRAME_MAX]. */
size_t serial_frame(char *out, const char *line, size_t len, unsigned seq);

/*
 * Splits a received line (without newline) into text and frame. Returns
 * true when it has a frame; *ok tells whether the CRC matches.
 */
bool serial_unframe(const char *line, size_t len, size_t *text_len, unsigned *seq, bool *ok);

#endif
