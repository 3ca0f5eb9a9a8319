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
#include "counter_read.h"
#include "debug_code.h"

/*
 * Buffer layout: the data (two pages: the IDT has 256 gates), the IST stack
 * exceptions switch to (one page, its top at CODEGEN_IST_STACK_TOP), the
 * XSAVE area, the code.
 */
#define CODEGEN_IST_STACK_TOP 12288
#define CODEGEN_SAVE_OFFSET 12288
/* Largest XSAVE area accepted (AMX needs 11008 bytes on Sapphire Rapids). */
#define CODEGEN_SAVE_MAX (64u * 1024u)

/* Exceptions the benchmark code can raise: vectors 0-31 (SDM vol. 3A 6.3.1). */
#define CODEGEN_IDT_VECTORS 32
/* The whole IDT: an interrupt above 31 must find a gate (present or not) too. */
#define CODEGEN_IDT_ENTRIES 256
#define IDT_GATE_SIZE 16

/*
 * While the code runs, our GDT holds a copy of the firmware's first
 * CODEGEN_GDT_COPY_BYTES (256 descriptors: every firmware selector in use)
 * followed by a 64-bit TSS descriptor, so that every exception gate can
 * name IST1: a fresh stack even when the code left RSP unusable (SDM vol. 3A
 * 6.14.5, 8.7).
 */
#define CODEGEN_GDT_COPY_BYTES 2048
#define CODEGEN_TSS_SELECTOR CODEGEN_GDT_COPY_BYTES
#define CODEGEN_TSS_SIZE 104 /* 64-bit TSS without I/O bitmap (SDM vol. 3A figure 8-11) */
#define CODEGEN_IST_INDEX 1
/* The data page at the start of the buffer. */
struct codegen_data {
    uint8_t idt[CODEGEN_IDT_ENTRIES * IDT_GATE_SIZE]; /* our gates while the code runs */
    uint64_t saved_gpr[16]; /* indexed by enum x86_reg */
    uint64_t scratch_rax, scratch_rcx, scratch_rdx;
    uint64_t m1[NB_MAX_COUNTERS];
    uint64_t m2[NB_MAX_COUNTERS];
    uint8_t idtr[16];          /* limit:base of `idt` (LIDT operand) */
    uint8_t firmware_idtr[16]; /* what SIDT found; restored before returning */
    /* Set by the exception stubs; fault_happened is cleared by every run's prologue. */
    uint64_t fault_happened, fault_vector, fault_error, fault_rip, fault_cr2;
    uint64_t watchdog_count; /* APIC timer count each run arms (watchdog.h) */
    /* NMI watchdog (nmi_code.h): the handler's flag and the interrupted RIP; the epilogue's address. */
    uint64_t nmi_arrived, nmi_rip, recovery;
    /* Descriptor tables while the code runs (see CODEGEN_GDT_COPY_BYTES). */
    uint8_t gdt[CODEGEN_GDT_COPY_BYTES + 16] __attribute__((aligned(16)));
    uint8_t gdtr[16];          /* limit:base of `gdt` (LGDT operand) */
    uint8_t firmware_gdtr[16]; /* what SGDT found; restored before returning */
    uint64_t firmware_tr;      /* what STR found (16 bits) */
    /* 128-aligned, so the 104 bytes never cross a page (SDM vol. 3A 8.2.1). */
    uint8_t tss[CODEGEN_TSS_SIZE] __attribute__((aligned(128)));
    /*
     * -debug (debug_code.h): the state the stop handler hands over, the APIC
     * timer's count while stopped, the TSC at the stop and the ticks spent
     * stopped (summed over a batch; the harness clears it).
     */
    uint64_t debug_regs[DBG_SLOTS];
    uint64_t debug_timer_left, debug_t0, debug_paused;
};

/* Where the parts of the benchmark landed, to say where a fault happened. */
struct codegen_layout {
    uintptr_t start[PART_COUNT]; /* main: the first copy */
    size_t len[PART_COUNT];      /* main: one copy (as emitted, -no_mem expansions included) */
    int64_t copies;
    uintptr_t code_start, code_end; /* the whole generated function */
    uintptr_t trace_start, trace_stop; /* trace mode: the traced region */
    uintptr_t debug_slot; /* -debug: the breakpoint slot's address (debug_code.h), or 0 */
};

/* Initial values of the registers that point into memory areas. */
struct codegen_areas {
    uint64_t r14, rdi, rsi, rbp, rsp;
};

