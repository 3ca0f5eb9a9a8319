/*
 * pmu_msrs.h — performance-monitoring MSRs and bit fields, by name.
 *
 * Intel: SDM vol. 3B ch. 20 "Performance Monitoring" (architectural PMU,
 * 20.2) and vol. 4 table 2-2. AMD: APM vol. 2 ch. 13.2 "Performance
 * counters" and the family 17h/19h PPRs. Summary in ../shared/PMU-FACTS.md.
 */
#ifndef PMU_MSRS_H
#define PMU_MSRS_H

#include <stdint.h>

/* ---- Intel architectural performance monitoring ---- */
#define MSR_IA32_PMC0 0xC1u             /* legacy alias: writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0 0x186u
#define MSR_IA32_PERF_CAPABILITIES 0x345u
#define MSR_IA32_FIXED_CTR0 0x309u      /* INST_RETIRED.ANY; +1 CPU_CLK_UNHALTED.THREAD, +2 REF_TSC */
#define MSR_IA32_FIXED_CTR3 0x30Cu      /* TOPDOWN.SLOTS (Ice Lake and later P-cores) */
/*
 * IA32_PERF_METRICS (SDM vol. 3B 20.3.9.3 "Performance Metrics", under
 * "Topdown Microarchitecture Analysis" support of Ice Lake
 * and later P-cores, IA32_PERF_CAPABILITIES[15]): byte i is the fraction
 * (of 0xFF) of the TOPDOWN.SLOTS counted by IA32_FIXED_CTR3 that went to
 * level-1 category i. Its values are derived from fixed counter 3, so both
 * start from zero together (Linux icl_set_topdown_event_period writes 0 to
 * FIXED_CTR3, then to PERF_METRICS).
 */
#define MSR_IA32_PERF_METRICS 0x329u
#define MSR_IA32_FIXED_CTR_CTRL 0x38Du
#define MSR_IA32_PERF_GLOBAL_STATUS 0x38Eu
#define MSR_IA32_PERF_GLOBAL_CTRL 0x38Fu
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x390u /* v2/v3; IA32_PERF_GLOBAL_STATUS_RESET from v4 */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET MSR_IA32_PERF_GLOBAL_OVF_CTRL
#define MSR_IA32_A_PMC0 0x4C1u          /* full-width alias, PERF_CAPABILITIES.FW_WRITE */
#define MSR_OFFCORE_RSP_0 0x1A6u        /* nanoBench .MSR_RSP0 */
#define MSR_OFFCORE_RSP_1 0x1A7u        /* nanoBench .MSR_RSP1 */
#define MSR_PEBS_LD_LAT_THRESHOLD 0x3F6u /* nanoBench .MSR_3F6H */
#define MSR_PEBS_FRONTEND 0x3F7u        /* nanoBench .MSR_PF */

/*
 * IA32_DEBUGCTL (SDM vol. 3B 18.4.1 / figure 18-3 "IA32_DEBUGCTL MSR"):
 * Freeze_PerfMon_On_PMI (bit 12) makes a PMI request stop the counters: up to
 * perfmon v3 it clears IA32_PERF_GLOBAL_CTRL's enable bits; from v4 (20.2.4,
 * the "streamlined" freeze) it sets IA32_PERF_GLOBAL_STATUS.CTR_FRZ instead,
 * counting needs CTR_FRZ clear, and a 1 written to bit 59 of
 * IA32_PERF_GLOBAL_STATUS_RESET clears it. -cycle_by_cycle (pmu_freeze.h).
 */
#define MSR_IA32_DEBUGCTL 0x1D9u
#define DEBUGCTL_FREEZE_LBRS_ON_PMI (1ull << 11)
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)

/* IA32_PERFEVTSELx (SDM vol. 3B figure 20-1). */
#define PERFEVTSEL_EVENT_MASK 0xFFull
#define PERFEVTSEL_UMASK_SHIFT 8
#define PERFEVTSEL_USR (1ull << 16)
#define PERFEVTSEL_OS (1ull << 17)
#define PERFEVTSEL_EDGE (1ull << 18)
#define PERFEVTSEL_PC (1ull << 19)
#define PERFEVTSEL_INT (1ull << 20)
#define PERFEVTSEL_ANY (1ull << 21)
#define PERFEVTSEL_EN (1ull << 22)
#define PERFEVTSEL_INV (1ull << 23)
#define PERFEVTSEL_CMASK_SHIFT 24

