/*
 * debug_uart.h — -debug_gdb's serial port: a polled 16550 UART (COM2 at I/O
 * 0x2F8 by default), 115200 8N1, reached through the seam's port_in8 and
 * port_out8 (pure IN/OUT instructions), so the stop function can use it on
 * any processor with interrupts disabled. COM1 keeps the results.
 * (Register layout: PC16550D data sheet; the same as boot/efi_serial.c.)
 */
#ifndef DEBUG_UART_H
#define DEBUG_UART_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

#define DEBUG_UART_COM1 0x3F8u
#define DEBUG_UART_COM2 0x2F8u

struct debug_uart {
    const struct nb_platform *p;
    uint16_t base;
    bool present;
};

/* Programs the UART at `base`; false when there is none (its scratch register does not keep a value). */
bool debug_uart_init(struct debug_uart *u, const struct nb_platform *p, uint16_t base);
/* A received byte, if there is one. */
bool debug_uart_poll(struct debug_uart *u, uint8_t *byte);
/* Sends one byte (waits for the transmitter). */
void debug_uart_put(struct debug_uart *u, uint8_t byte);

#endif
