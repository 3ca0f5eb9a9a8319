/*
 * msr_names.h — architectural MSR addresses and bits used by the image
 * (Intel SDM vol. 4 table 2-2; AMD APM vol. 2 appendix A). Code never uses a
 * bare MSR number.
 */
#ifndef MSR_NAMES_H
#define MSR_NAMES_H

#define MSR_IA32_TIME_STAMP_COUNTER 0x10u
#define MSR_SMI_COUNT 0x34u
/* Microcode revision in EDX after writing 0 and executing CPUID(1) (SDM vol. 3A 10.11.7.1). */
#define MSR_IA32_BIOS_SIGN_ID 0x8Bu
#define MSR_IA32_MPERF 0xE7u
#define MSR_IA32_APERF 0xE8u
/* The local APIC timer's deadline in TSC-deadline mode; 0 disarms it (SDM vol. 3A 11.5.4.1). */
#define MSR_IA32_TSC_DEADLINE 0x6E0u
#define MSR_IA32_TSC_AUX 0xC0000103u
/* The bases of the FS and GS segments in 64-bit mode (SDM vol. 4 table 2-2; vol. 3A 3.4.4). */
#define MSR_IA32_FS_BASE 0xC0000100u
#define MSR_IA32_GS_BASE 0xC0000101u

/*
 * Frequency (power.h, freq_pin.h). IA32_MISC_ENABLE bit 38: Turbo Mode Disable
 * (SDM vol. 4 table 2-2). MSR_PLATFORM_INFO bits 15:8: Maximum Non-Turbo Ratio
 * (SDM vol. 4, the Nehalem and later tables). IA32_PERF_CTL bits 15:0: target
 * performance state, the ratio in 15:8 on Core processors (SDM vol. 3B 15.3.2).
 */
#define MSR_IA32_MISC_ENABLE 0x1A0u
#define MISC_ENABLE_TURBO_DISABLE (1ull << 38)
#define MSR_PLATFORM_INFO 0xCEu
#define PLATFORM_INFO_MAX_NON_TURBO_SHIFT 8
#define MSR_IA32_PERF_CTL 0x199u
#define PERF_CTL_RATIO_SHIFT 8
#define PERF_CTL_RATIO_MASK (0xFFull << PERF_CTL_RATIO_SHIFT)
/*
 * HWP (SDM vol. 3B 15.4): IA32_PM_ENABLE bit 0 HWP enabled (15.4.2);
 * IA32_HWP_CAPABILITIES 7:0 highest, 15:8 guaranteed, 23:16 most efficient,
 * 31:24 lowest performance (15.4.3); IA32_HWP_REQUEST 7:0 minimum, 15:8
 * maximum, 23:16 desired performance, 31:24 energy/performance preference
 * (15.4.4).
 */
#define MSR_IA32_PM_ENABLE 0x770u
#define PM_ENABLE_HWP (1ull << 0)
#define MSR_IA32_HWP_CAPABILITIES 0x771u
#define HWP_CAP_GUARANTEED_SHIFT 8
#define MSR_IA32_HWP_REQUEST 0x774u
#define HWP_REQ_MIN_SHIFT 0
#define HWP_REQ_MAX_SHIFT 8
#define HWP_REQ_DESIRED_SHIFT 16
#define HWP_REQ_PERF_MASK 0xFFFFFFull /* minimum, maximum and desired */
/*
 * AMD: HWCR bit 25 CpbDis, boost disabled (APM vol. 2 17.2 "Core Performance
 * Boost"; PPR MSRC001_0015); PStateCtl C001_0062 bits 2:0 PstateCmd, the
 * P-state requested (APM vol. 2 17.1 "Hardware P-State Control"), P0 the
 * highest non-boost one.
 */
#define MSR_AMD_HWCR 0xC0010015u
#define HWCR_CPB_DISABLE (1ull << 25)
#define MSR_AMD_PSTATE_CTL 0xC0010062u
#define AMD_PSTATE_CMD_MASK 0x7ull

/*
 * Counters -msr_config reads that are narrower than 64 bits (pmu_msr_config.h).
 * RAPL energy status, Total Energy Consumed in bits 31:0 (SDM vol. 3B 15.10.3
 * "Package RAPL Domain", 15.10.4-5; vol. 4 MSR tables; Linux rapl.c
 * RAPL_CNTR_WIDTH 32).
 */
#define MSR_PKG_ENERGY_STATUS 0x611u
#define MSR_DRAM_ENERGY_STATUS 0x619u
#define MSR_PP0_ENERGY_STATUS 0x639u
#define MSR_PP1_ENERGY_STATUS 0x641u
#define MSR_PLATFORM_ENERGY_STATUS 0x64Du
#define RAPL_ENERGY_BITS 32u
/* AMD CORE_ENERGY_STAT / PKG_ENERGY_STAT, TotalEnergyConsumed bits 31:0 (PPR for family 17h+). */
#define MSR_AMD_CORE_ENERGY_STAT 0xC001029Au
#define MSR_AMD_PKG_ENERGY_STAT 0xC001029Bu
/*
 * Client uncore, Sandy Bridge to Comet Lake (SDM vol. 3B "Uncore Performance
 * Monitoring" of the 2nd-10th generation Core processors; Linux uncore_snb.c
 * snb_uncore_cbox/arb perf_ctr_bits 44, fixed_ctr_bits 48): CBo n counters
 * 706H/707H + 10H*n (up to 4 boxes here), ARB counters 3B0H/3B1H, the uncore
 * clock 395H.
 */
#define MSR_UNC_CBO_0_PERFCTR0 0x706u
#define MSR_UNC_CBO_STRIDE 0x10u
#define MSR_UNC_CBO_BOXES 4u
#define MSR_UNC_ARB_PERFCTR0 0x3B0u
#define MSR_UNC_PERF_FIXED_CTR 0x395u
#define UNC_CTR_BITS 44u
#define UNC_FIXED_CTR_BITS 48u
/* AMD L3 counters ChL3Pmc C001_0231H + 2n, n < 6, 48 bits (PPR; Linux amd/uncore.c COUNTER_SHIFT 16). */
#define MSR_AMD_L3_PERF_CTR0 0xC0010231u
#define AMD_L3_COUNTERS 6u
#define AMD_L3_CTR_BITS 48u

#endif
