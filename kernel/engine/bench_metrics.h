/*
 * bench_metrics.h — -metrics GROUP[,GROUP]: the derived metrics of a
 * benchmark (metric files: pmu/metric_file.h, configs/metrics/).
 *
 * Before the runs: the groups are chosen from the CPU's metric file, and
 * each event they need is found among the benchmark's events (by name, or
 * by the same encoding under another name) or else in the metric file's
 * configs and appended, so the existing scheduler places them with every
 * constraint. After the runs: each metric is evaluated from the measured
 * values and printed after the counter lines as "NAME: 0.25" (CSV row
 * metric.NAME). A metric without a value prints "NAME: n/a (why)"; each
 * reason is given once per benchmark, later metrics with the same reason
 * print "NAME: n/a".
 *
 * Used by the image (kernel/engine/bench_counters.c) and by -plan (tools/compile/nb_plan.c).
 */
#ifndef BENCH_METRICS_H
#define BENCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine_latencies.h"
#include "metric_file.h"
#include "nb_report.h"
#include "pmu_event.h"

#define METRICS_DIR "configs/metrics"
#define METRICS_WHY_MAX 160

enum metric_source { SRC_NONE, SRC_EVENT, SRC_FIXED, SRC_MISSING };

struct metric_plan {
    const struct metric_file *f;
    enum cpu_vendor vendor;
    unsigned n_groups;
    uint8_t groups[METRIC_GROUP_MAX];
    bool need[METRIC_IDENT_MAX];
    uint8_t source[METRIC_IDENT_MAX];
    unsigned index[METRIC_IDENT_MAX]; /* SRC_EVENT: into events[]; SRC_FIXED: fixed read */
    char why[METRIC_IDENT_MAX][METRICS_WHY_MAX]; /* SRC_MISSING */
    bool needs_fixed;      /* a metric reads a fixed counter (measured in the first run) */
    size_t first_added;    /* events from here on were added for the metrics (not printed) */
};

/*
 * "configs/metrics/Skylake.txt" for the default config
 * "configs/cfg_Skylake_common.txt"; the vendor's arch_<vendor>.txt when
 * there is none.
 */
void metrics_file_for(const char *default_config, enum cpu_vendor vendor, char *out, size_t cap);
void metrics_arch_file(enum cpu_vendor vendor, char *out, size_t cap);

/* Chooses the groups of `list` (comma-separated); false with a message naming the file's groups. */
bool metrics_select(struct metric_plan *plan, const struct metric_file *f, enum cpu_vendor vendor,
                    const char *list, char *err, size_t cap);

/*
 * Finds or appends every event the chosen groups need. config_events[c]
 * (n_config[c] of them) are the parsed configs of the metric file, in its
 * order; an entry may be NULL (could not be read: config_why[c] says why).
 * Returns the new number of events (at most max).
 */
size_t metrics_add_events(struct metric_plan *plan, struct pmu_event *events, size_t n, size_t max,
                          const struct pmu_event *const *config_events, const size_t *n_config,
                          const char *const *config_why);

/* Measured values, as printed (hundredths unless no_normalization). */
struct metric_measured {
    const int64_t *event_values;
    const bool *event_measured;
    const int64_t *fixed_values; /* in the vendor's fixed_reads order */
    unsigned n_fixed;            /* how many of them were measured (0: none) */
    int64_t tsc;
    bool tsc_known;
    bool no_normalization;
    uint64_t tsc_hz;             /* 0: unknown */
    const char *no_pmu_why;      /* non-NULL: no counter was measured, and why */
    /* -calibrate's latencies for N1..N4 (METRICS-FACTS.md 3c), or NULL. */
    const struct machine_latencies *latencies;
};

/* Evaluates and prints every metric of the chosen groups. */
void metrics_report(const struct metric_plan *plan, const struct metric_measured *m, struct report *r);

/* True when a chosen metric reads N1..N4, the latencies -calibrate measures. */
bool metrics_need_latencies(const struct metric_plan *plan);

#endif
