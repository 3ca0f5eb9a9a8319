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

struct pmu_ctr_rules;

#define PMU_MAX_GP 16
#define PMU_MAX_FIXED 4
/* The fixed counters -fixed_counters reads: 0-2 (Intel INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD, .REF_TSC). */
#define PMU_FIXED_ARCH 0x7u

struct pmu_desc {
    enum cpu_vendor vendor;
    uint32_t family, model;
    uint32_t stepping;           /* CPUID.1:EAX[3:0] (machine_info), for cpu_map.txt's stepping= */
    unsigned version;            /* Intel architectural perfmon version; 0 on AMD */
    unsigned n_gp, gp_width;     /* general-purpose counters: how many, and their width */
    unsigned n_fixed, fixed_width;
    /*
     * Which counters exist (bit i = counter i). A bitmap may have holes
     * (CPUID.23H, perfmon v5 fixed counters), so code asks pmu_gp_mask() /
     * pmu_fixed_mask(); 0 means "the lowest n_gp / n_fixed" (descriptions
     * built by hand in tests).
     */
    uint32_t gp_mask, fixed_mask;
    /* Architectural events CPUID.0AH:EBX marks unavailable (bit i = event i of SDM table 20-1). */
    uint32_t arch_events_missing;
    bool anythread_deprecated;   /* CPUID.0AH:EDX[15] (perfmon v5+): PERFEVTSEL.ANY is ignored */
    bool full_width_writes;      /* Intel IA32_A_PMCx */
    bool perf_metrics;           /* IA32_PERF_CAPABILITIES[15]: IA32_PERF_METRICS exists */
    /*
     * IA32_PERF_METRICS also has the level-2 bytes 4-7 (METRICS-FACTS 2b:
     * Golden Cove and later P-cores, not Ice Lake/Tiger Lake). No CPUID or
     * capability bit says so: known models only (pmu_models.c), as Linux
     * sets num_topdown_events per model.
     */
    bool perf_metrics_l2;
    bool counters_from_leaf_23h; /* the bitmaps came from CPUID.23H subleaf 1 */
    bool hybrid_p_core_counters; /* P-core counters added to CPUID.0AH's common subset (Linux) */
    unsigned core_type;          /* Intel hybrid core type (CPUID.1AH), 0 if not hybrid */
    uint32_t native_model;       /* CPUID.1AH:EAX[23:0] native model ID, 0 if not hybrid */
    bool amd_ext_core;           /* PerfCtrExtCore: counters at C001_0200h, stride 2 */
    bool amd_perfmon_v2;         /* PerfCntrGlobalCtl exists */
    bool tsx_force_abort;        /* Intel CPUID.(7,0):EDX[13]: microcode may own PMC3 (pmu_msrs.h) */
    /*
     * General-purpose counters that exist but must not be scheduled: PMC3
     * when the microcode keeps it for TSX because RTM_FORCE_ABORT cannot be
     * set (pmu_msrs.h TFA_COUNTER).
     */
    uint32_t gp_withheld;
    /*
     * The vendor's counter restrictions of this core (pmu_ctr_rules.h), applied
     * to every event the config parser reads; NULL: none known (a model without
     * a cpu_map.txt line, or no ctr_<NAME>.txt on the image).
     */
    const struct pmu_ctr_rules *ctr_rules;
};

/* One MSR write the processor rejected (#GP). */
struct pmu_write_fault {
    uint32_t msr;
    uint64_t value;
};

static inline uint32_t pmu_low_bits(unsigned n)
{
    return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
}

/* The general-purpose counters that exist (bit i = counter i). */
static inline uint32_t pmu_gp_mask(const struct pmu_desc *d)
{
    return d->gp_mask ? d->gp_mask : pmu_low_bits(d->n_gp);
}

/* The fixed counters that exist (bit i = IA32_FIXED_CTRi). */
static inline uint32_t pmu_fixed_mask(const struct pmu_desc *d)
{
    return d->fixed_mask ? d->fixed_mask : pmu_low_bits(d->n_fixed);
}

/*
 * One line describing the counters, as the fingerprint prints it after
 * "pmu: " ("intel, 4 general-purpose counters (48 bits), 3 fixed"), with the
 * bitmaps when they are not simply the lowest counters or come from CPUID.23H
 * or a hybrid P-core, and "AnyThread deprecated".
 */
void pmu_desc_summary(const struct pmu_desc *d, char *out, size_t cap);
/*
 * What this CPU lacks that the image would otherwise use, one line each
 * (without "pmu: "): fixed counters 0-2 for -fixed_counters, architectural
 * events for the built-in fallback config. Returns the number of lines
 * written to lines[] (room for 2).
 */
size_t pmu_desc_missing(const struct pmu_desc *d, char lines[2][160]);

