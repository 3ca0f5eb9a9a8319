/*
 * host_nasm.h — assembles test snippets with `nasm -f bin` at test time, the
 * reference the emitter and the generated code are checked against, and
 * disassembles bytes with ndisasm.
 */
#ifndef HOST_NASM_H
#define HOST_NASM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Assembles the printf-formatted source (a "bits 64" line is prepended).
 * Returns malloc'd bytes (free them) with *len set, or NULL after printing
 * nasm's messages. An empty result is a valid 1-byte allocation with *len 0.
 */
uint8_t *host_nasm(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Disassembles bytes with `ndisasm -b 64`; returns malloc'd text (one line per instruction). */
char *host_ndisasm(const uint8_t *bytes, size_t len);

#endif
