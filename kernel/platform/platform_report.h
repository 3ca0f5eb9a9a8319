/*
 * platform_report.h — Codemon's Sys_info for the fingerprint: caches and
 * TLBs (CPUID), memory (UEFI memory map), firmware and SMBIOS facts, the TSC
 * frequency from every source, the paging of the identity map.
 *
 * Every fact is one line `platform: KEY = VALUE` in the text and serial
 * output and one CSV row `platform,KEY,VALUE` (tools/nb_serial rebuilds the
 * rows from the lines). Keys are stable (docs/results.md, "Platform report"); sizes
 * are in bytes, numbers in decimal. A table the machine does not provide
 * gives a `platform: KEY = missing (why)` line for its group and no rows
 * with invented values.
 */
#ifndef PLATFORM_REPORT_H
#define PLATFORM_REPORT_H

#include "machine.h"
#include "nb_platform.h"
#include "nb_report.h"

void platform_report(struct report *r, const struct nb_platform *p, const struct machine_info *m);

#endif
