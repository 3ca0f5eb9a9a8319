/*
 * nb_report.h — everything the image tells the user: serial/console text and
 * the results files nanobench/results/run-NNNN.txt (the text as printed) and
 * run-NNNN.csv (benchmark,event,value,min,max: min and max are -range's
 * bounds, empty without it).
 *
 * NNNN grows with every boot: it continues after the number kept in
 * nanobench/results/last-run and skips any file that already exists, so an
 * earlier run is never overwritten. A benchmark's lines reach serial at once
 * but the files only as whole blocks: written and flushed when the
 * benchmark ends or, in deferred mode, collected in memory and written and
 * flushed together by report_commit (nb_main.c commits at most every
 * 250 ms: the durability window). Either way a machine reset leaves no half
 * block, and nb_resume.h continues the same files after it. When the
 * partition cannot be written (missing folder, read-only, full) the report
 * says so once and carries on over serial.
 */
#ifndef NB_REPORT_H
#define NB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_platform.h"

#define REPORT_PENDING_MAX 16384

struct report {
    const struct nb_platform *p;
    struct nb_file *txt;
    struct nb_file *csv;
    bool files_ok;
    unsigned run_number;
    char txt_path[64];
    char csv_path[64];
    const char *benchmark; /* current benchmark, for CSV rows */
    bool in_benchmark;     /* between report_begin and report_end */
    unsigned n_benchmarks;
    unsigned n_errors;
    unsigned serial_seq;   /* sequence number of the next serial line */
    /* The current benchmark's lines for the .txt and .csv files. */
    char pending_txt[REPORT_PENDING_MAX];
    char pending_csv[REPORT_PENDING_MAX];
    size_t pending_txt_len, pending_csv_len;
    /* Deferred mode: finished blocks (and lines between them) wait here for report_commit. */
    bool deferred;
    char *commit_txt, *commit_csv;
    size_t commit_txt_len, commit_csv_len, commit_cap;
    /* Bytes in each file, and how many of them were flushed (the state file records those). */
    uint64_t txt_written, csv_written, txt_durable, csv_durable;
    /*
     * Optional observer of every value and error a benchmark reports (the
     * -expect checks read the values exactly as printed); NULL: none.
     */
    void (*on_value)(void *arg, const char *event, const char *value);
    void (*on_error)(void *arg, const char *message);
    void *observer_arg;
    /*
     * -lava_results: after each value, metric, error and check of the
     * current benchmark, one serial line "lava: CASE RESULT [VALUE UNITS]"
     * for a LAVA job's monitor (lava/README.md); not in the results files.
     */
    bool lava;
    const char *lava_units_suffix; /* "/rep" when values are per repetition */
    /*
     * Serve mode (nb_serve.h): every CSV row is also copied to `capture`
     * (NULL: off; capture_full when a row did not fit), and serial_quiet
     * keeps the lines off the serial line (the reply frame carries them).
     */
    char *capture;
    size_t capture_len, capture_cap;
    bool capture_full;
    bool serial_quiet;
    /* Recording instead of emitting (report_tape_start), or NULL. */
    struct report_tape *tape;
};

/*
 * A tape: the report calls of code that runs where the firmware cannot be
 * called (the benchmark's whole measurement on another processor, -cpu N:
 * no serial output, no file writes there) are recorded in order into the
 * caller's memory instead of being emitted; report_tape_replay emits them
 * afterwards, on the boot processor, as if they were made then. An error
 * counts at once (r->n_errors), so the recording code sees its own errors.
 * Records that do not fit are counted in `dropped`, and the replay ends
 * with a warning that says how many.
 */
struct report_tape {
    char *buf;
    size_t cap, len;
    unsigned dropped;
};

/* From now on r's calls are recorded into `buf` (cap bytes) instead of emitted. */
void report_tape_start(struct report *r, struct report_tape *t, char *buf, size_t cap);
/* Stops recording: r emits again. */
void report_tape_stop(struct report *r);
/* Emits what the tape recorded, in order (r must not be recording). */
void report_tape_replay(struct report *r, const struct report_tape *t);

/* Serial/console only; report_open_files adds the results files. */
void report_init(struct report *r, const struct nb_platform *p);
/* Creates run-NNNN.txt/.csv; on failure prints why and stays serial-only. */
void report_open_files(struct report *r);
/* Reopens run-NNNN.txt/.csv of an interrupted run for appending. */
void report_reopen_files(struct report *r, unsigned run_number);

/* A line of text (no newline in fmt) to serial, console and the .txt file. */
void report_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A line to serial and console only (framed like every line, so the host
 * prints it in the benchmark's block), not to the results files: -debug's
 * dump, which has its own file.
 */
void report_serial_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A platform fact outside any benchmark: "platform: KEY = VALUE" in text and
 * "platform,KEY,VALUE,," in CSV (kernel/platform/platform_report.h).
 */
void report_platform_fact(struct report *r, const char *key, const char *value);

/* Starts a benchmark: prints "[name]". */
void report_begin(struct report *r, const char *name);
/* The current benchmark asked for LAVA result lines (-lava_results). */
void report_lava_begin(struct report *r, const char *units_suffix);
/* One LAVA result line for a -expect check (nb_selftest.c): RESULT is pass, fail or skip. */
void report_lava_check(struct report *r, const char *event, const char *result);
/* "EVENT: VALUE" in text, "benchmark,EVENT,VALUE,," in CSV. */
void report_value(struct report *r, const char *event, const char *value);
/*
 * -range: "EVENT: TEXT" in text (nanoBench's "2.00 [1.50;2.40]"), and
 * "benchmark,EVENT,VALUE,MIN,MAX" in CSV: the bounds in their own columns.
 */
void report_value_range(struct report *r, const char *event, const char *text, const char *value,
                        const char *min, const char *max);
/* A derived metric: "NAME: VALUE" in text, "benchmark,CSV_NAME,VALUE" in CSV (CSV_NAME metric.NAME). */
void report_metric(struct report *r, const char *name, const char *csv_name, const char *value);
/* "error: MESSAGE" in text, "benchmark,error,MESSAGE" in CSV; counts the error. */
void report_error(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends a benchmark: flushes both files (deferred mode: keeps the block for report_commit). */
void report_end(struct report *r);

/*
 * Deferred mode: blocks collect in `cap`-byte buffers per file (allocated
 * here; false when that fails, and the report stays immediate).
 */
bool report_defer(struct report *r, size_t cap);
/* Writes and flushes what deferred mode collected; afterwards *_durable == *_written. */
void report_commit(struct report *r);
/*
 * For a resumed run: cuts run-NNNN.txt/.csv back to the sizes the state
 * file recorded as durable (a reset may have left blocks that will be run
 * again), then reopens them for appending. Sizes of ~0 mean "keep all".
 */
void report_reopen_files_at(struct report *r, unsigned run_number, uint64_t txt_size,
                            uint64_t csv_size);

void report_close(struct report *r);

#endif
