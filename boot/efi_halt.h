/*
 * efi_halt.h — the seam's halt_until_interrupt: the NMI watchdog's processor
 * sleeps in HLT until its APIC timer or the boot processor's IPI wakes it.
 */
#ifndef EFI_HALT_H
#define EFI_HALT_H

void efi_halt_until_interrupt(void *ctx);

#endif
