/*
 * bare_boot.c — the yardstick for `make bench`: the smallest UEFI
 * application that prints one line and powers the machine off. The
 * round trip of tools/nanobench is measured against booting this.
 */
#include <efi.h>
#include <efilib.h>

/* Called by gnu-efi's crt0 with the System V convention (no EFIAPI). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *system_table)
{
    InitializeLib(image, system_table);
    Print(L"bare boot\n");
    RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
    return EFI_SUCCESS;
}
