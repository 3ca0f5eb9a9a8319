/*
 * nb_report.h — everything the image tells the user: serial/console text and
 * the results files nanobench/results/run-NNNN.txt (the text as printed) and
 * run-NNNN.csv (benchmark,event,value).
 *
 * NNNN grows with every boot: it continues after the number kept in
 * nanobench/results/last-run and skips any file that already exists, so an
 * earlier run is never overwritten. A benchmark's lines reach serial at once
 * but the files only as a whole block, written and flushed when the
 * benchmark ends: a machine reset in the middle leaves no half block (and
 * nb_resume.h continues the same files after the reset). When the partition
 * cannot be written (missing folder, read-only, full) the report says so once
 * and carries on over serial.
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
    /*
     * Optional observer of every value and error a benchmark reports (the
     * -expect checks read the values exactly as printed); NULL: none.
     */
    void (*on_value)(void *arg, const char *event, const char *value);
    void (*on_error)(void *arg, const char *message);
    void *observer_arg;
};

/* Serial/console only; report_open_files adds the results files. */
void report_init(struct report *r, const struct nb_platform *p);
/* Creates run-NNNN.txt/.csv; on failure prints why and stays serial-only. */
void report_open_files(struct report *r);
/* Reopens run-NNNN.txt/.csv of an interrupted run for appending. */
void report_reopen_files(struct report *r, unsigned run_number);

/* A line of text (no newline in fmt) to serial, console and the .txt file. */
void report_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts a benchmark: prints "[name]". */
void report_begin(struct report *r, const char *name);
/* "EVENT: VALUE" in text, "benchmark,EVENT,VALUE" in CSV. */
void report_value(struct report *r, const char *event, const char *value);
/* "error: MESSAGE" in text, "benchmark,error,MESSAGE" in CSV; counts the error. */
void report_error(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends a benchmark: flushes both files. */
void report_end(struct report *r);

void report_close(struct report *r);

#endif
