/*
 * power.h — what can make a cycle count lie: turbo and hardware P-states
 * change the core clock while the TSC ticks on, and SMIs steal time. The
 * fingerprint states them; APERF/MPERF give the effective frequency of a run.
 */
#ifndef POWER_H
#define POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "nb_platform.h"

enum tristate { STATE_UNKNOWN = 0, STATE_OFF, STATE_ON };

struct power_info {
    enum tristate turbo;  /* Intel Turbo Boost / AMD Core Performance Boost */
    enum tristate hwp;    /* Intel hardware-controlled P-states */
    bool aperf_mperf;     /* CPUID.06H:ECX[0] and both MSRs readable */
    bool smi_count;       /* Intel MSR_SMI_COUNT readable */
    uint64_t smis;        /* MSR_SMI_COUNT at identification */
};

void power_identify(const struct nb_platform *p, const struct machine_info *m, struct power_info *w);
/* Reads APERF and MPERF; false if either faults. */
bool power_read_aperf_mperf(const struct nb_platform *p, uint64_t *aperf, uint64_t *mperf);
const char *tristate_name(enum tristate t);

#endif
