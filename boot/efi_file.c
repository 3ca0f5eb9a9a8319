/*
 * efi_file.c — the seam's file functions on the boot volume.
 *
 * LoadedImage->DeviceHandle (UEFI 2.10 §9.1) carries the Simple File System
 * protocol (§13.4) of the partition we were loaded from; everything else is
 * EFI_FILE_PROTOCOL (§13.5) relative to its root directory. Results files
 * must survive a power cut, so flush_file maps to EFI_FILE_PROTOCOL.Flush.
 */
#include "efi_file.h"

#include <efilib.h>
#include <stddef.h>

#include "efi_memory.h"
#include "efi_status.h"

#define MAX_PATH_CHARS 260

/* EFI_FILE_INFO plus the longest FAT long file name (255 UCS-2 chars + NUL). */
#define FILE_INFO_SIZE (offsetof(EFI_FILE_INFO, FileName) + 256 * sizeof(CHAR16))

struct nb_file {
    EFI_FILE_HANDLE handle;
};

union file_info_buf {
    EFI_FILE_INFO info;
    UINT8 bytes[FILE_INFO_SIZE];
};

static EFI_FILE_HANDLE root;

EFI_STATUS efi_file_init(EFI_HANDLE image)
{
    EFI_LOADED_IMAGE *loaded;
    EFI_FILE_IO_INTERFACE *fs;
    EFI_STATUS status;

    status = BS->HandleProtocol(image, &gEfiLoadedImageProtocolGuid, (void **)&loaded);
    if (EFI_ERROR(status))
        return status;
    status = BS->HandleProtocol(loaded->DeviceHandle, &gEfiSimpleFileSystemProtocolGuid,
                                (void **)&fs);
    if (EFI_ERROR(status))
        return status;
    return fs->OpenVolume(fs, &root);
}

/* "nanobench/suite.nb" -> L"nanobench\\suite.nb"; ASCII only. */
static int to_efi_path(const char *path, CHAR16 *out)
{
    size_t n = 0;

    for (; path[n]; n++) {
        unsigned char c = (unsigned char)path[n];

        if (n + 1 >= MAX_PATH_CHARS || c >= 0x80 || c < 0x20)
            return NB_EINVAL;
        out[n] = c == '/' ? L'\\' : (CHAR16)c;
    }
    if (n == 0)
        return NB_EINVAL;
    out[n] = 0;
    return NB_OK;
}

static int open_path(const char *path, UINT64 mode, UINT64 attributes, EFI_FILE_HANDLE *h)
{
    CHAR16 name[MAX_PATH_CHARS];
    int rc;

    if (!root)
        return NB_EIO;
    rc = to_efi_path(path, name);
    if (rc)
        return rc;
    return efi_status_to_nb(root->Open(root, h, name, mode, attributes));
}

static int get_info(EFI_FILE_HANDLE h, union file_info_buf *buf, UINTN *size)
{
    *size = sizeof(*buf);
    return efi_status_to_nb(h->GetInfo(h, &gEfiFileInfoGuid, size, buf));
}

int efi_read_file(void *ctx, const char *path, void **data, size_t *size)
{
    union file_info_buf info;
    EFI_FILE_HANDLE h;
    UINTN info_size;
    UINT8 *buf = NULL;
    size_t total = 0, done = 0;
    int rc;

    *data = NULL;
    *size = 0;
    rc = open_path(path, EFI_FILE_MODE_READ, 0, &h);
    if (rc)
        return rc;
    rc = get_info(h, &info, &info_size);
    if (rc)
        goto fail;
    rc = NB_EINVAL;
    if (info.info.Attribute & EFI_FILE_DIRECTORY)
        goto fail;
    total = info.info.FileSize;
    if (total > 0) {
        rc = NB_ENOMEM;
        buf = efi_alloc_data(ctx, total);
        if (!buf)
            goto fail;
    }
    while (done < total) {
        UINTN n = total - done;

        rc = efi_status_to_nb(h->Read(h, &n, buf + done));
        if (rc == NB_OK && n == 0)
            rc = NB_EIO; /* file shrank under us */
        if (rc)
            goto fail;
        done += n;
    }
    h->Close(h);
    *data = buf;
    *size = total;
    return NB_OK;

fail:
    if (buf)
        efi_free_mem(ctx, buf, total);
    h->Close(h);
    return rc;
}

