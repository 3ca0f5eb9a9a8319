/*
 * efi_file.h — files on the volume this application was loaded from (the
 * image's EFI System Partition), behind the platform seam's file functions.
 * Paths are relative to the volume root with '/' separators.
 */
#ifndef EFI_FILE_H
#define EFI_FILE_H

#include <efi.h>

#include "nb_platform.h"

/* Opens the boot volume of image; file calls fail with NB_EIO until it works. */
EFI_STATUS efi_file_init(EFI_HANDLE image);

int efi_read_file(void *ctx, const char *path, void **data, size_t *size);
void efi_free_file(void *ctx, void *data, size_t size);
bool efi_file_exists(void *ctx, const char *path);
int efi_make_dir(void *ctx, const char *path);
int efi_create_file(void *ctx, const char *path, struct nb_file **file);
int efi_append_file(void *ctx, const char *path, struct nb_file **file);
int efi_write_file(void *ctx, struct nb_file *file, const void *data, size_t len);
int efi_flush_file(void *ctx, struct nb_file *file);
void efi_close_file(void *ctx, struct nb_file *file);

#endif
