/*
 * gdb_stub.h — -debug_gdb: gdb's remote serial protocol on the stopped
 * benchmark (debug_stop.h). The command side is pure: gdb_stub_command
 * turns one packet into its reply and an action, on the registers and the
 * XSAVE area the stop handler handed over (tests/unit/test_gdb_stub.c).
 * gdb_stub_session runs it over the UART (debug_uart.h) while stopped.
 *
 * Packets: ? g G p P m M s c Z0 z0 D k Hg Hc qAttached qOffsets qSupported
 * (advertising qXfer:features:read) and qXfer:features:read:target.xml,
 * which serves an x86-64 target description with the x87, SSE and (when
 * XCR0 enables it) AVX registers in gdb's numbering; any other packet gets
 * the empty reply. Memory access is limited to the generated code's buffer
 * and the five memory areas (anything else is "E14": no page fault in the
 * stop handler).
 */
#ifndef GDB_STUB_H
#define GDB_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug_uart.h"
#include "gdb_proto.h"

#define GDB_MAX_BREAKPOINTS 32
#define GDB_MAX_RANGES 8

enum gdb_action {
    GDB_STAY = 0, /* reply and wait for the next packet */
    GDB_CONTINUE,
    GDB_STEP,
    GDB_DETACH, /* D or k: breakpoints removed, the suite goes on */
};

struct gdb_range {
    uint64_t start, end; /* [start, end) */
};

struct gdb_breakpoint {
    uint64_t addr; /* 0: free */
    uint8_t saved;
};

struct gdb_stub {
    uint64_t *regs;   /* codegen_data.debug_regs (debug_code.h slots) */
    uint8_t *xsave;   /* the handler's save area */
    uint64_t xsave_mask; /* XCR0 as enabled; 0: FXSAVE64 layout */
    uint32_t off_ymm;    /* CPUID.(0DH,2).EBX, 0 without AVX */
    uint64_t code_start; /* qOffsets: the symbol file's addresses are relative to it */
    struct gdb_range ranges[GDB_MAX_RANGES]; /* readable memory */
    size_t n_ranges;
    struct gdb_breakpoint bp[GDB_MAX_BREAKPOINTS];
    /* Session state. */
    bool attached;  /* a packet arrived */
    bool waiting;   /* gdb sent c or s and waits for a stop reply */
    bool detached;
    struct debug_uart uart;
    struct gdb_rx rx;
    char reply[GDB_PACKET_MAX + 8];
    char frame[2 * GDB_PACKET_MAX + 16];
};

/* Handles one packet; the reply (payload, no framing) in s->reply, its length in *reply_len. */
enum gdb_action gdb_stub_command(struct gdb_stub *s, const char *pkt, size_t len, size_t *reply_len);

/* True when a breakpoint of gdb's is at addr. */
bool gdb_stub_has_breakpoint(const struct gdb_stub *s, uint64_t addr);
/* Puts back the bytes under every breakpoint. */
void gdb_stub_remove_breakpoints(struct gdb_stub *s);

/*
 * While stopped: the first time, waits up to `wait_ticks` of `read_tsc`
 * for gdb's first byte (false: nobody came; nothing was sent); then
 * answers packets until c, s, D or k. `stop_reply` is sent first when gdb
 * is waiting for one (after c or s).
 */
enum gdb_action gdb_stub_session(struct gdb_stub *s, uint64_t (*read_tsc)(void *ctx), void *tsc_ctx,
                                 uint64_t wait_ticks, bool *came);
/* Tells a waiting gdb that the program ended ("W00"): at the end of the benchmark. */
void gdb_stub_exited(struct gdb_stub *s);

/* The target description served by qXfer (with or without the AVX feature). */
const char *gdb_stub_target_xml(bool avx, size_t *len);

#endif
