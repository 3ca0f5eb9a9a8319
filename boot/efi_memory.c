/*
 * efi_memory.c — AllocatePages/FreePages (UEFI 2.10 §7.2) for the engine.
 *
 * Executable memory is EfiLoaderCode: firmware that maps data pages NX
 * (edk2's PcdDxeNxMemoryProtectionPolicy may cover EfiLoaderData; the PCD's
 * documentation forbids covering EfiLoaderCode) still runs code there.
 * Newer firmware may also map fresh pages read-only or non-executable and
 * offers the Memory Attribute Protocol (UEFI 2.10 §37.7) to lift that; we
 * clear RO and XP through it when it exists.
 */
#include "efi_memory.h"

#include <efi.h>
#include <efilib.h>

#include "efi_console.h"

#define EFI_MEMORY_ATTRIBUTE_PROTOCOL_GUID \
    { 0xf4560cf6, 0x40ec, 0x4b4a, { 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89 } }

/* UEFI 2.10 Table 7-6; gnu-efi 3.0.15 predates EFI_MEMORY_RO. */
#ifndef EFI_MEMORY_RO
#define EFI_MEMORY_RO 0x0000000000020000ULL
#endif

struct efi_memory_attribute_protocol {
    EFI_STATUS(EFIAPI *get_memory_attributes)(struct efi_memory_attribute_protocol *self,
                                              EFI_PHYSICAL_ADDRESS base, UINT64 length,
                                              UINT64 *attributes);
    EFI_STATUS(EFIAPI *set_memory_attributes)(struct efi_memory_attribute_protocol *self,
                                              EFI_PHYSICAL_ADDRESS base, UINT64 length,
                                              UINT64 attributes);
    EFI_STATUS(EFIAPI *clear_memory_attributes)(struct efi_memory_attribute_protocol *self,
                                                EFI_PHYSICAL_ADDRESS base, UINT64 length,
                                                UINT64 attributes);
};

static struct efi_memory_attribute_protocol *memory_attribute;

void efi_memory_init(void)
{
    EFI_GUID guid = EFI_MEMORY_ATTRIBUTE_PROTOCOL_GUID;

    if (EFI_ERROR(BS->LocateProtocol(&guid, NULL, (void **)&memory_attribute)))
        memory_attribute = NULL; /* before UEFI 2.10: nothing to undo */
}

/* Zero bytes still take one page, so the caller gets a unique pointer. */
static UINTN page_count(size_t size)
{
    return size ? EFI_SIZE_TO_PAGES(size) : 1;
}

static void *alloc_pages(EFI_MEMORY_TYPE type, size_t size)
{
    EFI_PHYSICAL_ADDRESS addr = 0;
    UINTN pages = page_count(size);

    if (EFI_ERROR(BS->AllocatePages(AllocateAnyPages, type, pages, &addr)))
        return NULL;
    BS->SetMem((void *)addr, pages * EFI_PAGE_SIZE, 0);
    return (void *)addr;
}

void *efi_alloc_exec(void *ctx, size_t size)
{
    void *p;
    EFI_STATUS status;

    (void)ctx;
    p = alloc_pages(EfiLoaderCode, size);
    if (!p || !memory_attribute)
        return p;

    status = memory_attribute->clear_memory_attributes(
        memory_attribute, (EFI_PHYSICAL_ADDRESS)p, page_count(size) * EFI_PAGE_SIZE,
        EFI_MEMORY_RO | EFI_MEMORY_XP);
    if (EFI_ERROR(status)) {
        efi_log_status("cannot make code pages executable", status);
        efi_free_mem(NULL, p, size);
        return NULL;
    }
    return p;
}

void *efi_alloc_data(void *ctx, size_t size)
{
    (void)ctx;
    return alloc_pages(EfiLoaderData, size);
}

void efi_free_mem(void *ctx, void *p, size_t size)
{
    (void)ctx;
    if (p)
        BS->FreePages((EFI_PHYSICAL_ADDRESS)p, page_count(size));
}
