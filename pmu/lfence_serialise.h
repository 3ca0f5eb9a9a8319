/*
 * lfence_serialise.h — makes LFENCE dispatch-serialising on AMD for the
 * session, as Linux does (arch/x86/kernel/cpu/amd.c): the counter reads
 * around the benchmark are LFENCE; RDTSC/RDPMC; LFENCE, which only keep the
 * measured code inside the fences when LFENCE waits for older instructions.
 *
 * On AMD family 10h and later LFENCE serialises dispatch when CPUID
 * 8000_0021H:EAX[2] (LfenceAlwaysSerializing) says so, or when MSR
 * DE_CFG (C001_1029h) bit 1 is set (AMD, "Software techniques for managing
 * speculation on AMD processors", mitigation G-2). Firmware usually sets the
 * bit, but bare firmware may not: the session sets it when it is clear,
 * checks the write took, restores the firmware's value at the end, and the
 * fingerprint says which case applies. Intel: LFENCE always waits for all
 * older instructions (SDM vol. 2A LFENCE).
 */
#ifndef LFENCE_SERIALISE_H
#define LFENCE_SERIALISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "nb_platform.h"

#define MSR_AMD_DE_CFG 0xC0011029u
#define DE_CFG_LFENCE_SERIALIZE (1ull << 1)
#define CPUID_LEAF_AMD_EXT_FEATURES_2 0x80000021u
#define CPUID_80000021_EAX_LFENCE_ALWAYS_SERIALIZING (1u << 2)

enum lfence_state {
    LFENCE_INTEL,            /* serialising by architecture */
    LFENCE_CPUID,            /* AMD: CPUID 8000_0021H EAX[2] */
    LFENCE_ALREADY_SET,      /* AMD: DE_CFG[1] was set by the firmware */
    LFENCE_SET_FOR_SESSION,  /* AMD: we set DE_CFG[1]; restored at the end */
    LFENCE_NOT_SERIALISING,  /* AMD: DE_CFG unreadable, or the write faulted or did not stick */
    LFENCE_NOT_APPLICABLE,   /* other vendors, AMD before family 10h */
};

struct lfence_session {
    enum lfence_state state;
    uint64_t saved_de_cfg;   /* for LFENCE_SET_FOR_SESSION */
    char why[96];            /* for LFENCE_NOT_SERIALISING */
};

void lfence_session_begin(struct lfence_session *s, const struct nb_platform *p, const struct machine_info *m);
/* Puts DE_CFG back as the firmware had it (only if the session changed it). */
void lfence_session_end(struct lfence_session *s, const struct nb_platform *p);
/* The fingerprint line, e.g. "lfence: dispatch-serialising (DE_CFG[1] set for this session)". */
void lfence_describe(const struct lfence_session *s, char *out, size_t cap);

#endif
