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
/* The current processor's APIC ID (register 20H: bits 31:24 in xAPIC mode, all 32 in x2APIC mode). */
uint32_t efi_apic_id(void *ctx);
/* One IPI through the ICR (SDM vol. 3A 11.6.1; x2APIC: one 64-bit MSR write, 11.12.9). */
int efi_send_ipi(void *ctx, uint32_t apic_id, uint32_t icr_low);

#endif