void efi_free_file(void *ctx, void *data, size_t size)
{
    efi_free_mem(ctx, data, size);
}

bool efi_file_exists(void *ctx, const char *path)
{
    EFI_FILE_HANDLE h;

    (void)ctx;
    if (open_path(path, EFI_FILE_MODE_READ, 0, &h))
        return false;
    h->Close(h);
    return true;
}

/* Open-or-create; a plain file of the same name is in the way (NB_EINVAL). */
int efi_make_dir(void *ctx, const char *path)
{
    union file_info_buf info;
    EFI_FILE_HANDLE h;
    UINTN info_size;
    int rc;

    (void)ctx;
    rc = open_path(path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
                   EFI_FILE_DIRECTORY, &h);
    if (rc)
        return rc;
    rc = get_info(h, &info, &info_size);
    if (rc == NB_OK && !(info.info.Attribute & EFI_FILE_DIRECTORY))
        rc = NB_EINVAL;
    h->Close(h);
    return rc;
}

/*
 * Opens or creates a regular file for writing and wraps it. `truncate`: set
 * its size to 0 through SetInfo (UEFI 2.10 13.5), which keeps its directory
 * entry in place; otherwise move to the end (SetPosition with
 * 0xFFFFFFFFFFFFFFFF means end of file, 13.5 SetPosition()).
 */
static int open_for_writing(const char *path, bool truncate, struct nb_file **file)
{
    union file_info_buf info;
    EFI_FILE_HANDLE h;
    UINTN info_size;
    int rc;

    *file = NULL;
    rc = open_path(path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0,
                   &h);
    if (rc)
        return rc;
    rc = get_info(h, &info, &info_size);
    if (rc)
        goto fail;
    rc = NB_EINVAL;
    if (info.info.Attribute & EFI_FILE_DIRECTORY)
        goto fail;
    if (truncate && info.info.FileSize != 0) {
        info.info.FileSize = 0;
        rc = efi_status_to_nb(h->SetInfo(h, &gEfiFileInfoGuid, info_size, &info));
    } else if (!truncate) {
        rc = efi_status_to_nb(h->SetPosition(h, 0xFFFFFFFFFFFFFFFFull));
    } else {
        rc = NB_OK;
    }
    if (rc)
        goto fail;
    rc = efi_status_to_nb(BS->AllocatePool(EfiLoaderData, sizeof(**file), (void **)file));
    if (rc)
        goto fail;
    (*file)->handle = h;
    return NB_OK;

fail:
    h->Close(h);
    return rc;
}

int efi_create_file(void *ctx, const char *path, struct nb_file **file)
{
    (void)ctx;
    return open_for_writing(path, true, file);
}

int efi_append_file(void *ctx, const char *path, struct nb_file **file)
{
    (void)ctx;
    return open_for_writing(path, false, file);
}

/*
 * The position starts at 0 of an empty file (or at the end, for append) and
 * every Write advances it, so it always sits at the end: writing appends.
 */
int efi_write_file(void *ctx, struct nb_file *file, const void *data, size_t len)
{
    const UINT8 *p = data;
    size_t done = 0;

    (void)ctx;
    while (done < len) {
        UINTN n = len - done;
        int rc = efi_status_to_nb(file->handle->Write(file->handle, &n, (void *)(p + done)));

        if (rc == NB_OK && n == 0)
            rc = NB_EIO;
        if (rc)
            return rc;
        done += n;
    }
    return NB_OK;
}

int efi_flush_file(void *ctx, struct nb_file *file)
{
    (void)ctx;
    return efi_status_to_nb(file->handle->Flush(file->handle));
}

void efi_close_file(void *ctx, struct nb_file *file)
{
    (void)ctx;
    if (!file)
        return;
    file->handle->Close(file->handle);
    BS->FreePool(file);
}
