/*
 * efi_facts.h — what the firmware knows about the machine (system table,
 * UEFI memory map, SMBIOS entry point, the paging root), for the platform
 * report.
 */
#ifndef EFI_FACTS_H
#define EFI_FACTS_H

#include "nb_platform.h"

void efi_firmware_facts(void *ctx, struct nb_firmware_facts *out);

#endif
