/*
 * efi_serial.c — polled driver for the COM1 16550 UART.
 *
 * Register offsets and bits follow the TI PC16550D datasheet (register
 * summary table): THR/DLL 0, IER/DLM 1, FCR 2, LCR 3, MCR 4, LSR 5, SCR 7.
 * Firmware consoles (OVMF, BIOS console redirection) may drive the same UART;
 * efi_console.c keeps them off it while this driver owns it.
 */
#include "efi_serial.h"

#include <efi.h>
#include <efilib.h>
#include <stdint.h>

#include "io.h"

#define COM1_BASE 0x3F8

#define UART_THR 0 /* transmit holding register (DLAB = 0) */
#define UART_RBR 0 /* receive buffer register (DLAB = 0, read) */
#define UART_DLL 0 /* divisor latch low (DLAB = 1) */
#define UART_IER 1 /* interrupt enable (DLAB = 0) */
#define UART_DLM 1 /* divisor latch high (DLAB = 1) */
#define UART_FCR 2 /* FIFO control (write only) */
#define UART_LCR 3 /* line control */
#define UART_MCR 4 /* modem control */
#define UART_LSR 5 /* line status */
#define UART_SCR 7 /* scratch register */

#define LCR_8N1 0x03  /* 8 data bits, no parity, 1 stop bit */
#define LCR_DLAB 0x80 /* divisor latch access */
#define FCR_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
#define FCR_CLEAR_TX 0x04
#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define LSR_DR 0x01   /* data ready: the receive FIFO holds a byte */
#define LSR_THRE 0x20 /* transmit holding register (FIFO) empty */
#define LSR_TEMT 0x40 /* transmitter completely idle */

/* 1.8432 MHz crystal / (16 * divisor): divisor 1 gives 115200 baud. */
#define BAUD_DIVISOR 1

/*
 * At 115200 baud one byte takes about 87 us; this bounds a wait to well over
 * a full 16-byte FIFO even if each IN takes 1 us. A UART that never drains
 * (broken or emulated without a backend) is then dropped instead of
 * stalling the suite.
 */
#define SPIN_LIMIT 200000

static bool serial_present;
/*
 * The probe found the UART. Serve mode uses it even after a stalled log
 * write dropped it for the log: its frames wait for the transmitter as long
 * as it takes (a real 16550 always drains; QEMU's can take a while when its
 * host side is busy), and the port is its only channel.
 */
static bool uart_found;

/*
 * Scratch-register probe: a missing UART floats the bus and reads 0xFF. A
 * loopback probe (MCR bit 4) would also work but races with firmware
 * terminal drivers that poll the receiver from a timer event.
 */
static bool uart_probe(void)
{
    outb(COM1_BASE + UART_SCR, 0x5A);
    if (inb(COM1_BASE + UART_SCR) != 0x5A)
        return false;
    outb(COM1_BASE + UART_SCR, 0xA5);
    return inb(COM1_BASE + UART_SCR) == 0xA5;
}

bool efi_serial_init(void)
{
    serial_present = uart_found = uart_probe();
    if (!serial_present)
        return false;

    outb(COM1_BASE + UART_IER, 0x00); /* polled: no interrupts */
    outb(COM1_BASE + UART_LCR, LCR_DLAB);
    outb(COM1_BASE + UART_DLL, BAUD_DIVISOR & 0xFF);
    outb(COM1_BASE + UART_DLM, BAUD_DIVISOR >> 8);
    outb(COM1_BASE + UART_LCR, LCR_8N1);
    outb(COM1_BASE + UART_FCR, FCR_ENABLE | FCR_CLEAR_RX | FCR_CLEAR_TX);
    outb(COM1_BASE + UART_MCR, MCR_DTR | MCR_RTS);
    return true;
}

bool efi_serial_present(void)
{
    return serial_present;
}

static bool wait_lsr(uint8_t bits)
{
    for (uint32_t i = 0; i < SPIN_LIMIT; i++) {
        if ((inb(COM1_BASE + UART_LSR) & bits) == bits)
            return true;
    }
    return false;
}

static void put_byte(uint8_t byte)
{
    if (!wait_lsr(LSR_THRE)) {
        serial_present = false;
        return;
    }
    outb(COM1_BASE + UART_THR, byte);
}

void efi_serial_write(const char *text, size_t len)
{
    for (size_t i = 0; i < len && serial_present; i++) {
        if (text[i] == '\n')
            put_byte('\r');
        put_byte((uint8_t)text[i]);
    }
}

void efi_serial_drain(void)
{
    if (serial_present)
        wait_lsr(LSR_THRE | LSR_TEMT);
}

void efi_serial_write_raw(void *ctx, const void *data, size_t len)
{
    const uint8_t *b = data;
    (void)ctx;
    for (size_t i = 0; i < len && uart_found; i++) {
        while (!(inb(COM1_BASE + UART_LSR) & LSR_THRE))
            ;
        outb(COM1_BASE + UART_THR, b[i]);
    }
}

/*
 * OVMF's terminal driver polls the UART from a timer event (and so may a
 * BIOS's console redirection) and would take request bytes for its own
 * ConIn. Serve mode owns the port: the drivers bound to every Serial I/O
 * handle are disconnected once (UEFI 2.10 section 7.3,
 * DisconnectController), which stops the terminal's timer. While we wait,
 * TPL_HIGH_LEVEL also keeps every event from running (section 7.1,
 * RaiseTPL: interrupts are off).
 */
static bool claimed;
static EFI_HANDLE *claimed_handles;
static UINTN claimed_count;

static void claim_from_firmware(void)
{
    if (claimed)
        return;
    claimed = true;
    if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &gEfiSerialIoProtocolGuid, NULL, &claimed_count,
                                         &claimed_handles))) {
        claimed_handles = NULL;
        claimed_count = 0;
        return;
    }
    for (UINTN i = 0; i < claimed_count; i++)
        BS->DisconnectController(claimed_handles[i], NULL, NULL);
}

void efi_serial_release(void)
{
    /* Back to the firmware (-finish exit): its terminal on the port again (section 7.3, ConnectController). */
    for (UINTN i = 0; i < claimed_count; i++)
        BS->ConnectController(claimed_handles[i], NULL, NULL, TRUE);
    if (claimed_handles)
        BS->FreePool(claimed_handles);
    claimed_handles = NULL;
    claimed_count = 0;
    claimed = false;
}

size_t efi_serial_read(void *ctx, void *buf, size_t min, size_t cap)
{
    uint8_t *b = buf;
    size_t n = 0;
    (void)ctx;
    if (!uart_found)
        return 0;
    claim_from_firmware();
    EFI_TPL old = BS->RaiseTPL(TPL_HIGH_LEVEL);
    while (n < cap) {
        if (inb(COM1_BASE + UART_LSR) & LSR_DR)
            b[n++] = inb(COM1_BASE + UART_RBR);
        else if (n >= min)
            break;
    }
    BS->RestoreTPL(old);
    return n;
}

uint8_t efi_port_in8(void *ctx, uint16_t port)
{
    (void)ctx;
    return inb(port);
}

void efi_port_out8(void *ctx, uint16_t port, uint8_t value)
{
    (void)ctx;
    outb(port, value);
}
