/*
 * cpuid_bits.h — CPUID leaves and feature bits the image reads
 * (Intel SDM vol. 2A "CPUID"; AMD APM vol. 3 appendix E).
 */
#ifndef CPUID_BITS_H
#define CPUID_BITS_H

#define CPUID_LEAF_VENDOR 0x0u
#define CPUID_LEAF_FEATURES 0x1u
#define CPUID_LEAF_PERFMON 0xAu
#define CPUID_LEAF_TSC_CRYSTAL 0x15u
#define CPUID_LEAF_FREQUENCY 0x16u
#define CPUID_LEAF_EXT_MAX 0x80000000u
#define CPUID_LEAF_EXT_FEATURES 0x80000001u
#define CPUID_LEAF_BRAND_0 0x80000002u
#define CPUID_LEAF_POWER_MGMT 0x80000007u

#define CPUID_01_EDX_TSC (1u << 4)
#define CPUID_80000001_EDX_RDTSCP (1u << 27)
#define CPUID_80000007_EDX_INVARIANT_TSC (1u << 8)

enum cpuid_reg { CPUID_EAX = 0, CPUID_EBX, CPUID_ECX, CPUID_EDX };

#endif
