/*
 * nb_paths.h — where the image keeps its files on the boot partition (the
 * compiled suite, the configs, the results), for every part that reads or
 * writes them.
 */
#ifndef NB_PATHS_H
#define NB_PATHS_H

/* Where the compiled suite lives on the boot partition. */
#define NB_SUITE_PATH "nanobench/suite.nb"
#define NB_DIR "nanobench"
#define NB_RESULTS_DIR "nanobench/results"

#endif
