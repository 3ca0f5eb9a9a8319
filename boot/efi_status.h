/*
 * efi_status.h — the single conversion from EFI_STATUS to the engine's
 * NB_E* codes (lib/nb_platform.h), used at the glue boundary only.
 */
#ifndef EFI_STATUS_H
#define EFI_STATUS_H

#include <efi.h>

int efi_status_to_nb(EFI_STATUS status);

#endif
