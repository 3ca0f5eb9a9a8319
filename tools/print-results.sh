#!/usr/bin/env bash
# tools/print-results.sh — prints the benchmark results of a run report the
# way nanoBench prints them.
#
# usage: tools/print-results.sh RUN.txt single|suite
#   single: the lines of the only benchmark, without its [name] header
#   suite:  every benchmark as "[name]" followed by its lines
# Error lines go to stderr as well. Exit status: 0, 1 when a benchmark
# reported an error, 3 when the report has no end banner (the run died).
set -euo pipefail
report=$1
mode=$2

awk -v mode="$mode" '
    /^nanoBench-EFI done:/ { done = 1; inside = 0; next }
    /^nanoBench-EFI [0-9]/ { inside = 0; next }   # the banner of a boot that resumed the run
    /^pmu: none usable:/ { if (!(seen[$0]++)) print "nanobench: " $0 > "/dev/stderr"; next }
    /^(pmu|processor|power|smi|frequency): / { if (inside) print > "/dev/stderr"; next }
    /^\[[A-Za-z0-9_.-]+\]$/ { inside = 1; if (mode == "suite") print; next }
    inside {
        if ($0 ~ /^error: /) { errors++; print > "/dev/stderr" }
        if ($0 ~ /^warning: /) { print > "/dev/stderr"; next }
        if (mode == "suite" || $0 !~ /^error: /) print
    }
    END {
        if (!done) { print "nanobench: the run ended early (no end banner in the report)" > "/dev/stderr"; exit 3 }
        exit errors ? 1 : 0
    }
' "$report"
