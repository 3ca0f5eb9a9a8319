/*
 * lapic_regs.h — local APIC register offsets and bits the engine uses
 * (xAPIC offsets, SDM vol. 3A table 11-1; in x2APIC mode the platform maps
 * offset R to MSR 800H + R/16, table 11-6).
 */
#ifndef LAPIC_REGS_H
#define LAPIC_REGS_H

#define LAPIC_VERSION 0x30u
#define LAPIC_TPR 0x80u
#define LAPIC_EOI 0xB0u
#define LAPIC_SVR 0xF0u
#define LAPIC_LVT_CMCI 0x2F0u
#define LAPIC_LVT_TIMER 0x320u
#define LAPIC_LVT_THERMAL 0x330u
#define LAPIC_LVT_PERFMON 0x340u
#define LAPIC_LVT_LINT0 0x350u
#define LAPIC_LVT_LINT1 0x360u
#define LAPIC_LVT_ERROR 0x370u
#define LAPIC_TIMER_INITIAL 0x380u
#define LAPIC_TIMER_CURRENT 0x390u
#define LAPIC_TIMER_DIVIDE 0x3E0u

/* Version register bits 23:16: the number of LVT entries minus one (SDM vol. 3A 11.4.8). */
#define LAPIC_VERSION_MAX_LVT(v) (((v) >> 16) & 0xFFu)
/*
 * Which entries a Max LVT Entry value implies (SDM vol. 3A 11.4.8, as Linux's
 * lapic_get_maxlvt users read it): 4 adds the performance-counter entry (P6),
 * 5 the thermal sensor (Pentium 4), 6 CMCI (Nehalem and later).
 */
#define LAPIC_MAX_LVT_PERFMON 4u
#define LAPIC_MAX_LVT_THERMAL 5u
#define LAPIC_MAX_LVT_CMCI 6u

/* LVT bits (SDM vol. 3A figure 11-8). */
#define LVT_VECTOR_MASK 0xFFu
#define LVT_MASKED (1u << 16)
/* Timer mode, bits 18:17 (SDM vol. 3A table 11-2). */
#define LVT_TIMER_MODE_MASK (3u << 17)
#define LVT_TIMER_ONE_SHOT (0u << 17)
#define LVT_TIMER_PERIODIC (1u << 17)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)

/* CPUID.01H:ECX[24]: the local APIC timer has TSC-deadline mode (SDM vol. 3A 11.5.4.1). */
#define CPUID_01_ECX_TSC_DEADLINE (1u << 24)

#endif
