/*
 * result_path.h — the name of a file a benchmark writes beside the run's
 * results: nanobench/results/run-NNNN-<name><suffix>, the run's .txt path
 * with "-<name><suffix>" in place of ".txt" (a -mica trace, a
 * -cycle_by_cycle table, a -debug dump).
 */
#ifndef RESULT_PATH_H
#define RESULT_PATH_H

#include <stddef.h>

#include "nb_report.h"

/*
 * Writes the path into out (cap bytes, cut to fit). The benchmark's name
 * keeps its letters, digits, '_', '-' and '.' (at most 63 of them); every
 * other character becomes '_', since FAT long names refuse some.
 */
void result_path(const struct report *r, const char *name, const char *suffix, char *out, size_t cap);

#endif
