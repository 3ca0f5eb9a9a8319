/*
 * fuzz_gdb.c — libFuzzer target for -debug_gdb's remote protocol
 * (kernel/debug/gdb_proto.h framing, kernel/debug/gdb_stub.h commands): the bytes come
 * from a serial cable or a socket, so no byte sequence may make the stub
 * read or write outside its buffers, its registers or the memory it allows.
 *
 * Input: the bytes as received. Every packet with a good checksum is run as
 * a command on a fake stopped benchmark (registers, an XSAVE area with AVX,
 * one 256-byte readable range).
 *
 * Invariants (a failure traps): a packet is at most GDB_PACKET_MAX bytes;
 * every reply fits the reply buffer; framing a reply and receiving it again
 * gives back the same payload; memory outside the allowed range is never
 * written (a canary around it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "debug_code.h"
#include "fuzz_util.h"
#include "gdb_stub.h"

static struct gdb_stub stub;
static uint64_t regs[DBG_SLOTS];
static uint8_t xsave[4096] __attribute__((aligned(64)));
static uint8_t memory[256 + 64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    memset(&stub, 0, sizeof(stub));
    memset(regs, 0, sizeof(regs));
    memset(xsave, 0, sizeof(xsave));
    memset(memory, 0xA5, sizeof(memory));
    stub.regs = regs;
    stub.xsave = xsave;
    stub.xsave_mask = 7;
    stub.off_ymm = 576;
    stub.code_start = (uint64_t)(uintptr_t)(memory + 32);
    stub.ranges[0] = (struct gdb_range){ (uint64_t)(uintptr_t)(memory + 32),
                                         (uint64_t)(uintptr_t)(memory + 32 + 256) };
    stub.n_ranges = 1;
    static struct gdb_rx rx, back;
    gdb_rx_init(&rx);
    for (size_t i = 0; i < size; i++) {
        if (gdb_rx_byte(&rx, data[i]) != GDB_RX_PACKET)
            continue;
        FUZZ_CHECK(rx.len <= GDB_PACKET_MAX);
        size_t n;
        gdb_stub_command(&stub, rx.buf, rx.len, &n);
        FUZZ_CHECK(n <= sizeof(stub.reply));
        size_t f = gdb_frame(stub.reply, n, stub.frame, sizeof(stub.frame));
        FUZZ_CHECK(f > 0);
        gdb_rx_init(&back);
        enum gdb_rx_event ev = GDB_RX_NONE;
        for (size_t k = 0; k < f; k++)
            ev = gdb_rx_byte(&back, (uint8_t)stub.frame[k]);
        FUZZ_CHECK(ev == GDB_RX_PACKET || (ev == GDB_RX_OVERFLOW && n > GDB_PACKET_MAX));
        if (ev == GDB_RX_PACKET)
            FUZZ_CHECK(back.len == n && memcmp(back.buf, stub.reply, n) == 0);
    }
    for (size_t i = 0; i < 32; i++)
        FUZZ_CHECK(memory[i] == 0xA5 && memory[sizeof(memory) - 1 - i] == 0xA5);
    return 0;
}