struct codegen_params {
    const uint8_t *part[PART_COUNT];
    size_t part_len[PART_COUNT];
    int64_t copies;     /* local unroll count; 0 for the basic-mode baseline */
    int64_t loop_count; /* 0: no loop */
    int64_t alignment_offset;
    bool drain_frontend;
    bool no_mem;          /* -no_mem: counters accumulate in R8..R13, no memory access */
    bool mask_interrupts; /* false only in host tests, which run in user mode */
    bool catch_faults;    /* install our IDT while the code runs (ring 0 only) */
    bool watchdog;        /* arm the APIC timer and enable interrupts (needs catch_faults) */
    uint64_t lapic_mmio_base; /* xAPIC registers, or 0 for x2APIC MSRs */
    uint8_t spurious_vector;  /* the local APIC's spurious vector (watchdog.h): an IRET gate */
    /*
     * The NMI watchdog's `state` word (nmi_watchdog.h), or 0. Instead of the
     * timer (`watchdog` false): interrupts stay disabled, gate 2 is ours.
     */
    uint64_t nmi_state;
    /*
     * -mica's trace run (mica_capture.h): no counter reads; TF is set just
     * before the late-init code and gate 1 calls `trace_step` with the
     * registers, the vector state saved at `trace_save` (64-byte aligned,
     * CODEGEN_SAVE_MAX bytes, within rel32 reach) around the call.
     */
    bool trace;
    /* -debug_trace: TF is set before the init code instead, and no alignment padding runs. */
    bool trace_init;
    uint64_t trace_step;
    uint64_t trace_save;
    /*
     * -debug (debug_code.h): the breakpoint slot after the copies, gates 3
     * and 1 calling `debug_stop` with codegen_data.debug_regs, the vector
     * state saved at the absolute address `debug_save` (64-byte aligned,
     * CODEGEN_SAVE_MAX bytes, header bytes 8..63 zero) around the call.
     */
    bool debug;
    uint64_t debug_stop;
    uint64_t debug_save;
    /*
     * State saved around the code: XCR0 as enabled (xsave_state.h) and the
     * size of its XSAVE area, or 0 to use FXSAVE64 (512 bytes).
     */
    uint64_t xsave_mask;
    uint32_t xsave_size;
    const struct counter_read *reads;
    size_t n_reads;
    /*
     * Nonzero (Intel top-down, counter_read.h `metric`): before every m1 the
     * code stops the counters (IA32_PERF_GLOBAL_CTRL = 0), zeroes
     * IA32_FIXED_CTR3 and then IA32_PERF_METRICS, and writes this value back
     * to IA32_PERF_GLOBAL_CTRL, as Linux resets both at every read of the
     * metrics with the PMU disabled (intel_pmu_read_topdown_event,
     * icl_update_topdown_event): the 8-bit fields then describe this
     * measurement alone, not everything counted since the group started.
     * Not with -no_mem.
     */
    uint64_t topdown_global_ctrl;
    /*
     * Nonzero: -cycle_by_cycle's template (cycle_by_cycle.h), no counter
     * reads: WRMSR IA32_PERF_GLOBAL_CTRL = this value; LFENCE before the
     * copies and LFENCE; WRMSR IA32_PERF_GLOBAL_CTRL = 0 after them (after
     * -df's drain), RAX/RCX/RDX kept through scratch slots. The counters are
     * frozen on a PMI and read afterwards with RDMSR.
     */
    uint64_t cycles_global_ctrl;
    struct codegen_areas areas;
    /*
     * Optional staging memory (data, not executable) of stage_cap bytes: the
     * code is written there first and only the bytes that differ are copied
     * into buf. An emulator that translates code (QEMU TCG) keeps its
     * translations of every code page that is not written, so the same
     * benchmark code at the same place costs no new translation. NULL, or too
     * small for the code: the code is written into buf directly.
     */
    uint8_t *stage;
    size_t stage_cap;
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

/*
 * Emits the write of ECX to the local APIC timer's initial count: xAPIC MMIO
 * when p->lapic_mmio_base is set, the x2APIC MSR otherwise (clobbers RAX,
 * RCX, RDX). The watchdog's arming and -debug's resume both use it.
 */
struct x86_emitter;
void codegen_emit_timer_initial(struct x86_emitter *e, const struct codegen_params *p);

#endif
