/*
 * efi_console.c — choose and write to firmware text consoles.
 *
 * ST->ConOut is a ConSplitter that also feeds the serial terminal when the
 * firmware redirects its console to COM1 (OVMF always does; so do BIOSes with
 * console redirection). Writing to it next to efi_serial.c would print every
 * line twice on the serial line. Instead, enumerate the Simple Text Output
 * protocol instances (UEFI 2.10 §12.4) and keep the ones that are real
 * devices: a handle without a device path is the splitter itself, and one
 * whose path holds a UART messaging node (§10.3.4, sub-type MSG_UART_DP) is a
 * serial terminal.
 */
#include "efi_console.h"

#include <efilib.h>

#include "efi_serial.h"

#define MAX_CONSOLES 8
#define CHUNK_CHARS 128

static SIMPLE_TEXT_OUTPUT_INTERFACE *consoles[MAX_CONSOLES];
static size_t console_count;

static bool path_has_uart(EFI_DEVICE_PATH *node)
{
    while (!IsDevicePathEnd(node)) {
        if (DevicePathType(node) == MESSAGING_DEVICE_PATH &&
            DevicePathSubType(node) == MSG_UART_DP)
            return true;
        if ((size_t)DevicePathNodeLength(node) < sizeof(EFI_DEVICE_PATH))
            break; /* malformed path: stop rather than loop forever */
        node = NextDevicePathNode(node);
    }
    return false;
}

static void add_console(SIMPLE_TEXT_OUTPUT_INTERFACE *out)
{
    if (console_count < MAX_CONSOLES)
        consoles[console_count++] = out;
}

void efi_console_init(bool serial_present)
{
    EFI_HANDLE *handles = NULL;
    UINTN count = 0;
    EFI_STATUS status;

    console_count = 0;
    status = BS->LocateHandleBuffer(ByProtocol, &gEfiSimpleTextOutProtocolGuid, NULL,
                                    &count, &handles);
    for (UINTN i = 0; !EFI_ERROR(status) && i < count; i++) {
        EFI_DEVICE_PATH *path;
        SIMPLE_TEXT_OUTPUT_INTERFACE *out;

        if (EFI_ERROR(BS->HandleProtocol(handles[i], &gEfiDevicePathProtocolGuid,
                                         (void **)&path)))
            continue; /* virtual splitter handle */
        /* Without our own UART driver a serial terminal is the only way out. */
        if (serial_present && path_has_uart(path))
            continue;
        if (!EFI_ERROR(BS->HandleProtocol(handles[i], &gEfiSimpleTextOutProtocolGuid,
                                          (void **)&out)))
            add_console(out);
    }
    if (handles)
        BS->FreePool(handles);

    if (console_count == 0 && !serial_present && ST->ConOut)
        add_console(ST->ConOut);
}

static void console_output(CHAR16 *buf)
{
    for (size_t i = 0; i < console_count; i++)
        consoles[i]->OutputString(consoles[i], buf);
}

/* ASCII to UCS-2 in chunks; "\n" becomes "\r\n", other non-ASCII bytes '?'. */
static void console_write(const char *text, size_t len)
{
    CHAR16 buf[CHUNK_CHARS + 3];
    size_t n = 0;

    if (console_count == 0)
        return;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];

        if (c == '\0')
            continue;
        if (c == '\n')
            buf[n++] = L'\r';
        buf[n++] = c < 0x80 ? (CHAR16)c : L'?';
        if (n >= CHUNK_CHARS) {
            buf[n] = 0;
            console_output(buf);
            n = 0;
        }
    }
    if (n > 0) {
        buf[n] = 0;
        console_output(buf);
    }
}

void efi_write_text(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    efi_serial_write(text, len);
    console_write(text, len);
}

void efi_log_status(const char *what, EFI_STATUS status)
{
    static const char hex[] = "0123456789abcdef";
    char num[18];
    size_t len = 0;

    while (what[len])
        len++;
    efi_write_text(NULL, "boot: ", 6);
    efi_write_text(NULL, what, len);
    num[0] = '0';
    num[1] = 'x';
    for (int i = 0; i < 16; i++)
        num[2 + i] = hex[(status >> (60 - 4 * i)) & 0xF];
    efi_write_text(NULL, " (EFI status ", 13);
    efi_write_text(NULL, num, sizeof(num));
    efi_write_text(NULL, ")\n", 2);
}
