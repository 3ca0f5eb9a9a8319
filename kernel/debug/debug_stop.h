/*
 * debug_stop.h — -debug's stop at nanoBench's breakpoint: the one execution
 * chosen by -debug_at (debug_options in bench_options.h) stops after its last
 * copy, before the second counter read, and the machine state as the
 * benchmark left it is captured here (debug_dump.h prints it).
 *
 * The harness arms one execution (bench_batch.c): it writes INT3 into the
 * run's breakpoint slot (debug_code.h) before that execution and the NOP
 * back after it; the execution's readings are thrown away and the
 * measurement repeated without the breakpoint, so results are those of a
 * run without -debug. The stop function runs inside the generated handler
 * on the benchmark's processor (-cpu N included): it may only execute
 * instructions and touch memory (no firmware call), so it copies the
 * registers, the XSAVE area and the memory areas' non-zero bytes into the
 * capture, and the dump is written afterwards by the boot processor.
 *
 * Memory areas: the harness zeroes them before the benchmark's first
 * execution, so "changed" means "not zero"; each 16-byte line with a
 * non-zero byte is kept (offsets relative to the register's initial value,
 * the area's middle), at most DEBUG_MAX_LINES over the five areas.
 */
#ifndef DEBUG_STOP_H
#define DEBUG_STOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug_code.h"

#define DEBUG_AREAS 5 /* R14, RDI, RSI, RBP, RSP (bench_run.h enum bench_area) */
#define DEBUG_MAX_LINES 4096
#define DEBUG_LINE_BYTES 16
#define DEBUG_SAVE_MAX (64u * 1024u) /* CODEGEN_SAVE_MAX */

struct debug_line {
    uint8_t area;
    uint16_t mask; /* bit i: byte i differs from zero */
    int64_t offset; /* of byte 0, from the register's initial value; a multiple of 16 */
    uint8_t bytes[DEBUG_LINE_BYTES];
};

struct debug_capture {
    bool taken;
    uint64_t regs[DBG_SLOTS]; /* RIP: where execution continues (after the slot) */
    uint8_t xsave[DEBUG_SAVE_MAX] __attribute__((aligned(64)));
    uint64_t differing[DEBUG_AREAS]; /* bytes != 0 per area */
    size_t n_lines;
    bool truncated;
    struct debug_line lines[DEBUG_MAX_LINES];
};

/* One benchmark's stop: set by the harness around the run it arms. */
struct debug_session {
    volatile bool armed;
    uint64_t slot; /* the armed run's breakpoint slot: the #BP reports slot + 1 */
    const uint8_t *area[DEBUG_AREAS];
    uint64_t area_size[DEBUG_AREAS];
    uint64_t area_reg[DEBUG_AREAS]; /* the register's initial value (the middle) */
    uint32_t xsave_size;            /* bytes of the save area to keep */
    struct debug_capture *cap;
    /*
     * Called after the capture with the live registers and save area (a
     * debugger may change them), or NULL. Runs on the benchmark's processor.
     */
    void (*on_stop)(struct debug_session *s, uint64_t *regs, uint8_t *xsave);
    void *on_stop_arg;
    /*
     * A debugger's software breakpoint at addr (the INT3 is its own, not the
     * benchmark's), or NULL; `stepping`: the debugger asked for one step
     * (TF set), so the next #DB is a stop too.
     */
    bool (*is_breakpoint)(void *arg, uint64_t addr);
    bool stepping;
    /* Stops so far: an execution during which it changed is run again (bench_batch.c). */
    volatile uint64_t stops;
    /*
     * The NMI watchdog's deadline (nmi_watchdog.h) while it watches, or
     * NULL: moved out of reach while stopped, and by the time stopped after.
     */
    volatile uint64_t *nmi_deadline;
    uint64_t (*read_tsc)(void *ctx); /* pure RDTSC (the seam's read_tsc) */
    void *tsc_ctx;
};

/* The session the handler reports to (set by the harness around its runs). */
extern struct debug_session *debug_current;
/* The generated handler's call (codegen_params.debug_stop): regs[DBG_SLOTS]. */
void debug_stop(uint64_t *regs);
/* The vector-state area the handler saves into, for debug_stop to read (set with debug_current). */
extern uint8_t *debug_save_live;

/* Scans the areas into cap (also what debug_stop does); exposed for tests. */
void debug_capture_areas(struct debug_capture *cap, const struct debug_session *s);

#endif
