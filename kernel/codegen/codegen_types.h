/*
 * codegen_types.h — what the measuring code generator (bench_codegen.h) and
 * the emitters of its stages (debug_code.h, nmi_code.h, trace_code.h) share:
 * the layout of the buffer's data pages, which the generated code reaches
 * with RIP-relative stores (struct codegen_data), and the description of one
 * measuring function (struct codegen_params). Types and constants only, so
 * that the stage emitters never need bench_codegen.h, which emits them.
 */
#ifndef CODEGEN_TYPES_H
#define CODEGEN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"
#include "counter_read.h"

/*
 * Slots of codegen_data.debug_regs, where -debug's handler (debug_code.h)
 * stores the state: GPRs in encoding order (x86_reg), then these.
 */
enum debug_slot {
    DBG_RIP = 16,
    DBG_CS,
    DBG_RFLAGS,
    DBG_SS,
    DBG_DS,
    DBG_ES,
    DBG_FS,
    DBG_GS,
    DBG_CR0,
    DBG_CR2,
    DBG_CR3,
    DBG_CR4,
    DBG_CR8,
    DBG_DR6,
    DBG_DR7,
    DBG_EFER,
    DBG_XCR0,
    DBG_VECTOR, /* 3: the breakpoint (RIP is after the INT3), 1: a single step */
    DBG_SLOTS
};

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

#endif
