/*
 * debug_uart.c — polled 16550 for -debug_gdb (see debug_uart.h).
 */
#include "debug_uart.h"

/* 16550 registers (offsets from the base) and bits. */
#define UART_DATA 0     /* RBR/THR; DLL with DLAB */
#define UART_IER 1      /* DLM with DLAB */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCRATCH 7
#define LCR_DLAB 0x80u
#define LCR_8N1 0x03u
#define FCR_ENABLE_CLEAR 0x07u
#define MCR_DTR_RTS 0x03u
#define LSR_DATA_READY 0x01u
#define LSR_THR_EMPTY 0x20u
#define DIVISOR_115200 1u /* 1.8432 MHz / 16 / 115200 */
#define PUT_SPIN_MAX 1000000u

static uint8_t in(struct debug_uart *u, unsigned reg)
{
    return u->p->port_in8(u->p->ctx, (uint16_t)(u->base + reg));
}

static void out(struct debug_uart *u, unsigned reg, uint8_t v)
{
    u->p->port_out8(u->p->ctx, (uint16_t)(u->base + reg), v);
}

bool debug_uart_init(struct debug_uart *u, const struct nb_platform *p, uint16_t base)
{
    u->p = p;
    u->base = base;
    u->present = false;
    if (!p->port_in8 || !p->port_out8)
        return false;
    out(u, UART_SCRATCH, 0x5A);
    if (in(u, UART_SCRATCH) != 0x5A)
        return false;
    out(u, UART_IER, 0); /* polled: no interrupts */
    out(u, UART_LCR, LCR_DLAB);
    out(u, UART_DATA, DIVISOR_115200);
    out(u, UART_IER, 0);
    out(u, UART_LCR, LCR_8N1);
    out(u, UART_FCR, FCR_ENABLE_CLEAR);
    out(u, UART_MCR, MCR_DTR_RTS);
    u->present = true;
    return true;
}

bool debug_uart_poll(struct debug_uart *u, uint8_t *byte)
{
    if (!u->present || !(in(u, UART_LSR) & LSR_DATA_READY))
        return false;
    *byte = in(u, UART_DATA);
    return true;
}

void debug_uart_put(struct debug_uart *u, uint8_t byte)
{
    if (!u->present)
        return;
    for (unsigned i = 0; i < PUT_SPIN_MAX && !(in(u, UART_LSR) & LSR_THR_EMPTY); i++)
        ;
    out(u, UART_DATA, byte);
}
