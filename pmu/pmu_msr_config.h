/*
 * pmu_msr_config.h — nanoBench's MSR config format, for counters that only
 * RDMSR can read (uncore boxes, RAPL energy, APERF/MPERF):
 *
 *   msr_0xE01=0x20000000.msr_700=0x408F34 msr_706 LLC_LOOKUP_CBO_0
 *   msr_611 PKG_ENERGY
 *
 * Before the reads, each `msr_ADDR=VALUE` is written (ADDR is hex, with or
 * without 0x and a trailing 'h'; VALUE is decimal or 0x-hex); then the last
 * MSR named is read around the benchmark like any counter. '#' lines and
 * blank lines are ignored; a bad line is reported with its number and skipped.
 *
 * Not every such counter has 64 bits: the RAPL energy status counters have 32,
 * client uncore counters 44 (the uncore clock 48), AMD's L3 counters 48. The
 * difference of two reads is taken modulo 2^width, so a counter that wraps
 * during the benchmark still gives its count. The width of a known MSR comes
 * from msr_counter_width(); any other is read as 64 bits unless the line gives
 * one after the read MSR, `msr_ADDR:BITS` (1..64), e.g. `msr_0x706:44 CBO_0`.
 */
#ifndef PMU_MSR_CONFIG_H
#define PMU_MSR_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "pmu_event.h"

#define MSR_EVENT_MAX_WRITES 10
#define MSR_EVENT_MAX 256

struct msr_event {
    char name[PMU_EVENT_NAME_MAX];
    uint32_t write_msr[MSR_EVENT_MAX_WRITES];
    uint64_t write_value[MSR_EVENT_MAX_WRITES];
    unsigned n_writes;
    uint32_t read_msr;
    unsigned width; /* bits of the read counter (msr_counter_width or `:BITS`); 0: 64 */
    unsigned line;
};

/*
 * Bits of the counter at `msr` when it is a known counter narrower than 64
 * (RAPL energy status, client uncore, AMD L3); 0 otherwise (read as 64 bits).
 */
unsigned msr_counter_width(uint32_t msr);

/* Returns the number of events stored (at most max); bad lines go to on_error. */
size_t msr_config_parse(const char *text, size_t len, struct msr_event *events, size_t max,
                        pmu_config_error_fn on_error, void *arg);

#endif
