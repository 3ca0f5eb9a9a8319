/*
 * efi_status.c — EFI_STATUS (UEFI 2.10 Appendix D) to NB_E* status codes.
 * Warnings (high bit clear, non-zero) count as success, as the spec intends.
 */
#include "efi_status.h"

#include "nb_platform.h"

int efi_status_to_nb(EFI_STATUS status)
{
    if (!EFI_ERROR(status))
        return NB_OK;

    switch (status) {
    case EFI_NOT_FOUND:
        return NB_ENOENT;
    case EFI_OUT_OF_RESOURCES:
        return NB_ENOMEM;
    case EFI_WRITE_PROTECTED:
    case EFI_VOLUME_FULL:
    case EFI_DEVICE_ERROR:
    case EFI_MEDIA_CHANGED:
    default:
        return NB_EIO;
    }
}
