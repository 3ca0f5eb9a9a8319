/*
 * nb_main.h — the engine's entry point, called once by boot/efi_main.c after
 * the platform seam is filled in.
 */
#ifndef NB_MAIN_H
#define NB_MAIN_H

#include "nb_paths.h" /* NB_SUITE_PATH, NB_DIR, NB_RESULTS_DIR */
#include "nb_platform.h"

/*
 * Prints the banner and fingerprint, runs every benchmark of the suite,
 * writes the results files, prints the end banner and returns the finish
 * action the suite asked for (shutdown by default).
 */
enum nb_finish_action nb_run_image(const struct nb_platform *p);

#endif
