/*
 * nb_paths.h — where the image's files live on the boot partition: the
 * compiled suite, the folder of configs and code, and the results folder.
 * Here, low in the rooms (kernel/rooms.txt), so that the results writer and
 * the counters read the same names as the entry (nb_main.h) without
 * including it.
 */
#ifndef NB_PATHS_H
#define NB_PATHS_H

/* Where the compiled suite lives on the boot partition. */
#define NB_SUITE_PATH "nanobench/suite.nb"
#define NB_DIR "nanobench"
#define NB_RESULTS_DIR "nanobench/results"

#endif
