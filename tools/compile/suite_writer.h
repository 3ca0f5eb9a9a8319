/*
 * suite_writer.h — writes the compiled suite (nanobench/suite.nb) that the
 * image runs: every benchmark on one line with its options spelled out in
 * full (no abbreviations, no -asm: code comes as -code blobs), so the target
 * parser sees exactly what the host validated.
 */
#ifndef SUITE_WRITER_H
#define SUITE_WRITER_H

#include <stdio.h>

#include "bench_options.h"

/* One line `name: -code ... -n_measurements ...` for a benchmark. */
/* config paths: where the benchmark's -config / -msr_config files are on the image, or NULL. */
void suite_write_benchmark(FILE *f, const char *name, const struct bench_options *o,
                           const char *const code_paths[PART_COUNT], const char *config_path,
                           const char *msr_config_path);

#endif
