/*
 * nb_resume.h — a run survives a machine reset.
 *
 * Before each benchmark the image writes (and flushes) nanobench/results/state:
 * which run this is, which suite entry runs next, the counts so far and a
 * checksum of the suite. When the suite ends, the state says `done`. If the
 * next boot finds an unfinished state for the same suite, it reopens the same
 * run-NNNN files, reports the benchmark that was running as
 * `error: machine reset while running`, and continues after it. A suite
 * therefore always ends, however often its benchmarks reset the machine.
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
};

/* FNV-1a 64-bit hash of the suite text: a changed suite starts a new run. */
uint64_t resume_hash(const void *data, size_t len);

/* Reads the state file; false when it is missing or unreadable. */
bool resume_read(const struct nb_platform *p, struct resume_state *st);
/* Writes and flushes the state file; returns NB_OK or an error status. */
int resume_write(const struct nb_platform *p, const struct resume_state *st);

#endif
