#!/usr/bin/env bash
# tools/print-results.sh — prints the benchmark results of a run report the
# way nanoBench prints them (tools/results.awk does the work).
#
# usage: tools/print-results.sh RUN.txt single|suite
# Each error line is printed once: under its [name] on stdout in a suite,
# on stderr for a single benchmark. Exit status: 0, 1 when a benchmark
# reported an error, 3 when the report has no end banner (the run died).
set -euo pipefail
exec awk -v mode="$2" -f "$(dirname "${BASH_SOURCE[0]}")/results.awk" "$1"