/* IA32_FIXED_CTR_CTRL: 4 bits per fixed counter i at bit 4i (SDM vol. 3B 20.2.2). */
#define FIXED_CTR_CTRL_OS 0x1ull
#define FIXED_CTR_CTRL_USR 0x2ull
#define FIXED_CTR_CTRL_ANY 0x4ull
#define FIXED_CTR_CTRL_PMI 0x8ull
#define FIXED_CTR_CTRL_FIELD(i, bits) ((uint64_t)(bits) << (4u * (i)))

/*
 * IA32_PERF_GLOBAL_STATUS (SDM vol. 3B 20.2.2, 20.2.4): bit i overflow of GP
 * counter i, bit 32+i of fixed counter i, and from v4 the LBR_Frz (58) and
 * CTR_Frz (59) freeze bits; 62 OvfBuf, 63 CondChgd. A 1 written to the same
 * bit of IA32_PERF_GLOBAL_OVF_CTRL / _STATUS_RESET clears it.
 */
#define GLOBAL_STATUS_CTR_FRZ (1ull << 59)
#define GLOBAL_STATUS_COND_CHGD (1ull << 63)

/* IA32_PERF_GLOBAL_CTRL: bit i enables GP counter i, bit 32+i fixed counter i. */
#define GLOBAL_CTRL_FIXED_SHIFT 32
/*
 * IA32_PERF_GLOBAL_CTRL bit 48 EN_PERF_METRICS: IA32_PERF_METRICS follows
 * fixed counter 3 (SDM vol. 3B 20.3.9.3; Linux GLOBAL_CTRL_EN_PERF_METRICS,
 * arch/x86/include/asm/perf_event.h). Bit 35 (32 + 3) enables FIXED_CTR3.
 */
#define GLOBAL_CTRL_EN_PERF_METRICS (1ull << 48)

/* Fixed counter 3 counts TOPDOWN.SLOTS (Intel event lists: event 00H umask 04H). */
#define FIXED_SLOTS 3u
/*
 * IA32_PERF_METRICS fields, one byte each (METRICS-FACTS 2b; Linux
 * INTEL_TD_METRIC_* pseudo events 0x8000-0x8700 and
 * icl_get_metrics_event_value; likwid TMA0-7). Level 1 (Ice Lake and
 * later): 7:0 Retiring, 15:8 Bad Speculation, 23:16 Frontend Bound, 31:24
 * Backend Bound. Level 2 (Golden Cove and later P-cores only; on Ice Lake
 * bits 63:32 are not these fields): 39:32 Heavy Operations, 47:40 Branch
 * Mispredicts, 55:48 Fetch Latency, 63:56 Memory Bound.
 */
#define PERF_METRICS_RETIRING 0u
#define PERF_METRICS_BAD_SPEC 1u
#define PERF_METRICS_FE_BOUND 2u
#define PERF_METRICS_BE_BOUND 3u
#define PERF_METRICS_L1_FIELDS 4u
#define PERF_METRICS_HEAVY_OPS 4u
#define PERF_METRICS_BR_MISPREDICT 5u
#define PERF_METRICS_FETCH_LAT 6u
#define PERF_METRICS_MEM_BOUND 7u
#define PERF_METRICS_L2_FIELDS 8u /* level 1 and level 2 */
#define PERF_METRICS_FIELD(value, i) (((value) >> (8u * (i))) & 0xFFu)
#define PERF_METRICS_FULL 0xFFu /* the sum of the fields: all slots */

/* IA32_PERF_CAPABILITIES.FW_WRITE (bit 13): IA32_A_PMCx exist. */
#define PERF_CAPABILITIES_FW_WRITE (1ull << 13)
/* IA32_PERF_CAPABILITIES.PERF_METRICS_AVAILABLE (bit 15): IA32_PERF_METRICS exists (SDM vol. 3B 20.3.9.3). */
#define PERF_CAPABILITIES_PERF_METRICS (1ull << 15)

/*
 * TSX force-abort (Intel's "Performance Monitoring Impact of Intel TSX"
 * erratum guidance for Skylake-era parts; Linux intel_set_tfa): where
 * CPUID.(7,0):EDX[13] is set, microcode uses PMC3 to keep RTM working unless
 * MSR_TSX_FORCE_ABORT.RTM_FORCE_ABORT makes every RTM transaction abort.
 */
