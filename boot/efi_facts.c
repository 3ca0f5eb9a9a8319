/*
 * efi_facts.c — fills struct nb_firmware_facts (lib/nb_platform.h) from the
 * UEFI system table, the memory map and the SMBIOS configuration table.
 * Parsing the SMBIOS structures is the engine's job (kernel/platform/smbios.c); this
 * file only finds them.
 */
#include <efi.h>
#include <efilib.h>

#include "efi_facts.h"
#include "x86_insn.h"

/* FirmwareVendor is UCS-2; the report is ASCII (other characters become '?'). */
static void vendor_ascii(const CHAR16 *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; in && in[n] && n + 1 < cap; n++)
        out[n] = in[n] >= 0x20 && in[n] < 0x7F ? (char)in[n] : '?';
    out[n] = '\0';
}

/*
 * Usable memory: what an operating system may use after ExitBootServices
 * (conventional, loader and boot-services memory, UEFI 2.10 §7.2 table 7-6);
 * the largest free block: the longest run of physically adjacent
 * EfiConventionalMemory descriptors, i.e. what AllocatePages could still
 * give as one contiguous area.
 */
static void memory_facts(struct nb_firmware_facts *out)
{
    UINTN size = 0, key, desc_size;
    UINT32 desc_version;
    EFI_MEMORY_DESCRIPTOR *map = NULL;
    EFI_STATUS st = BS->GetMemoryMap(&size, NULL, &key, &desc_size, &desc_version);
    if (st != EFI_BUFFER_TOO_SMALL)
        return;
    size += 4 * desc_size; /* the pool allocation below may split a descriptor */
    if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, size, (void **)&map)))
        return;
    if (EFI_ERROR(BS->GetMemoryMap(&size, map, &key, &desc_size, &desc_version))) {
        BS->FreePool(map);
        return;
    }
    uint64_t usable = 0, largest = 0, run = 0, run_end = 0;
    /* The map is not sorted by address in every firmware: runs only join exact neighbours in map order. */
    for (UINTN off = 0; off + desc_size <= size; off += desc_size) {
        const EFI_MEMORY_DESCRIPTOR *d = (const EFI_MEMORY_DESCRIPTOR *)((const uint8_t *)map + off);
        uint64_t bytes = d->NumberOfPages * EFI_PAGE_SIZE;
        switch (d->Type) {
        case EfiConventionalMemory:
            usable += bytes;
            run = run && d->PhysicalStart == run_end ? run + bytes : bytes;
            run_end = d->PhysicalStart + bytes;
            if (run > largest)
                largest = run;
            continue;
        case EfiLoaderCode:
        case EfiLoaderData:
        case EfiBootServicesCode:
        case EfiBootServicesData:
            usable += bytes;
            break;
        default:
            break;
        }
        run = 0;
    }
    BS->FreePool(map);
    out->memory_known = true;
    out->usable_bytes = usable;
    out->largest_free_bytes = largest;
}

/* SMBIOS 3.x entry point (DSP0134 §5.2.2): "_SM3_", the 64-bit table address. */
static bool smbios3(const uint8_t *ep, struct nb_firmware_facts *out)
{
    if (!ep || CompareMem(ep, "_SM3_", 5) != 0)
        return false;
    out->smbios_major = ep[0x07];
    out->smbios_minor = ep[0x08];
    out->smbios_len = *(const uint32_t *)(ep + 0x0C); /* the maximum size: ends at the type 127 */
    out->smbios = (const void *)(uintptr_t)*(const uint64_t *)(ep + 0x10);
    return out->smbios != NULL;
}

/* SMBIOS 2.1 entry point (DSP0134 §5.2.1): "_SM_", the 32-bit table address. */
static bool smbios2(const uint8_t *ep, struct nb_firmware_facts *out)
{
    if (!ep || CompareMem(ep, "_SM_", 4) != 0 || CompareMem(ep + 0x10, "_DMI_", 5) != 0)
        return false;
    out->smbios_major = ep[0x06];
    out->smbios_minor = ep[0x07];
    out->smbios_len = *(const uint16_t *)(ep + 0x16);
    out->smbios = (const void *)(uintptr_t)*(const uint32_t *)(ep + 0x18);
    return out->smbios != NULL;
}

/* A one-byte global variable (EFI_GLOBAL_VARIABLE GUID); false when absent. */
static bool global_u8(CHAR16 *name, uint8_t *value)
{
    UINTN size = sizeof(*value);
    UINT32 attributes;
    EFI_STATUS st = RT->GetVariable(name, &EfiGlobalVariable, &attributes, &size, value);
    return st == EFI_SUCCESS && size == sizeof(*value);
}

void efi_firmware_facts(void *ctx, struct nb_firmware_facts *out)
{
    (void)ctx;
    SetMem(out, sizeof(*out), 0);
    if (ST->FirmwareVendor) {
        out->vendor_known = true;
        vendor_ascii(ST->FirmwareVendor, out->vendor, sizeof(out->vendor));
    }
    out->revision = ST->FirmwareRevision;
    out->uefi_revision = ST->Hdr.Revision;
    memory_facts(out);
    void *ep = NULL;
    if (LibGetSystemConfigurationTable(&SMBIOS3TableGuid, &ep) != EFI_SUCCESS || !smbios3(ep, out)) {
        ep = NULL;
        if (LibGetSystemConfigurationTable(&SMBIOSTableGuid, &ep) == EFI_SUCCESS)
            smbios2(ep, out);
    }
    out->cr3_known = true;
    out->cr3 = x86_read_cr3();
    out->secure_boot_known = global_u8(L"SecureBoot", &out->secure_boot);
    out->setup_mode_known = global_u8(L"SetupMode", &out->setup_mode);
}
