/*
 * host_objdump.h — disassembles generated code with binutils' objdump, an
 * independent decoder, for tests that check what the emitters wrote.
 */
#ifndef HOST_OBJDUMP_H
#define HOST_OBJDUMP_H

#include <stddef.h>
#include <stdint.h>

/*
 * objdump -M intel of buf[start, end) at its offsets in buf, one instruction
 * per line; malloc'd, NULL on failure.
 */
char *host_objdump(const uint8_t *buf, size_t start, size_t end);

#endif
