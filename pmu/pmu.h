/*
 * pmu.h — what the performance-monitoring unit of this processor offers, and
 * how to program one counter group on it.
 *
 * One file per vendor fills `struct pmu_ops` (pmu_intel.c, pmu_amd.c), picked
 * by the CPUID vendor, like Linux's `struct x86_pmu`. All MSR traffic goes
 * through the platform seam, so host tests and `-plan` see every write.
 */
#ifndef PMU_H
#define PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counter_read.h"
#include "machine.h"
#include "nb_platform.h"
#include "pmu_event.h"

#define PMU_MAX_GP 16
#define PMU_MAX_FIXED 4

struct pmu_desc {
    enum cpu_vendor vendor;
    uint32_t family, model;
    unsigned version;            /* Intel architectural perfmon version; 0 on AMD */
    unsigned n_gp, gp_width;     /* general-purpose counters */
    unsigned n_fixed, fixed_width;
    bool full_width_writes;      /* Intel IA32_A_PMCx */
    unsigned core_type;          /* Intel hybrid core type (CPUID.1AH), 0 if not hybrid */
    bool amd_ext_core;           /* PerfCtrExtCore: counters at C001_0200h, stride 2 */
    bool amd_perfmon_v2;         /* PerfCntrGlobalCtl exists */
    bool tsx_force_abort;        /* Intel CPUID.(7,0):EDX[13]: microcode may own PMC3 (pmu_msrs.h) */
    /*
     * General-purpose counters the scheduler may use: n_gp, or TFA_COUNTER
     * when PMC3 stays with the microcode because RTM_FORCE_ABORT cannot be
     * set (0 means n_gp). A count, not a mask: on parts with 8 counters per
     * core (HT off) this also gives up PMC4-7.
     */
    unsigned n_gp_sched;
};

/* One MSR write the processor rejected (#GP). */
struct pmu_write_fault {
    uint32_t msr;
    uint64_t value;
};

struct pmu_ops {
    const char *name;
    uint32_t (*ctl_msr)(const struct pmu_desc *d, unsigned counter);
    uint32_t (*ctr_msr)(const struct pmu_desc *d, unsigned counter);
    /* The control-register value that counts `ev` in all rings, enabled. */
    uint64_t (*encode)(const struct pmu_event *ev);
    /* Global enable register (when has_global) and the value that enables `gp_mask` (+ fixed). */
    bool (*has_global)(const struct pmu_desc *d);
    uint32_t global_ctrl_msr;
    uint64_t (*global_enable)(const struct pmu_desc *d, uint32_t gp_mask, bool fixed);
    /* Fixed-function counters (Intel) or their AMD stand-ins, read for -fixed_counters. */
    size_t (*fixed_reads)(const struct pmu_desc *d, struct counter_read *out);
    /*
     * Writes that start (on) or stop the fixed counters (none on AMD).
     * Returns NB_OK, or NB_EFAULT with the rejected write in *fault; the
     * fixed counters are then stopped.
     */
    int (*program_fixed)(const struct nb_platform *p, const struct pmu_desc *d, bool on,
                         struct pmu_write_fault *fault);
    /* Overflow/freeze status (when has_global) and the MSR whose 1 bits clear it. */
    uint32_t global_status_msr, global_status_reset_msr;
};

/* The counters the scheduler may use (pmu_desc.n_gp_sched). */
unsigned pmu_sched_counters(const struct pmu_desc *d);

/* Whether the TSX force-abort dance is needed for PMC3 (pmu_msrs.h). */
enum pmu_tfa {
    PMU_TFA_NONE = 0,         /* no MSR_TSX_FORCE_ABORT (AMD, other Intel parts) */
    PMU_TFA_NEEDED,           /* CPUID.(7,0):EDX[13] and not [11]: microcode may own PMC3 */
    PMU_TFA_RTM_ALWAYS_ABORT, /* both: RTM always aborts, PMC3 is free (Linux deploys nothing) */
};
enum pmu_tfa pmu_intel_tsx_force_abort(const struct nb_platform *p, const struct machine_info *m);

extern const struct pmu_ops pmu_intel_ops;
extern const struct pmu_ops pmu_amd_ops;

/* The ops for a vendor, or NULL. */
const struct pmu_ops *pmu_ops_for(enum cpu_vendor vendor);

/*
 * Reads CPUID (and IA32_PERF_CAPABILITIES) into *d. Returns true when the
 * CPUID description promises counters; otherwise writes the reason.
 */
bool pmu_detect(const struct nb_platform *p, const struct machine_info *m, struct pmu_desc *d,
                char *why, size_t why_cap);

/* A piece of code with a known number of retired instructions, run by the probe. */
struct pmu_probe_loop {
    void (*run)(void *arg);
    void *arg;
    uint64_t min_instructions, max_instructions;
};

/*
 * Probe before trust (like Linux's check_hw_exists): counter 0 must keep a
 * written value and count the retired instructions of a known loop within
 * bounds. Leaves counter 0 and the global control as it found them.
 */
bool pmu_probe(const struct nb_platform *p, const struct pmu_desc *d,
               const struct pmu_probe_loop *loop, char *why, size_t why_cap);

#endif