struct pmu_ops {
    const char *name;
    uint32_t (*ctl_msr)(const struct pmu_desc *d, unsigned counter);
    uint32_t (*ctr_msr)(const struct pmu_desc *d, unsigned counter);
    /* The control-register value that counts `ev` in all rings, enabled. */
    uint64_t (*encode)(const struct pmu_event *ev);
    /*
     * Global enable register (when has_global) and the value that enables
     * `gp_mask`, the fixed counters of `fixed` (bit i = fixed counter i; only
     * those that exist) and, with `perf_metrics`, IA32_PERF_METRICS.
     */
    bool (*has_global)(const struct pmu_desc *d);
    uint32_t global_ctrl_msr;
    uint64_t (*global_enable)(const struct pmu_desc *d, uint32_t gp_mask, uint32_t fixed,
                              bool perf_metrics);
    /* Fixed-function counters (Intel) or their AMD stand-ins, read for -fixed_counters. */
    size_t (*fixed_reads)(const struct pmu_desc *d, struct counter_read *out);
    /*
     * Writes that stop the fixed counters and start those of `fixed` (bit i
     * = fixed counter i, from 0; none on AMD), each from 0: fixed counter 3
     * together with IA32_PERF_METRICS when the CPU has it. Returns NB_OK, or
     * NB_EFAULT with the rejected write in *fault; the fixed counters are
     * then stopped.
     */
    int (*program_fixed)(const struct nb_platform *p, const struct pmu_desc *d, uint32_t fixed,
                         struct pmu_write_fault *fault);
    /* Overflow/freeze status (when has_global) and the MSR whose 1 bits clear it. */
    uint32_t global_status_msr, global_status_reset_msr;
};

/* The counters the scheduler may use: those that exist less the withheld ones. */
uint32_t pmu_sched_mask(const struct pmu_desc *d);

/* Whether the TSX force-abort dance is needed for PMC3 (pmu_msrs.h). */
enum pmu_tfa {
    PMU_TFA_NONE = 0,         /* no MSR_TSX_FORCE_ABORT (AMD, other Intel parts) */
    PMU_TFA_NEEDED,           /* CPUID.(7,0):EDX[13] and not [11]: microcode may own PMC3 */
    PMU_TFA_RTM_ALWAYS_ABORT, /* both: RTM always aborts, PMC3 is free (Linux deploys nothing) */
};
enum pmu_tfa pmu_intel_tsx_force_abort(const struct nb_platform *p, const struct machine_info *m);

extern const struct pmu_ops pmu_intel_ops;
/* nanoBench's names of Intel fixed counters 0-2, the ones -fixed_counters reads. */
extern const char *const pmu_intel_fixed_names[3];
extern const struct pmu_ops pmu_amd_ops;

/* The ops for a vendor, or NULL. */
const struct pmu_ops *pmu_ops_for(enum cpu_vendor vendor);

/*
 * Reads CPUID (and IA32_PERF_CAPABILITIES) into *d. Returns true when the
 * CPUID description promises counters; otherwise writes the reason.
 */
bool pmu_detect(const struct nb_platform *p, const struct machine_info *m, struct pmu_desc *d,
                char *why, size_t why_cap);

/*
 * What the probe programs around its loop: counter `ctr_msr` zeroed, its
 * control `ctl_msr` set to `ctl_value` (instructions retired, both rings),
 * then, where there is one, the global control `global_msr` set to
 * `global_value`; after the loop the global control and the counter's
 * control are cleared (in that order) and the counter read.
 */
struct pmu_probe_sequence {
    uint32_t ctl_msr, ctr_msr, global_msr; /* global_msr 0: none */
    uint64_t ctl_value, global_value;
};

/* A piece of code with a known number of retired instructions, run by the probe. */
struct pmu_probe_loop {
    /*
     * Ring 0: the whole sequence in one procedure on the PMU's processor with
     * interrupts off (firmware code, timer interrupts and AP idle loops then
     * never run between enabling the counter and reading it); writes the
     * number of retired instructions the loop added, false if it could not
     * run. NULL: pmu_probe programs the counter through the platform's MSR
     * calls around `run`.
     */
    bool (*count)(void *arg, const struct pmu_probe_sequence *s, uint64_t *count);
    void (*run)(void *arg);
    void *arg;
    uint64_t min_instructions, max_instructions;
};

/*
 * Probe before trust (like Linux's check_hw_exists): the lowest counter
 * that exists (0 unless the bitmap has a hole there) must keep a written
 * value and count the retired instructions of a known loop within bounds.
 * Leaves that counter and the global control as it found them.
 */
bool pmu_probe(const struct nb_platform *p, const struct pmu_desc *d,
               const struct pmu_probe_loop *loop, char *why, size_t why_cap);

#endif
