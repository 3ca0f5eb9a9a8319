/*
 * machine.h — the machine fingerprint printed before any result: who made
 * the processor, which one it is, its microcode, and what the TSC can be
 * trusted for. Results are only comparable between equal fingerprints.
 */
#ifndef MACHINE_H
#define MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_platform.h"

enum cpu_vendor { VENDOR_OTHER = 0, VENDOR_INTEL, VENDOR_AMD };

enum tsc_freq_source {
    TSC_FREQ_UNKNOWN = 0,
    TSC_FREQ_CPUID_15H, /* crystal clock ratio, SDM vol. 3B 19.7.3 */
    TSC_FREQ_CPUID_16H, /* processor base frequency in MHz */
    TSC_FREQ_CALIBRATED, /* counted against the firmware's Stall() */
};

struct machine_info {
    char vendor[13];
    char brand[49];
    enum cpu_vendor vendor_id;
    uint32_t family, model, stepping; /* display values (SDM vol. 2A CPUID, EAX=01H) */
    bool microcode_known;
    uint32_t microcode;
    uint32_t max_leaf, max_ext_leaf;
    bool tsc_present, tsc_invariant, rdtscp;
    bool hypervisor;         /* CPUID.1:ECX[31] */
    char hypervisor_id[13];  /* CPUID 40000000H signature, e.g. "TCGTCGTCGTCG", "KVMKVMKVM" */
    uint64_t tsc_hz;
    enum tsc_freq_source tsc_source;
};

/* Reads CPUID (and IA32_BIOS_SIGN_ID for the microcode revision). */
void machine_identify(const struct nb_platform *p, struct machine_info *m);
/* Determines the TSC frequency: CPUID 15H, then 16H, then a calibration of `calibrate_ms`. */
void machine_tsc_frequency(const struct nb_platform *p, struct machine_info *m, uint32_t calibrate_ms);
const char *tsc_freq_source_name(enum tsc_freq_source s);

/* Every TSC frequency the machine offers, for the platform report (0: not available). */
struct tsc_sources {
    uint64_t cpuid_15h_hz;   /* Intel: crystal ratio */
    uint64_t cpuid_16h_hz;   /* Intel: processor base frequency */
    uint64_t amd_p0_hz;      /* AMD: P-state 0 (the invariant TSC counts at P0, APM vol. 2 17.1) */
    uint64_t calibrated_hz;  /* counted against the firmware's Stall() */
};
void machine_tsc_sources(const struct nb_platform *p, const struct machine_info *m,
                         uint32_t calibrate_ms, struct tsc_sources *out);

#endif
