/*
 * efi_mp.h — running code on another logical processor through the PI
 * specification's EFI_MP_SERVICES_PROTOCOL (PI 1.7, vol. 2, 13.4), which
 * gnu-efi does not declare. Implements the seam's cpu_count, current_cpu and
 * run_on_cpu; without the protocol the machine counts as one processor.
 */
#ifndef EFI_MP_H
#define EFI_MP_H

#include <efi.h>

#include "nb_platform.h"

/* Locates the protocol (once, from efi_main). */
void efi_mp_init(void);

unsigned efi_cpu_count(void *ctx);
unsigned efi_current_cpu(void *ctx);
int efi_run_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg);
/* Non-blocking StartupThisAP (one at a time) and the wait for its end: NB_EUNSUPP where refused. */
int efi_start_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg);
int efi_join_cpu(void *ctx, unsigned cpu);

#endif