#define MSR_TSX_FORCE_ABORT 0x10Fu
#define TSX_FORCE_ABORT_RTM (1ull << 0)
#define TFA_COUNTER 3u

/* RDPMC ECX bit 30 selects the fixed-function counters (SDM vol. 2B RDPMC). */
#define RDPMC_FIXED (1u << 30)
/* RDPMC ECX bit 29 returns IA32_PERF_METRICS (SDM vol. 2B RDPMC; Linux x86_pmu_rdpmc_index). */
#define RDPMC_METRICS (1u << 29)

/* ---- AMD (family 17h and later) ---- */
#define MSR_AMD_PERF_CTL_LEGACY0 0xC0010000u /* 4 counters, stride 1 */
#define MSR_AMD_PERF_CTR_LEGACY0 0xC0010004u
#define MSR_AMD_PERF_CTL0 0xC0010200u        /* PerfCtrExtCore: 6 counters, stride 2 */
#define MSR_AMD_PERF_CTR0 0xC0010201u
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS 0xC0000300u /* PerfMonV2 */
#define MSR_AMD_PERF_CNTR_GLOBAL_CTL 0xC0000301u    /* PerfMonV2: bit i enables counter i */
/* PerfMonV2: a 1 clears the same bit of PerfCntrGlobalStatus (read-only), APM vol. 2 13.2.2. */
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR 0xC0000302u

/* PERF_CTL bits (APM vol. 2, 13.2.1 "PerfEvtSeln"). */
#define AMD_PERF_CTL_EVENT_LO_MASK 0xFFull
#define AMD_PERF_CTL_UMASK_SHIFT 8
#define AMD_PERF_CTL_USR (1ull << 16)
#define AMD_PERF_CTL_OS (1ull << 17)
#define AMD_PERF_CTL_EDGE (1ull << 18)
#define AMD_PERF_CTL_INT (1ull << 20)
#define AMD_PERF_CTL_EN (1ull << 22)
#define AMD_PERF_CTL_INV (1ull << 23)
#define AMD_PERF_CTL_CMASK_SHIFT 24
#define AMD_PERF_CTL_EVENT_HI_SHIFT 32 /* event[11:8] at bits 35:32 */
#define AMD_PERF_CTL_HOST_ONLY (1ull << 41)
#define AMD_PERF_CTL_GUEST_ONLY (1ull << 40)

/*
 * Large Increment per Cycle events (AMD family 17h+ PPRs, "Large Increment
 * per Cycle Events", e.g. section 2.1.15.3 of PPR 56176 for family 17h model
 * 71h, as cited by Linux commit 5738891229a2; Linux amd/core.c AMD_MERGE_EVENT_ENABLE,
 * amd_is_pair_event_code): a counter adds at most 15 per cycle, so event
 * 003H (Retired SSE/AVX FLOPs, up to 64 per cycle) runs on an even counter
 * with the MergeEvent, event FFFH, enabled on the next (odd) counter, written
 * before the even counter's control. The PPR: "Software wanting to preload
 * a value to a merged counter pair writes the high-order 16-bit value to the
 * low-order 16 bits of the odd counter and then writes the low-order 48-bit
 * value to the even counter. Reading the even counter of the merged counter
 * pair returns the full 64-bit value."
 */
#define AMD_MERGE_EVENT 0xFFFu
#define AMD_PERF_CTL_MERGE_ENABLE ((0xFull << AMD_PERF_CTL_EVENT_HI_SHIFT) | 0xFFull | AMD_PERF_CTL_EN)
#define AMD_FLOPS_EVENT 0x003u
#define AMD_MERGE_MIN_FAMILY 0x17u
/*
 * PMCx02B, SMIs received (PPR for AMD family 17h and later, "LsSmiRx"; Linux
 * pmu-events amdzen1..5 ls_smi_rx, event 0x2b): AMD has no MSR_SMI_COUNT, so
 * the image counts SMIs on a counter a group leaves free.
 */
#define AMD_SMI_RX_EVENT 0x02Bu
#define AMD_SMI_RX_MIN_FAMILY 0x17u
#define AMD_MERGED_WIDTH 64

#define AMD_LEGACY_COUNTERS 4
#define AMD_EXT_CORE_COUNTERS 6

#endif
