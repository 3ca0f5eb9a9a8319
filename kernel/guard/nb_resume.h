/*
 * nb_resume.h — a run survives a machine reset.
 *
 * The image writes (and flushes) nanobench/results/state: which run this is,
 * which suite entry runs next, the counts so far, a checksum of the suite,
 * and how many bytes of run-NNNN.txt/.csv are durable. When the suite ends,
 * the state says `done`.
 *
 * Two modes (nb_main.c). Batched, the normal one: results are committed and
 * the state written at most every 250 ms, with `batched 1`: entries from
 * `next` on may have run, and one of them reset the machine. The next boot
 * cuts the results files back to the recorded sizes and runs those entries
 * again, now in safe mode. Safe: the state is written before every
 * benchmark (`batched 0`) and results are flushed after it; after a reset
 * the entry at `next` is the one that was running: it is reported as
 * `error: machine reset while running`, and the run continues after it.
 * A suite therefore always ends, however often its benchmarks reset the
 * machine (a benchmark that resets it costs one extra reset).
 */
#ifndef NB_RESUME_H
#define NB_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

#define NB_STATE_PATH "nanobench/results/state"

struct resume_state {
    unsigned run;        /* run number (run-NNNN) */
    uint64_t suite_hash; /* resume_hash of the suite text */
    size_t next;         /* suite entry about to run */
    unsigned n_benchmarks, n_errors;
    bool done;
    bool batched;                /* entries from `next` on may have run: run them again */
    uint64_t txt_size, csv_size; /* durable bytes of run-NNNN.txt/.csv; ~0: unknown (keep all) */
};

/* FNV-1a 64-bit hash of the suite text: a changed suite starts a new run. */
uint64_t resume_hash(const void *data, size_t len);

/* Reads the state file; false when it is missing or unreadable. */
bool resume_read(const struct nb_platform *p, struct resume_state *st);
/* Writes and flushes the state file; returns NB_OK or an error status. */
int resume_write(const struct nb_platform *p, const struct resume_state *st);

#endif
