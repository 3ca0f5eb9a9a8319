#!/usr/bin/env bash
# tools/print-results.sh — prints the benchmark results of a run report the
# way nanoBench prints them (tools/results.awk does the work).
#
# usage: tools/print-results.sh RUN.txt single|suite|selftest
# Each error line is printed once: under its [name] on stdout in a suite,
# on stderr for a single benchmark. Exit status: 0, 1 when a benchmark
# reported an error or an -expect check failed, 2 on a wrong command line,
# 3 when the report has no end banner (the run died).
set -euo pipefail
usage() {
    echo "usage: tools/print-results.sh RUN.txt single|suite|selftest" >&2
    exit 2
}
[[ $# -eq 2 ]] || usage
[[ $2 == single || $2 == suite || $2 == selftest ]] || usage
[[ -r $1 ]] || { echo "print-results: cannot read $1" >&2; exit 2; }
exec awk -v mode="$2" -f "$(dirname "${BASH_SOURCE[0]}")/results.awk" "$1"
