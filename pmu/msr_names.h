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

#endif
