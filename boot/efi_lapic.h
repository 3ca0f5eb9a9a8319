/*
 * efi_lapic.h — the current processor's local APIC for the seam: xAPIC
 * registers through MMIO at IA32_APIC_BASE, or MSRs in x2APIC mode (SDM vol.
 * 3A 11.4.4 and 11.12.1).
 */
#ifndef EFI_LAPIC_H
#define EFI_LAPIC_H

#include <stdint.h>

int efi_lapic_read(void *ctx, uint32_t reg, uint32_t *value);
int efi_lapic_write(void *ctx, uint32_t reg, uint32_t value);
uint64_t efi_lapic_mmio_base(void *ctx);

#endif
