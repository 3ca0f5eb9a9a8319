/*
 * nb_report.h — everything the image tells the user: serial/console text and
 * the results files nanobench/results/run-NNNN.txt (the text as printed) and
 * run-NNNN.csv (benchmark,event,value).
 *
 * NNNN grows with every boot: it continues after the number kept in
 * nanobench/results/last-run and skips any file that already exists, so an
 * earlier run is never overwritten. Both files are flushed after every
 * benchmark. When the partition cannot be written (missing folder, read-only,
 * full) the report says so once and carries on over serial.
 */
#ifndef NB_REPORT_H
#define NB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_platform.h"

struct report {
    const struct nb_platform *p;
    struct nb_file *txt;
    struct nb_file *csv;
    bool files_ok;
    unsigned run_number;
    char txt_path[64];
    char csv_path[64];
    const char *benchmark; /* current benchmark, for CSV rows */
    unsigned n_benchmarks;
    unsigned n_errors;
};

/* Serial/console only; report_open_files adds the results files. */
void report_init(struct report *r, const struct nb_platform *p);
/* Creates run-NNNN.txt/.csv; on failure prints why and stays serial-only. */
void report_open_files(struct report *r);

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
