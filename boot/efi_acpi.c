/*
 * efi_acpi.c — ACPI tables through the UEFI configuration table (UEFI 2.10
 * 4.6, ACPI 6.5 5.2.5 RSDP, 5.2.7 RSDT, 5.2.8 XSDT), and pages allocated
 * inside a physical range: the first free conventional block of the memory map
 * that holds them, taken with AllocateAddress (UEFI 2.10 7.2).
 */
#include <efi.h>
#include <efilib.h>

#include "efi_acpi.h"

#define RSDP_REVISION_AT 15
#define RSDP_RSDT_AT 16
#define RSDP_XSDT_AT 24
#define SDT_HEADER_LEN 36

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool same4(const uint8_t *a, const char *b)
{
    return a[0] == (uint8_t)b[0] && a[1] == (uint8_t)b[1] && a[2] == (uint8_t)b[2] && a[3] == (uint8_t)b[3];
}

const void *efi_acpi_table(void *ctx, const char *signature, size_t *len)
{
    EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
    void *rsdp_v = NULL;
    (void)ctx;
    if (LibGetSystemConfigurationTable(&acpi20, &rsdp_v) != EFI_SUCCESS &&
        LibGetSystemConfigurationTable(&AcpiTableGuid, &rsdp_v) != EFI_SUCCESS)
        return NULL;
    const uint8_t *rsdp = rsdp_v;
    bool xsdt = rsdp[RSDP_REVISION_AT] >= 2 && le64(rsdp + RSDP_XSDT_AT) != 0;
    const uint8_t *sdt = (const uint8_t *)(uintptr_t)(xsdt ? le64(rsdp + RSDP_XSDT_AT)
                                                           : le32(rsdp + RSDP_RSDT_AT));
    if (!sdt || !same4(sdt, xsdt ? "XSDT" : "RSDT"))
        return NULL;
    uint32_t total = le32(sdt + 4), entry = xsdt ? 8 : 4;
    for (uint32_t at = SDT_HEADER_LEN; at + entry <= total; at += entry) {
        const uint8_t *t = (const uint8_t *)(uintptr_t)(xsdt ? le64(sdt + at) : le32(sdt + at));
        if (t && same4(t, signature)) {
            *len = le32(t + 4);
            return t;
        }
    }
    return NULL;
}

void *efi_alloc_data_range(void *ctx, size_t size, uint64_t lo, uint64_t hi)
{
    UINTN map_size = 0, key, desc_size;
    UINT32 desc_version;
    EFI_MEMORY_DESCRIPTOR *map = NULL;
    UINTN pages = size ? EFI_SIZE_TO_PAGES(size) : 1;
    uint64_t bytes = (uint64_t)pages * EFI_PAGE_SIZE;
    void *found = NULL;
    (void)ctx;
    if (BS->GetMemoryMap(&map_size, NULL, &key, &desc_size, &desc_version) != EFI_BUFFER_TOO_SMALL)
        return NULL;
    map_size += 4 * desc_size;
    if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, map_size, (void **)&map)))
        return NULL;
    if (EFI_ERROR(BS->GetMemoryMap(&map_size, map, &key, &desc_size, &desc_version))) {
        BS->FreePool(map);
        return NULL;
    }
    /* The highest fitting block first, as AllocateAnyPages would (low memory stays free). */
    for (UINTN off = map_size; !found && off >= desc_size; off -= desc_size) {
        const EFI_MEMORY_DESCRIPTOR *d = (const EFI_MEMORY_DESCRIPTOR *)((const uint8_t *)map + off - desc_size);
        if (d->Type != EfiConventionalMemory)
            continue;
        uint64_t start = d->PhysicalStart, end = start + d->NumberOfPages * EFI_PAGE_SIZE;
        start = start > lo ? start : lo;
        end = end < hi ? end : hi;
        if (end <= start || end - start < bytes)
            continue;
        EFI_PHYSICAL_ADDRESS addr = (end - bytes) & ~(uint64_t)(EFI_PAGE_SIZE - 1);
        if (addr < start)
            continue;
        if (!EFI_ERROR(BS->AllocatePages(AllocateAddress, EfiLoaderData, pages, &addr))) {
            BS->SetMem((void *)(uintptr_t)addr, bytes, 0);
            found = (void *)(uintptr_t)addr;
        }
    }
    BS->FreePool(map);
    return found;
}
