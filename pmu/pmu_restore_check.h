/*
 * pmu_restore_check.h — proves that the counters were left as found: after
 * pmu_session_end has written every saved MSR back, each one is read again
 * and compared with the value saved at pmu_session_begin.
 *
 * A counting register (IA32_PMCx, IA32_FIXED_CTRx, AMD PERF_CTRx) whose
 * restored control state has it counting keeps counting after the restore,
 * so its value cannot be compared; it is named as not compared instead.
 */
#ifndef PMU_RESTORE_CHECK_H
#define PMU_RESTORE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "pmu_session.h"

struct pmu_restore_result {
    unsigned n_checked;     /* MSRs read back and compared */
    unsigned n_running;     /* counters still counting in the restored state: not compared */
    unsigned n_mismatch;
    char first[160];        /* the first mismatch: MSR, saved and read-back values */
};

/*
 * `saved` is a copy of the session taken before pmu_session_end (which
 * forgets its list). Returns true when every compared MSR reads back as saved.
 */
bool pmu_restore_check(const struct pmu_session *saved, struct pmu_restore_result *out);

#endif
