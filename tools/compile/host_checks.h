/*
 * host_checks.h — checks of a benchmark's options on the host, before any
 * image is built, for mistakes the image would otherwise find after a boot:
 * -metrics groups no metric file defines, a -mica_itypes file that is missing
 * or does not parse, nanoBench's pause/resume magic bytes in the main code
 * without -no_mem, and -expect values that are neither a number nor an event
 * any config names. Each returns 0, or -1 with the reason in `why` (the
 * caller names the benchmark and the option).
 *
 * root: the repository (NB_ROOT), whose configs/ the image gets.
 */
#ifndef HOST_CHECKS_H
#define HOST_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "bench_options.h"

/* Every group of the comma list `groups` is a `group NAME:` of some metric file (configs/metrics). */
int host_check_metrics(const char *root, const char *groups, char *why, size_t cap);

/* The -mica_itypes file (path as given, relative to the current folder) reads and parses. */
int host_check_mica_itypes(const char *path, char *why, size_t cap);

/* The main code holds no magic sequence unless -no_mem (the image refuses it otherwise). */
int host_check_magic(const struct bench_options *o, const uint8_t *main_code, size_t len,
                     char *why, size_t cap);

/*
 * Each -expect whose value is event names names at least one event some
 * config defines (the configs/ text files, the benchmark's -config / -msr_config
 * text, the fixed counters, RDTSC and the metric names); a value that is
 * none of them is a typo for a number.
 */
int host_check_expect(const char *root, const struct bench_options *o, const char *config,
                      size_t config_len, const char *msr_config, size_t msr_config_len, char *why,
                      size_t cap);

#endif
