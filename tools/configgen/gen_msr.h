/*
 * gen_msr — the MSR configs (nanoBench's -msr_config format, pmu/pmu_msr_config.h):
 * RAPL energy counters (Intel, AMD) and uncore counters of one Intel client
 * (Skylake-generation CBo/ARB) and one AMD part (family 19h L3), each value built
 * from named fields with the manual section in a comment.
 */
#ifndef GEN_MSR_H
#define GEN_MSR_H

#include <stdint.h>

/* Write every msr_*.txt into dir; 0 on success. */
int gen_msr_write_all(const char *dir);

/* Zen 3/4/5 L3 PMC select value for event/umask, all slices, cores and threads. */
uint64_t gen_msr_amd_l3_ctl(unsigned event, unsigned umask);

/* Skylake-client CBo/ARB select value for event/umask (enable bit set). */
uint64_t gen_msr_intel_unc_ctl(unsigned event, unsigned umask);

#endif /* GEN_MSR_H */
