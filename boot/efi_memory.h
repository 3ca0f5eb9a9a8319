/*
 * efi_memory.h — page allocations for the platform seam: executable pages
 * for generated benchmark code and plain data pages, both zeroed.
 */
#ifndef EFI_MEMORY_H
#define EFI_MEMORY_H

#include <stddef.h>

/* Looks up the optional Memory Attribute Protocol; call once at start. */
void efi_memory_init(void);

void *efi_alloc_exec(void *ctx, size_t size);
void *efi_alloc_data(void *ctx, size_t size);
void efi_free_mem(void *ctx, void *p, size_t size);

#endif
