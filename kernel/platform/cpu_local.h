/*
 * cpu_local.h — the seam inside ONE procedure on another processor (-cpu N).
 *
 * A benchmark's whole per-processor measurement runs in one call on
 * processor N (cpu_measure.h). There the processor's own calls (CPUID,
 * MSRs, TSC, local APIC, CR4/XCR0, IPIs, I/O ports) act on N directly, but
 * the firmware must not be called: UEFI boot services are the boot
 * processor's only (PI spec vol. 2 13.4: an AP procedure may not call
 * them). A cpu_local platform is such a seam: processor calls go to `base`
 * (whose calls act on whichever processor executes them); files come from
 * what the boot processor read for the call beforehand (cpu_local_add_file),
 * and the paths asked for that were not read are noted (missed);
 * allocations are served from blocks the boot processor allocated
 * beforehand (cpu_local_add_block), of exactly the size asked for, and
 * otherwise fail; frees are kept for the boot processor (cpu_local_finish);
 * text output is counted and dropped (the report records instead,
 * nb_report.h report_tape_start). Built on the boot processor before the
 * call, used on N, finished on the boot processor after it.
 */
#ifndef CPU_LOCAL_H
#define CPU_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

#define CPU_LOCAL_FILES 4
#define CPU_LOCAL_FREES 16
#define CPU_LOCAL_BLOCKS 8

struct cpu_local_file {
    char path[160];
    int status;   /* what base->read_file answered */
    void *data;
    size_t size;
};

struct cpu_local {
    struct nb_platform p; /* hand this to the engine; p.ctx points to this struct */
    const struct nb_platform *base;
    unsigned cpu, n_cpus;
    uint64_t tsc_hz;      /* for stall_us (a TSC wait); 0: stall_us returns at once */
    struct cpu_local_file files[CPU_LOCAL_FILES];
    unsigned n_files;
    struct { void *p; size_t size; } frees[CPU_LOCAL_FREES];
    unsigned n_frees;
    /* Allocated on the boot processor for N's alloc_data/alloc_exec calls; `taken`: handed out there. */
    struct { void *p; size_t size; bool exec, taken; } blocks[CPU_LOCAL_BLOCKS];
    unsigned n_blocks;
    /* Files N asked for that were not read beforehand (the first CPU_LOCAL_FILES of them). */
    char missed[CPU_LOCAL_FILES][160];
    unsigned n_missed;
    /* Firmware calls refused on N (allocations, text, files not read beforehand). */
    unsigned refused;
};

/* On the boot processor: a seam for processor `cpu` of `base` (its processor calls act where they run). */
void cpu_local_init(struct cpu_local *l, const struct nb_platform *base, unsigned cpu, uint64_t tsc_hz);
/* On the boot processor, before the call: reads `path` for the code on N (nothing if already read). */
void cpu_local_add_file(struct cpu_local *l, const char *path);
/*
 * On the boot processor, before the call: a block of `size` bytes (code
 * memory if `exec`) for N's first allocation of exactly that size and kind;
 * false when the firmware has no memory for it or the list is full.
 */
bool cpu_local_add_block(struct cpu_local *l, size_t size, bool exec);
/* On the boot processor, after the call: frees the files, the blocks N did not take and what N asked to free. */
void cpu_local_finish(struct cpu_local *l);

#endif
