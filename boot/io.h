/*
 * io.h — x86 port I/O (IN/OUT), used by the 16550 driver in efi_serial.c.
 * The only place in boot/ that touches I/O ports.
 */
#ifndef BOOT_IO_H
#define BOOT_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t value)
{
    __asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t value;

    __asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
    return value;
}

#endif
