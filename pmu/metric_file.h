/*
 * metric_file.h — derived-metric definitions for one microarchitecture
 * (configs/metrics/NAME.txt; format in configs/README.md):
 *
 *   # comment (also after a definition)
 *   config cfg_Skylake_common.txt cfg_Skylake_all_core.txt
 *   const issue_width = 4
 *   IPC = INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD
 *   CPI = 1 / IPC
 *   group cpi: CPI IPC
 *   na FP_SPEED: no FLOP-count event on this core (METRICS-FACTS 1b)
 *
 * `config` names the event configs (in configs/, searched in that order;
 * `builtin` = the image's architectural events) that define the events the
 * expressions use. A name in an expression is, in this order: a metric of
 * the file (defined anywhere in it), RDTSC, a machine constant (tsc_hz,
 * issue_width, peak_flop_per_cycle, N1..N4; `const` gives this
 * microarchitecture's value, the others come from the machine or stay
 * unknown), or else an event. Fixed counters and AMD's APERF/MPERF are
 * events with the names metric_fixed_counter() knows. A metric that depends
 * on itself is an error. `na NAME: REASON` defines a metric this
 * microarchitecture cannot compute (its events do not exist): it is always
 * n/a with REASON, needs no inputs, and a metric using it is n/a with the
 * same reason. Errors name "file:line:".
 */
#ifndef METRIC_FILE_H
#define METRIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "metric_expr.h"

#define METRIC_NAME_MAX 80
#define METRIC_MAX 96
#define METRIC_IDENT_MAX 192
#define METRIC_GROUP_MAX 12
#define METRIC_GROUP_MEMBERS 24
#define METRIC_CONFIG_MAX 6
#define METRIC_CONFIG_NAME_MAX 64
#define METRIC_WHY_MAX 128

enum metric_ident_kind {
    METRIC_ID_EVENT, /* an event of the configs, or a fixed counter */
    METRIC_ID_METRIC,
    METRIC_ID_CONST, /* a machine constant */
    METRIC_ID_TSC,   /* RDTSC */
};

struct metric_ident {
    char name[METRIC_NAME_MAX];
    uint8_t kind;
    uint8_t index; /* METRIC_ID_METRIC: the metric; METRIC_ID_CONST: the constant */
};

struct metric_def {
    char name[METRIC_NAME_MAX];
    unsigned line;
    struct metric_expr expr;
    char na_why[METRIC_WHY_MAX]; /* "na NAME: REASON": never a value, this reason ("" otherwise) */
};

struct metric_group {
    char name[METRIC_NAME_MAX];
    unsigned line;
    unsigned n;
    uint8_t member[METRIC_GROUP_MEMBERS];
};

enum metric_const {
    METRIC_CONST_TSC_HZ, METRIC_CONST_ISSUE_WIDTH, METRIC_CONST_PEAK_FLOP, METRIC_CONST_N1,
    METRIC_CONST_N2, METRIC_CONST_N3, METRIC_CONST_N4, METRIC_CONST_COUNT
};

/* The constants' names, by enum metric_const. */
extern const char *const metric_const_names[METRIC_CONST_COUNT];

struct metric_file {
    unsigned n_metrics, n_idents, n_groups, n_configs;
    struct metric_def metrics[METRIC_MAX];
    struct metric_ident idents[METRIC_IDENT_MAX];
    struct metric_group groups[METRIC_GROUP_MAX];
    char configs[METRIC_CONFIG_MAX][METRIC_CONFIG_NAME_MAX];
    bool const_set[METRIC_CONST_COUNT];
    double const_value[METRIC_CONST_COUNT];
    unsigned const_line[METRIC_CONST_COUNT];
};

/* Gets "file:line: message" for every error. */
typedef void (*metric_error_fn)(void *arg, const char *message);

/* Parses a metric file; false when any line was wrong (every error is reported). */
bool metric_file_parse(const char *text, size_t len, const char *path, struct metric_file *f,
                       metric_error_fn on_error, void *arg);

/* Index of a metric / group by name, or -1. */
int metric_file_find(const struct metric_file *f, const char *name);
int metric_file_group(const struct metric_file *f, const char *name);

/* Marks need[ident] for every identifier group g uses, through the metrics it names. */
void metric_file_group_inputs(const struct metric_file *f, unsigned g, bool need[METRIC_IDENT_MAX]);

/*
 * Values of events, RDTSC and constants the file does not set. The value is
 * per measured unit, like the printed counts.
 */
typedef struct metric_value (*metric_input_fn)(void *arg, const struct metric_ident *id);

struct metric_value metric_file_eval(const struct metric_file *f, unsigned metric,
                                     metric_input_fn input, void *arg);

/*
 * A fixed-function counter name (Intel: INST_RETIRED.ANY,
 * CPU_CLK_UNHALTED.THREAD, CPU_CLK_UNHALTED.REF_TSC = fixed 0-2; AMD:
 * MPERF, APERF, the MSRs read in their place): its position in the
 * vendor's fixed reads (pmu_ops.fixed_reads), or -1.
 */
int metric_fixed_counter(enum cpu_vendor vendor, const char *name);

/* A value as the image prints it: "0.25" (2 decimals, rounded), or "n/a". */
size_t metric_format(char *buf, size_t cap, struct metric_value v);

#endif
