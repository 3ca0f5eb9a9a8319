/*
 * efi_serial.h — polled output on the legacy COM1 16550 UART (I/O 0x3F8),
 * 115200 8N1. This is the live results channel over a null-modem cable and
 * under QEMU (-serial). A machine without the UART is tolerated: every call
 * then does nothing.
 */
#ifndef EFI_SERIAL_H
#define EFI_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Probes and programs the UART; returns true when it is present. */
bool efi_serial_init(void);

bool efi_serial_present(void);

/* Writes text, turning "\n" into "\r\n" for terminals. */
void efi_serial_write(const char *text, size_t len);

/* Raw bytes, no newline translation (serve-mode frames). */
void efi_serial_write_raw(void *ctx, const void *data, size_t len);

/*
 * Serve mode: waits for at least `min` received bytes, then takes what else
 * has arrived, up to `cap` (lib/nb_platform.h serial_read). Returns 0
 * without a UART.
 */
size_t efi_serial_read(void *ctx, void *buf, size_t min, size_t cap);

/* Gives the port back to the firmware's drivers if serve mode took it. */
void efi_serial_release(void);

/* One byte from / to an I/O port (the seam's port_in8/port_out8: -debug_gdb's UART). */
uint8_t efi_port_in8(void *ctx, uint16_t port);
void efi_port_out8(void *ctx, uint16_t port, uint8_t value);

/* Waits until the last byte has left the transmitter (before a reset). */
void efi_serial_drain(void);

#endif
