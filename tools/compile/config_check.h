/*
 * config_check.h — the host's check of -config and -msr_config contents,
 * before an image is built, with the parsers the image uses
 * (pmu/pmu_event.c, pmu/pmu_msr_config.c). Under QEMU the image has no PMU
 * and never reads an event config, and on a lab machine it would only skip
 * a bad line with a warning naming its own copy of the file: here each
 * problem names the user's file and line.
 *
 * The machine is not known yet, so an event line is an error only when no
 * processor the image supports would accept it: it is parsed as for an Intel
 * and as for an AMD processor with every counter (PMU_MAX_GP) and AnyThread
 * available, and refused by both. A line only one vendor accepts (AMD's
 * 3-digit event codes, Intel's .AnyT and .MSR_RSP0=) is left to the machine.
 */
#ifndef CONFIG_CHECK_H
#define CONFIG_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Each problem is printed as "nanobench: FILE:LINE: message"; returns their
 * count. Without `strict` (-strict_config) an event line no processor accepts
 * is skipped as nanoBench skips it: a warning naming the line, not an error
 * (the image skips it too).
 */
int config_check_events(const char *text, size_t len, const char *file, bool strict);
int config_check_msr(const char *text, size_t len, const char *file);

#endif
