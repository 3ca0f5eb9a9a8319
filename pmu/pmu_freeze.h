/*
 * pmu_freeze.h — the counter side of -cycle_by_cycle: Intel's
 * Freeze_PerfMon_On_PMI (pmu_msrs.h MSR_IA32_DEBUGCTL).
 *
 * A counter preset `n` below its overflow with its PMI bit set overflows
 * after n + 1 events; the PMI request that overflow raises freezes every
 * counter (SDM vol. 3B 18.4.7 "Freezing LBR and Performance Counters on PMI";
 * 20.2.4 for perfmon v4's CTR_FRZ). The request freezes the counters whether
 * or not the interrupt is delivered: the benchmark runs with interrupts
 * disabled (or, under the APIC-timer watchdog, with every other source
 * masked), and the image keeps the local APIC's performance-counter LVT
 * entry masked, so no interrupt arrives then or later either. The frozen counters are then
 * read at leisure with RDMSR. Presetting the core-cycle counter (fixed
 * counter 1) to overflow after cycle c + 1 reads every event as it stood at
 * the end of cycle c.
 *
 * One measurement is nanoBench's run_experiment_with_freeze_on_PMI: counters
 * globally off, every counter cleared, the overflow and freeze bits reset,
 * the preset written; then the measured code enables the counters itself
 * (IA32_PERF_GLOBAL_CTRL = pmu_freeze_global_enable) right before the
 * benchmark and disables them after it.
 */
#ifndef PMU_FREEZE_H
#define PMU_FREEZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"
#include "pmu.h"
#include "pmu_msrs.h"

/* The general-purpose counters one measurement uses (nanoBench: 4; the higher ones miscount some events). */
#define PMU_FREEZE_GP 4u
/* Which counter's overflow freezes the others: fixed counter i, or general-purpose counter i. */
#define PMU_FREEZE_PMI_FIXED(i) (i)
#define PMU_FREEZE_PMI_GP(i) (8u + (i))
/*
 * The events -cycle_by_cycle adds (nanoBench's IDQ.MS_UOPS_internal and
 * INST_RETIRED_internal, kernelNanoBench.py) and searches with (INST_RETIRED,
 * IDQ.MITE_UOPS, its kernel module), counted in ring 0 like the fixed
 * counters in this mode: event | umask << 8 | OS | EN.
 */
#define PMU_FREEZE_EVTSEL(ev, umask) \
    ((uint64_t)(ev) | (uint64_t)(umask) << PERFEVTSEL_UMASK_SHIFT | PERFEVTSEL_OS | PERFEVTSEL_EN)
#define PMU_FREEZE_IDQ_MS_UOPS PMU_FREEZE_EVTSEL(0x79, 0x30)
#define PMU_FREEZE_INST_RETIRED PMU_FREEZE_EVTSEL(0xC0, 0x00)
#define PMU_FREEZE_IDQ_MITE_UOPS PMU_FREEZE_EVTSEL(0x79, 0x04)
#define PMU_FREEZE_PMI_NONE 0xFFu /* no PMI: every counter counts from 0 to the end */
#define PMU_FREEZE_FIXED_CYCLES 1u  /* IA32_FIXED_CTR1: CPU_CLK_UNHALTED.THREAD */
#define PMU_FREEZE_FIXED_RETIRED 0u /* IA32_FIXED_CTR0: INST_RETIRED.ANY */

/*
 * NULL when this PMU can measure cycle by cycle, otherwise why not (one
 * sentence, for "error: -cycle_by_cycle: ..."). `none_why`: why there is no
 * usable PMU at all (NULL when there is one).
 */
const char *pmu_freeze_unsupported(const struct pmu_desc *d, const char *none_why, char *buf, size_t cap);

/*
 * The local APIC's performance-counter LVT entry (SDM vol. 3A 11.5.1 "Local
 * Vector Table", register 340H) and its mask bit (16): masked for the
 * session, so the PMI requests that freeze the counters never become
 * interrupts, also after the code has run with interrupts masked.
 */
#define LAPIC_LVT_PERF_COUNTER 0x340u
#define LAPIC_LVT_MASKED (1u << 16)

struct pmu_freeze_state {
    uint64_t debugctl;                /* as found, put back by pmu_freeze_end */
    bool lvt_saved;                   /* lvt_pc holds the entry found (the platform has a local APIC) */
    uint32_t lvt_pc;
    uint64_t evtsel[PMU_FREEZE_GP];   /* the events selected on PMC0-3 (PMI bit clear) */
};

/*
 * Masks the performance-counter LVT entry, sets Freeze_PerfMon_On_PMI and
 * the fixed counters 0-2 to count in ring 0 (nanoBench counts only the
 * kernel's ring in this mode). NB_EFAULT when IA32_DEBUGCTL cannot be
 * written.
 */
int pmu_freeze_begin(const struct nb_platform *p, const struct pmu_desc *d, struct pmu_freeze_state *s);
/* Selects up to PMU_FREEZE_GP events (PERFEVTSEL values) on PMC0.. (the rest off). */
void pmu_freeze_select(const struct nb_platform *p, struct pmu_freeze_state *s, const uint64_t *evtsel, unsigned n);
/*
 * One measurement's preparation: counters off, cleared, status reset, and
 * `pmi` (PMU_FREEZE_PMI_*) preset to overflow after `events` + 1 events,
 * its PMI bit set (and every other counter's PMI bit clear).
 */
void pmu_freeze_arm(const struct nb_platform *p, const struct pmu_desc *d, const struct pmu_freeze_state *s,
                    unsigned pmi, uint64_t events);
/* IA32_PERF_GLOBAL_CTRL while the code runs: PMC0-3 and fixed counters 0-2 (nanoBench: EDX 7, EAX 0xF). */
uint64_t pmu_freeze_global_enable(const struct pmu_desc *d);
/* The frozen counters: gp[0..3] (PMC0-3), fixed[0..2]. */
void pmu_freeze_read(const struct nb_platform *p, uint64_t gp[PMU_FREEZE_GP], uint64_t fixed[3]);
/* Counters off, PMI bits and selections cleared, status reset, IA32_DEBUGCTL and the LVT entry as found. */
void pmu_freeze_end(const struct nb_platform *p, const struct pmu_freeze_state *s);

#endif
