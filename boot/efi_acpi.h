/*
 * efi_acpi.h — ACPI tables from the firmware (the seam's acpi_table), and
 * pages inside a physical range (alloc_data_range), for kernel/platform/numa_srat.h.
 */
#ifndef EFI_ACPI_H
#define EFI_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first table with this 4-character signature in the XSDT (or RSDT), header included. */
const void *efi_acpi_table(void *ctx, const char *signature, size_t *len);

/* Zeroed loader-data pages wholly inside [lo, hi), or NULL. */
void *efi_alloc_data_range(void *ctx, size_t size, uint64_t lo, uint64_t hi);

#endif
