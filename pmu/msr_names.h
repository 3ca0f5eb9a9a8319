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
#define MSR_IA32_TSC_AUX 0xC0000103u

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
