/*
 * efi_finish.c — end of run. ResetSystem (UEFI 2.10 §8.5.1) with
 * EfiResetShutdown powers the machine off, which is also how QEMU exits by
 * itself; EfiResetCold reboots. The UART is drained first so the end banner
 * is not cut off by the reset.
 */
#include "efi_finish.h"

#include <efi.h>
#include <efilib.h>

#include "efi_console.h"
#include "efi_serial.h"

void efi_finish(void *ctx, enum nb_finish_action action)
{
    EFI_RESET_TYPE type;

    (void)ctx;
    switch (action) {
    case NB_FINISH_SHUTDOWN:
        type = EfiResetShutdown;
        break;
    case NB_FINISH_REBOOT:
        type = EfiResetCold;
        break;
    case NB_FINISH_EXIT:
    default:
        return; /* efi_main returns to the boot manager */
    }
    efi_serial_drain();
    RT->ResetSystem(type, EFI_SUCCESS, 0, NULL);
    /* Only reached if the firmware cannot reset: fall back to returning. */
    efi_log_status("ResetSystem returned", EFI_UNSUPPORTED);
}
