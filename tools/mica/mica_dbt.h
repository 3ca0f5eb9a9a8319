/*
 * mica_dbt.h — the third capture path of MICA (issue 23): a Linux program
 * run under QEMU user-mode emulation (qemu-x86_64, dynamic binary
 * translation with TCG) with nb_mica's plugin (build/host/mica_dbt.so,
 * tools/mica/mica_dbt_plugin.c). The plugin streams, through a pipe, the
 * address and bytes of each static instruction once, then per executed
 * instruction its id and the addresses of its memory accesses; this side
 * decodes them with Zydis (mica_decode_fill) and runs the analyses on
 * worker threads while QEMU runs: no trace file.
 *
 * Where a record differs from the ptrace capture (no register values in
 * QEMU 7.2's plugin API):
 *  - addresses are those QEMU accessed; an operand QEMU makes no access for
 *    (a NOP's or PREFETCH's memory operand, CLFLUSH, a REP string
 *    instruction with count 0, an instruction that faulted) is no memory
 *    operand for that record (so -mica_nop_mem on cannot apply);
 *  - a REP instruction counts for N_hpc on its first iteration when that
 *    iteration accessed memory (count > 0), as the ptrace path decides from
 *    RCX;
 *  - QEMU's CPU model is TCG's (no AVX-512, and library code that picks an
 *    implementation by CPUID may take another path than on the host).
 * Only the initial thread (vCPU 0) of the initial process is recorded.
 */
#ifndef MICA_DBT_H
#define MICA_DBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica_run.h"

struct mica_dbt_options {
    uint64_t max_instructions; /* 0: no limit; reached: recording stops, the program runs on */
    const char *qemu;          /* the emulator to run (qemu-x86_64) */
    const char *plugin;        /* path of mica_dbt.so */
    unsigned threads;          /* analysis threads (1 or 2) */
};

struct mica_dbt_result {
    uint64_t instructions;     /* records analysed */
    bool too_long;             /* max_instructions stopped the recording */
    bool killed;               /* the program died of a signal */
    int signal;
    int exit_status;           /* the program's exit status when it exited */
    /* Where the time went (seconds): wall clock, CPU of QEMU (with the
     * plugin), of the reading/decoding thread and of each analysis thread. */
    double wall, cpu_qemu, cpu_reader, cpu_worker[2];
    unsigned n_workers;
};

/*
 * Runs argv[0] (searched in PATH) under QEMU and feeds every record to each
 * of runs[0..n_runs-1] (fresh runs; mica_run_finish is called on them).
 * 0, or -1 with a message in err (QEMU or the plugin could not run, an
 * instruction Zydis cannot decode, a damaged stream).
 */
int mica_dbt_run(char *const *argv, const struct mica_dbt_options *o, struct mica_run **runs,
                 size_t n_runs, struct mica_dbt_result *res, char *err, size_t errlen);

#endif
