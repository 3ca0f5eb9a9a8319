/*
 * bench_counters.h — measures a benchmark with every counter it asks for.
 *
 * Once per suite: detect the PMU, probe it (never trust CPUID alone), pick
 * the default event config for this CPU (nanobench/configs/cpu_map.txt, else
 * the built-in architectural events) and save the counter state. Per
 * benchmark: parse its -config, schedule the events into counter groups, and
 * run the benchmark once per group (no multiplexing). Without a usable PMU
 * only RDTSC is measured, and the fingerprint says why in one line.
 * -msr_config events do not need the PMU: each gets its own run, with its
 * MSR writes applied before and undone after.
 */
#ifndef BENCH_COUNTERS_H
#define BENCH_COUNTERS_H

#include <stdbool.h>

#include "bench_metrics.h"
#include "bench_run.h"
#include "machine.h"
#include "nb_report.h"
#include "pmu.h"
#include "pmu_ctr_rules.h"
#include "pmu_msr_config.h"
#include "pmu_schedule.h"
#include "pmu_session.h"
#include "power.h"

#define CONFIG_MAP_PATH "nanobench/configs/cpu_map.txt"
/* Base and main run further apart than this (of the faster one's MHz) get a warning. */
#define FREQ_TOLERANCE_PERMILLE 10u

struct counter_env {
    const struct nb_platform *p; /* a cpu_platform for -cpu N: all MSR traffic runs there */
    bool usable;
    char why[200];
    struct pmu_desc desc;
    struct pmu_session session;
    char default_config[96];    /* path on the image, "" for the built-in events */
    char config_why[256];       /* the report line saying which map line chose it */
    char ctr_rules_path[96];    /* "configs/ctr_PREFIX.txt" of the map line, "" without one */
    struct pmu_ctr_rules *ctr_rules; /* loaded from it; desc.ctr_rules points here */
    struct pmu_event *events;   /* PMU_MAX_EVENTS */
    struct pmu_group *groups;   /* PMU_MAX_EVENTS */
    struct msr_event *msr_events; /* MSR_EVENT_MAX */
    struct power_info power;      /* turbo/HWP/APERF/SMI facts of this processor */
    /*
     * AMD family 17h+ with a usable PMU, ring 0: SMIs counted with PMCx02B on a
     * counter each group leaves free (pmu_msrs.h AMD_SMI_RX_EVENT); a group that
     * uses every counter runs without the check, and the benchmark says so.
     */
    bool amd_smi;
    struct machine_info machine;  /* of counters_init: -freq base asks it the vendor and leaves */
    uint64_t tsc_hz;
    struct report *report;        /* of counters_init, for counters_finish's warning */
    enum cpu_vendor vendor;
    /* -metrics: the CPU's metric file and its configs, loaded at the first benchmark that asks. */
    bool metrics_tried, metrics_ok;
    char metrics_path[96];
    char metrics_error[200];
    struct metric_file *metrics;
    struct metric_plan *plan;
    struct pmu_event *metric_config_events[METRIC_CONFIG_MAX];
    size_t metric_config_n[METRIC_CONFIG_MAX];
    char metric_config_why[METRIC_CONFIG_MAX][METRICS_WHY_MAX];
    /*
     * -calibrate's latencies for this processor's core kind (N1..N4 of the
     * metrics), or NULL: set by the caller, which keeps the calibrations
     * (kernel/engine/bench_calibrate.h); data only, so nothing here calls there.
     */
    const struct machine_latencies *latencies;
};

/* Detects and probes the PMU, prints the `pmu:` fingerprint line. */
void counters_init(struct counter_env *env, const struct nb_platform *p,
                   const struct machine_info *m, struct report *r);
/*
 * The memory counters_init may ask for, so that the boot processor can
 * allocate it before counters_init runs where the firmware cannot be
 * called (-cpu N, cpu_session.h): fills sizes[] and exec[] (code memory)
 * and returns how many (at most COUNTERS_INIT_BLOCKS).
 */
#define COUNTERS_INIT_BLOCKS 5
size_t counters_init_blocks(size_t sizes[COUNTERS_INIT_BLOCKS], bool exec[COUNTERS_INIT_BLOCKS]);
/* Restores the counter state found at counters_init. */
void counters_finish(struct counter_env *env);

/*
 * The benchmark's events (its -config, else the CPU's default, else the
 * built-in architectural ones) into env->events; the count, or -1 after an
 * error line. -cycle_by_cycle (bench_cycles.h) uses it.
 */
long counters_load_events(struct counter_env *env, const struct bench_options *o, struct report *r);

/* Measures one benchmark and reports its values (or an error line). */
/*
 * The benchmark's SMI line: how many measurements were repeated after an SMI,
 * and how many kept ones saw one anyway (repeats are bounded). False: none.
 */
bool counters_smi_warning(unsigned repeated, unsigned kept, char *out, size_t cap);

/*
 * True when the benchmark's -metrics groups read N1..N4 (codemon's latency
 * model) and the PMU can give them a value: the image then runs the
 * calibration first (once per boot and core kind), as -calibrate does. Loads the CPU's
 * metric file (once per suite); a group the file lacks needs nothing here.
 */
bool counters_metrics_need_latencies(struct counter_env *env, const struct bench_options *o, struct report *r);

/*
 * The first of `names` (NULL-terminated, in order of preference) that the
 * configs of the CPU's metric file define (the `config` lines of configs/metrics
 * files: the events the metrics themselves read), copied to *out. False
 * without a usable PMU, a metric file, or any of the names; *why then says
 * which.
 */
bool counters_find_event(struct counter_env *env, const char *const *names, struct pmu_event *out,
                         const char **why, struct report *r);

/*
 * Loads the CPU's metric file for -metrics (once per suite) where the
 * firmware may be called, ahead of a measurement that runs elsewhere
 * (cpu_measure.h); false when there is none usable (the measurement says
 * why).
 */
bool counters_metrics_load(struct counter_env *env, struct report *r);

void counters_measure(struct counter_env *env, struct bench_context *bench,
                      const struct bench_options *o, const struct bench_code *code,
                      struct report *r);

#endif
