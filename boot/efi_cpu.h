/*
 * efi_cpu.h — the seam's processor functions: CPUID, TSC and MSR access that
 * survives MSRs the CPU does not implement.
 */
#ifndef EFI_CPU_H
#define EFI_CPU_H

#include <stdint.h>

void efi_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
int efi_read_msr(void *ctx, uint32_t msr, uint64_t *value);
int efi_write_msr(void *ctx, uint32_t msr, uint64_t value);
uint64_t efi_read_tsc(void *ctx);
uint64_t efi_read_cr4(void *ctx);
void efi_write_cr4(void *ctx, uint64_t value);
uint64_t efi_read_xcr0(void *ctx);
void efi_write_xcr0(void *ctx, uint64_t value);
uint64_t efi_read_cr0(void *ctx);
void efi_write_cr0(void *ctx, uint64_t value);
uint64_t efi_read_cr3(void *ctx);
void efi_write_cr3(void *ctx, uint64_t value);

#endif
