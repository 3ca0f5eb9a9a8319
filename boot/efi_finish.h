/*
 * efi_finish.h — the seam's finish action: power off, cold reset or return
 * to the firmware once the suite has ended.
 */
#ifndef EFI_FINISH_H
#define EFI_FINISH_H

#include "nb_platform.h"

void efi_finish(void *ctx, enum nb_finish_action action);

#endif
