/*
 * cpu_session.h — -cpu N: processor N's session (identified, its XSAVE and
 * DE_CFG state set, its PMU detected, probed and its counter state saved)
 * begun in ONE firmware call on N and ended (everything restored) in one.
 *
 * Each call to another processor is a wake-up of it (EDK II's HLT mode:
 * INIT-SIPI-SIPI, see cpu_measure.h). Forwarded one CPUID or MSR access at
 * a time, the session's begin was dozens of calls (45 with Skylake's PMU).
 * Instead the boot processor prepares what the code on N would ask of the
 * firmware: the files it reads (the config map, and the counter
 * restrictions file the boot processor's own map line named), the memory
 * it allocates (counters_init_blocks); then one procedure on N runs the
 * whole begin with N's own seam (cpu_local.h), its report lines recorded
 * and replayed in order afterwards (nb_report.h report_tape_start). Should
 * N ask for a file that was not read (a hybrid part whose other core kind
 * has a map line of its own), the session is ended there, the file read,
 * and the begin run again: two more calls, the same lines.
 *
 * What a benchmark's code needs of N is still checked in the procedure
 * that runs it (bench_run.c), since a wake-up by INIT may reset it.
 */
#ifndef CPU_SESSION_H
#define CPU_SESSION_H

#include "bench_counters.h"
#include "core_kind.h"
#include "cpu_measure.h"
#include "cpu_platform.h"
#include "lfence_serialise.h"
#include "machine.h"
#include "xsave_state.h"

struct cpu_session {
    bool active;
    unsigned cpu;
    struct cpu_platform cp;     /* N's forwarding seam, env.p after the begin */
    struct counter_env env;
    struct xsave_session xsave;
    struct lfence_session lfence;
    struct machine_info m;
    uint32_t apic_id;
    struct core_kind kind;      /* N's core kind (CPUID.1AH on a hybrid part), for -calibrate */
    struct cpu_measure measure; /* the one call per benchmark (cpu_measure.h) */
    uint64_t tsc_hz;            /* the boot's, for N's TSC waits */
    unsigned setup_calls;       /* calls to N the last begin made (1, or 3 after a missed file) */
};

/* The boot processor's session, for the lines that say where N differs, and the file it expects N to read. */
struct cpu_session_boot {
    uint64_t xcr0;              /* struct xsave_session's */
    enum lfence_state lfence;
    const char *ctr_rules_path; /* the boot processor's counter_env.ctr_rules_path ("" for none) */
    uint64_t tsc_hz;
};

/*
 * Begins processor `cpu`'s session of `base` (cs zeroed before its first
 * use; an active session is not ended here). Reports "processor: N (APIC
 * ID A) of C" and N's lines that differ from the boot processor's. On the
 * current processor it runs in place, on the forwarding seam.
 */
void cpu_session_begin(struct cpu_session *cs, const struct nb_platform *base, unsigned cpu,
                       const struct cpu_session_boot *boot, struct report *r);
/* Restores N's counters, DE_CFG and XSAVE state in one call; frees what the session kept. */
void cpu_session_end(struct cpu_session *cs, const struct nb_platform *base, struct report *r);

#endif
