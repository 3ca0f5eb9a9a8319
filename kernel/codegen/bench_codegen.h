/*
 * bench_codegen.h — generates the code that runs one measurement, the way
 * nanoBench's kernel module lays it out:
 *
 *   pushfq; cli                    ; interrupts masked while measuring
 *   save all GPRs, RSP into the data page, and the vector state the session
 *   enabled (XSAVE64 with EDX:EAX = XCR0, or FXSAVE64 without XSAVE)
 *   R14, RDI, RSI, RBP, RSP = middle of their 1 MiB areas; other GPRs = 0
 *   code_init ; [-df drain]
 *   [mov r15, loop_count]
 *   NOP padding so that the first copy lands at 64*k + alignment_offset
 *   m1 = read counters             ; stores to the data page, keeps all GPRs and flags
 *   code_late_init ; [-df drain]
 *   loop: code x copies ; [dec r15; jnz loop]
 *   [-df drain]
 *   m2 = read counters
 *   restore everything; popfq; ret
 *
 * The buffer is one executable allocation: the data pages come first, then
 * the XSAVE area (CODEGEN_SAVE_OFFSET, page-aligned, as large as CPUID.0DH
 * says: ~11 KiB with AMX), and the code starts codegen_code_offset() bytes in, so RIP-relative stores reach
 * the data without touching a register, and no store lands in a code page
 * (which would flush the pipeline as self-modifying code, SDM vol. 3A 11.6).
 */
#ifndef BENCH_CODEGEN_H
#define BENCH_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"
#include "codegen_types.h"

/* Where the parts of the benchmark landed, to say where a fault happened. */
struct codegen_layout {
    uintptr_t start[PART_COUNT]; /* main: the first copy */
    size_t len[PART_COUNT];      /* main: one copy (as emitted, -no_mem expansions included) */
    int64_t copies;
    uintptr_t code_start, code_end; /* the whole generated function */
    uintptr_t trace_start, trace_stop; /* trace mode: the traced region */
    uintptr_t debug_slot; /* -debug: the breakpoint slot's address (debug_code.h), or 0 */
};

/*
 * -no_mem keeps one running value per counter in R8, R9, ... R13 (so at most
 * NOMEM_MAX_READS counters; the code must not touch them) and clobbers RAX,
 * RCX, RDX and the flags when reading. In that mode the main code may pause
 * and resume counting with nanoBench's magic 8-byte sequences, which the
 * generator replaces by counter reads.
 */
#define NOMEM_MAX_READS 6
#define MAGIC_PAUSE 0xF0B513B1C2813F04ull
#define MAGIC_RESUME 0xE0B513B1C2813F04ull

/* True when the code contains a pause or resume sequence. */
bool codegen_has_magic(const uint8_t *code, size_t len);

/* Where the code starts in the buffer: after the data and the save area. */
size_t codegen_code_offset(const struct codegen_params *p);

/*
 * The largest buffer a generated function may span: the loop's JNZ and the
 * RIP-relative stores to the data pages use 32-bit signed displacements,
 * which reach ±2 GiB (SDM vol. 2A 2.2.1.6). Larger code is refused before it
 * is written; the emitter also flags any displacement out of reach.
 */
#define CODEGEN_MAX_SIZE 0x7FFFFFFFull

/*
 * -cycle_by_cycle: the instructions of the template that retire after the
 * last copy while the counters count (-df's drain, the LFENCE, three stores
 * of RAX/RCX/RDX and the three MOVs before the WRMSR that stops them).
 */
size_t codegen_cycles_tail(const struct codegen_params *p);

/* Bytes of buffer (data page + code) needed for a measuring function. */
size_t codegen_run_size(const struct codegen_params *p);
/* Bytes of buffer needed for the one-time-init function. */
size_t codegen_one_time_size(const struct codegen_params *p);

/*
 * Writes the measuring function into buf (capacity cap) and returns its entry
 * point, or NULL when it does not fit (then buf's code may be partly written). The counters' m1/m2 values land in
 * ((struct codegen_data *)buf)->m1/m2 after each call.
 */
void *codegen_emit_run(uint8_t *buf, size_t cap, const struct codegen_params *p,
                       struct codegen_layout *layout);

/*
 * Copies len staged code bytes to `code`, writing only the 8-byte words that
 * differ (what codegen_emit_* do with codegen_params.stage).
 */
void codegen_sync(uint8_t *code, const uint8_t *staged, size_t len);

/* Writes a function that sets up the registers and runs the one-time init. */
void *codegen_emit_one_time(uint8_t *buf, size_t cap, const struct codegen_params *p,
                            struct codegen_layout *layout);

/* Length of one -df drain: LFENCE, 64 one-byte NOPs, 128 fifteen-byte NOPs. */
size_t codegen_drain_length(void);

#endif
