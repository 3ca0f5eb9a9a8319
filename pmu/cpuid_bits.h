/*
 * cpuid_bits.h — CPUID leaves and feature bits the image reads
 * (Intel SDM vol. 2A "CPUID"; AMD APM vol. 3 appendix E).
 */
#ifndef CPUID_BITS_H
#define CPUID_BITS_H

#define CPUID_LEAF_VENDOR 0x0u
#define CPUID_LEAF_FEATURES 0x1u
#define CPUID_LEAF_STRUCTURED_EXT 0x7u
#define CPUID_LEAF_PERFMON 0xAu
#define CPUID_LEAF_PERFMON_EXT 0x23u
#define CPUID_LEAF_XSAVE 0xDu
#define CPUID_LEAF_TSC_CRYSTAL 0x15u
#define CPUID_LEAF_FREQUENCY 0x16u
#define CPUID_LEAF_EXT_MAX 0x80000000u
#define CPUID_LEAF_EXT_FEATURES 0x80000001u
#define CPUID_LEAF_BRAND_0 0x80000002u
#define CPUID_LEAF_POWER_MGMT 0x80000007u
#define CPUID_LEAF_HYBRID 0x1Au
#define CPUID_LEAF_AMD_PERFMON 0x80000022u

#define CPUID_01_EDX_TSC (1u << 4)
#define CPUID_80000001_EDX_RDTSCP (1u << 27)
#define CPUID_80000007_EDX_INVARIANT_TSC (1u << 8)
/* CPUID.(7,0):EDX[13] TSX_FORCE_ABORT: MSR_TSX_FORCE_ABORT (10FH) exists. */
#define CPUID_07_EDX_TSX_FORCE_ABORT (1u << 13)
/* CPUID.(7,0):EDX[11] RTM_ALWAYS_ABORT: microcode aborts every RTM transaction, PMC3 is free. */
#define CPUID_07_EDX_RTM_ALWAYS_ABORT (1u << 11)
/* CPUID.01H:ECX[15] PDCM: IA32_PERF_CAPABILITIES exists. */
#define CPUID_01_ECX_PDCM (1u << 15)
#define CPUID_01_ECX_XSAVE (1u << 26)  /* XSAVE/XRSTOR, XSETBV/XGETBV, XCR0 */
#define CPUID_01_ECX_HYPERVISOR (1u << 31) /* running under a hypervisor (0 on bare metal) */
#define CPUID_LEAF_HYPERVISOR 0x40000000u  /* EBX:ECX:EDX = the hypervisor's signature */
#define CPUID_01_EDX_FXSR (1u << 24)   /* FXSAVE/FXRSTOR, CR4.OSFXSR */
/* CPUID.(EAX=0DH,ECX=1):EAX[4]: IA32_XFD and IA32_XFD_ERR exist (SDM vol. 1 13.14). */
#define CPUID_0D_1_EAX_XFD (1u << 4)
/* CPUID.8000_0001H:ECX[23] PerfCtrExtCore: six counters at C001_0200h (APM vol. 3 E.4.2). */
#define CPUID_80000001_ECX_PERFCTR_EXT_CORE (1u << 23)
/* CPUID.8000_0022H:EAX[0] PerfMonV2; EBX[3:0] number of core counters. */
#define CPUID_80000022_EAX_PERFMON_V2 (1u << 0)
/* CPUID.0AH (SDM vol. 3B 20.2.1): EAX version / #GP / GP width; EDX #fixed / fixed width. */
#define PERFMON_VERSION(eax) ((eax) & 0xFFu)
#define PERFMON_N_GP(eax) (((eax) >> 8) & 0xFFu)
#define PERFMON_GP_WIDTH(eax) (((eax) >> 16) & 0xFFu)
#define PERFMON_N_FIXED(edx) ((edx) & 0x1Fu)
#define PERFMON_FIXED_WIDTH(edx) (((edx) >> 5) & 0xFFu)
/* CPUID.0AH:EAX[31:24]: length of the EBX bit vector of unavailable architectural events. */
#define PERFMON_EBX_LENGTH(eax) (((eax) >> 24) & 0xFFu)
/* CPUID.0AH:EDX[15] (perfmon v5, SDM vol. 2A CPUID leaf 0AH): AnyThread deprecation. */
#define PERFMON_EDX_ANYTHREAD_DEPRECATED (1u << 15)
/*
 * CPUID.(EAX=07H,ECX=01H):EAX[8]: CPUID leaf 23H (architectural performance
 * monitoring extended leaf) exists (SDM vol. 2A; Linux X86_FEATURE_ARCH_PERFMON_EXT).
 */
#define CPUID_07_1_EAX_ARCH_PERFMON_EXT (1u << 8)
/*
 * CPUID.23H subleaf 0 EAX: bitmap of valid subleaves; bit 1 = subleaf 1, whose
 * EAX is the general-purpose counter bitmap and EBX the fixed counter bitmap
 * (SDM vol. 2A CPUID leaf 23H; Linux update_pmu_cap(), fixed in 2025 to test
 * bit 1, not bit 0).
 */
#define PERFMON_EXT_SUBLEAF_COUNTERS 1u
#define PERFMON_EXT_EAX_COUNTERS_VALID (1u << PERFMON_EXT_SUBLEAF_COUNTERS)
/* CPUID.(EAX=07H,ECX=0):EDX[15] Hybrid: the package has more than one core type (SDM vol. 2A). */
#define CPUID_07_EDX_HYBRID (1u << 15)
/* CPUID.1AH:EAX[31:24] core type on hybrid parts. */
#define HYBRID_CORE_TYPE(eax) (((eax) >> 24) & 0xFFu)
/*
 * CPUID.1AH:EAX[23:0] native model ID of the core (SDM vol. 2A, CPUID leaf 1AH,
 * "Native Model ID Enumeration Leaf"): tells apart two core kinds of one core type,
 * e.g. the low-power Crestmont E-cores (000002H) of Arrow Lake-H (6-C5) from its
 * Skymont E-cores (000003H), both type 20H (Intel perfmon mapfile.csv).
 */
#define HYBRID_NATIVE_MODEL(eax) ((eax) & 0xFFFFFFu)
#define HYBRID_CORE_ATOM 0x20u
#define HYBRID_CORE_CORE 0x40u

enum cpuid_reg { CPUID_EAX = 0, CPUID_EBX, CPUID_ECX, CPUID_EDX };

#endif
