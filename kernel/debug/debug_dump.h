/*
 * debug_dump.h — the text of -debug's machine-state dump (debug_stop.h):
 * where the benchmark stopped, RFLAGS decoded, the GPRs, segment
 * selectors, control, debug and extended control registers (bits named),
 * MXCSR and the x87 control/status/tag words decoded, ST0-7, every vector
 * register XCR0 enables (XMM, YMM or ZMM, and the opmasks) and the memory
 * areas' non-zero bytes. Pure: tested on the host with a made-up capture.
 */
#ifndef DEBUG_DUMP_H
#define DEBUG_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counter_read.h"
#include "debug_stop.h"

struct debug_dump_info {
    int64_t group;
    int run; /* 0 base, 1 main */
    int64_t index;
    unsigned cpu;
    uint64_t code_start; /* the generated function's first byte */
    uint64_t slot;       /* the breakpoint slot (RIP is slot + 1) */
    uint64_t area_reg[DEBUG_AREAS];
    /*
     * The save area's format: XCR0 as enabled (XSAVE64, standard form), or 0
     * for FXSAVE64; the components' offsets from CPUID.(0DH, i).EBX (0: absent).
     */
    uint64_t xsave_mask;
    uint32_t off_ymm, off_opmask, off_zmm_hi256, off_hi16_zmm;
    /* -no_mem: the counters R8.. hold at the breakpoint. */
    bool no_mem;
    const struct counter_read *reads;
    size_t n_reads;
};

typedef void (*debug_line_fn)(void *arg, const char *line);

/* Calls out(arg, line) for every line of the dump (no newline). */
void debug_dump(const struct debug_capture *cap, const struct debug_dump_info *info, debug_line_fn out, void *arg);

/* Register names in encoding order ("RAX", "RCX", ...), for the dump and the trace. */
const char *debug_gpr_name(unsigned r);

#endif
