/*
 * bench_expect.h — known-answer checks: `-expect` expectations evaluated on
 * the image against the values a benchmark printed, and the suite's
 * `selftest:` summary.
 *
 * Grammar of one expectation (the value of one -expect option):
 *
 *     NAMES=VALUE[~TOLERANCE][ if CONDITION]
 *     NAMES := NAME('|'NAME)*        the first name that was measured is used,
 *                                    so one check covers every vendor's name
 *     VALUE := a decimal with at most 2 decimals (results are printed so),
 *              or NAMES (another event of the same benchmark)
 *     CONDITION := icount=N | tsc_invariant | uarch=NAME('|'NAME)*
 *                  (uarch: the microarchitecture configs/cpu_map.txt names for
 *                  this processor, e.g. Skylake or Zen4, the NAME of the
 *                  default config cfg_NAME_common.txt)
 *
 * A check is PASS when |measured - expected| <= TOLERANCE (0: exact, as
 * printed), FAIL otherwise or when the benchmark reported an error, and
 * SKIPPED with the reason when it cannot be decided on this machine: the
 * benchmark's -cpu processor does not exist, the condition does not hold,
 * there is no usable PMU for a counter event, or the event was not measured.
 * Everything here is pure: nb_main.c supplies the facts and prints the lines.
 */
#ifndef BENCH_EXPECT_H
#define BENCH_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPECT_NAMES_MAX 8
#define EXPECT_NAME_LEN 80
#define EXPECT_VALUES_MAX 160 /* values one benchmark can print (fixed + events + MSRs) */
#define EXPECT_LINE_MAX 400

enum expect_condition { EXPECT_ALWAYS = 0, EXPECT_IF_ICOUNT, EXPECT_IF_TSC_INVARIANT, EXPECT_IF_UARCH };

struct expect_names {
    unsigned n;
    char name[EXPECT_NAMES_MAX][EXPECT_NAME_LEN];
};

struct expectation {
    struct expect_names event;
    bool value_is_event;         /* compare with another event instead of a number */
    struct expect_names value_event;
    int64_t value;               /* hundredths, as results are printed */
    int64_t tolerance;           /* hundredths; 0: exact */
    enum expect_condition condition;
    int64_t condition_arg;       /* the icount shift for EXPECT_IF_ICOUNT */
    struct expect_names uarch;   /* EXPECT_IF_UARCH */
};

/* Parses one expectation; false with a one-line reason in `error`. */
bool expect_parse(const char *text, struct expectation *out, char *error, size_t error_cap);

/* What one benchmark printed: event names and values in hundredths. */
struct expect_values {
    size_t n;
    char name[EXPECT_VALUES_MAX][EXPECT_NAME_LEN];
    int64_t value[EXPECT_VALUES_MAX];
    bool has_error;
    char error[EXPECT_LINE_MAX]; /* the first error line of the benchmark */
};

void expect_values_reset(struct expect_values *v);
/* Records a printed value ("2.00", "-0.50", or a whole number with -no_normalization). */
void expect_values_add(struct expect_values *v, const char *event, const char *text);
void expect_values_error(struct expect_values *v, const char *message);

/* What the machine is, for the SKIPPED decisions. */
struct expect_facts {
    const struct expect_values *values;
    bool pmu_usable;
    const char *no_pmu_why;  /* the fingerprint's reason */
    bool tsc_invariant;
    int64_t icount;          /* the QEMU -icount shift the CLI passed (-qemu_icount), -1: none */
    unsigned n_cpus;
    int64_t cpu;             /* the benchmark's -cpu, -1: the boot processor */
    const char *uarch;       /* cpu_map.txt's name for this processor, "" if not listed */
};

enum check_status { CHECK_PASS = 0, CHECK_FAIL, CHECK_SKIPPED };

/*
 * Decides one check and writes its line without the "check: " prefix:
 *   PASS add_chain: RDTSC = 32.00 (expected 32.00)
 *   FAIL imul_chain: Core cycles = 2.00, expected 3.00~0.05
 *   SKIPPED add_chain: Core cycles: no PMU (...)
 * `event_out` gets the event's name for the summary (the measured name, or
 * the first alternative).
 */
enum check_status expect_evaluate(const struct expectation *e, const struct expect_facts *f,
                                  const char *benchmark, char *line, size_t cap,
                                  char *event_out, size_t event_cap);

/* The suite's tally. */
#define SELFTEST_FAILED_MAX 600
struct selftest {
    unsigned n_pass, n_fail, n_skip;
    size_t failed_len;
    char failed[SELFTEST_FAILED_MAX]; /* "bench: event, bench: event" */
};

void selftest_add(struct selftest *t, enum check_status status, const char *benchmark,
                  const char *event);
/* "selftest: PASS 9/12, 1 failed (avx_chain: RDTSC), 2 skipped" */
size_t selftest_summary(const struct selftest *t, char *buf, size_t cap);

const char *check_status_name(enum check_status s);

#endif
