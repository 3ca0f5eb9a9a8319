/*
 * freq_pin.h — -freq base: the benchmark's processor runs at its base
 * frequency with turbo off, and gets its own settings back afterwards.
 *
 * Intel with HWP enabled (IA32_PM_ENABLE[0]): IA32_HWP_REQUEST minimum =
 * maximum = desired = the guaranteed performance of IA32_HWP_CAPABILITIES
 * (SDM vol. 3B 15.4.3-15.4.4); without HWP: IA32_PERF_CTL's ratio =
 * MSR_PLATFORM_INFO's maximum non-turbo ratio (15.3.2); both with turbo off
 * through IA32_MISC_ENABLE[38]. AMD: boost off through HWCR[25] CpbDis and
 * P-state 0 requested through PStateCtl (APM vol. 2 17.1-17.2). Every MSR is
 * read before anything is written; a write the processor refuses undoes the
 * earlier ones. MSRs are per logical processor (SDM: IA32_PERF_CTL and the HWP
 * MSRs are thread scope; a sibling may still hold the core faster).
 */
#ifndef FREQ_PIN_H
#define FREQ_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "nb_platform.h"

#define FREQ_PIN_MSRS 2

struct freq_pin {
    bool active;
    unsigned n;
    uint32_t msr[FREQ_PIN_MSRS];   /* in write order */
    uint64_t saved[FREQ_PIN_MSRS]; /* what each held before */
};

/*
 * Fixes the clock of the processor `p` runs on at its base frequency, turbo
 * off. True with `what` the fingerprint line ("freq: base: ..."); false with
 * the reason in `what`, and nothing changed.
 */
bool freq_pin_base(struct freq_pin *f, const struct nb_platform *p, const struct machine_info *m,
                   char *what, size_t cap);
/*
 * What freq_pin_base writes on a processor of `vendor`, for -plan (which has no
 * MSR values): one line per case, '\n'-separated, without a final newline.
 */
void freq_pin_describe(enum cpu_vendor vendor, char *out, size_t cap);

/* Writes back what freq_pin_base found, last written first. */
void freq_pin_restore(struct freq_pin *f, const struct nb_platform *p);

#endif
