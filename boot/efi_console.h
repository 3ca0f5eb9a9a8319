/*
 * efi_console.h — text output for the platform seam: the COM1 UART (through
 * efi_serial.c) plus every firmware text console that is not itself that
 * serial port, so each line appears exactly once on each device.
 */
#ifndef EFI_CONSOLE_H
#define EFI_CONSOLE_H

#include <efi.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Picks the firmware consoles to write to. serial_present says whether
 * efi_serial.c drives COM1 itself, in which case serial consoles are skipped.
 */
void efi_console_init(bool serial_present);

/* Seam write_text: serial and the chosen consoles. */
void efi_write_text(void *ctx, const char *text, size_t len);

/* One contextual line for a firmware failure: "boot: WHAT (EFI status 0x...)". */
void efi_log_status(const char *what, EFI_STATUS status);

#endif
