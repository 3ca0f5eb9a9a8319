#!/usr/bin/env bash
# tests/bench/mica_dbt_speed.sh — the MICA capture benchmark (issue 23,
# make mica-dbt-bench): tests/bench/mica_gig.asm, a program of exactly
# 10^9 + 9 instructions built in the tree, analysed with every analysis of
# `-mica all` end to end through the DBT capture (qemu-x86_64 + the plugin,
# records streamed into the analyses, no trace file). Prints the wall-clock
# rate and where the CPU time went; fails under 10 M instructions/s.
#
# The wall-clock figure needs the machine's two cores to itself: with other
# work running it measures the sharing. The CPU figures do not: their sum
# over 2 is the time the same run would take on 2 idle cores at best.
#
# usage: tests/bench/mica_dbt_speed.sh NB_MICA PROGRAM [EXPECTED_COUNT]
set -euo pipefail
mica=${1:?usage: mica_dbt_speed.sh NB_MICA PROGRAM [COUNT]} prog=${2:?usage: mica_dbt_speed.sh NB_MICA PROGRAM [COUNT]}
count=${3:-1000000009}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
"$mica" -dbt -mica all -o "$tmp/out" -- "$prog" >"$tmp/report.txt" 2>"$tmp/err.txt"
cat "$tmp/err.txt"
got=$(sed -n 's/^MICA itypes: \([0-9]*\) .*/\1/p' "$tmp/report.txt")
[[ $got == "$count" ]] || { echo "mica_dbt_speed: analysed $got instructions, expected $count"; exit 1; }
line=$(grep '^nb_mica: .* M instructions/s; CPU s:' "$tmp/err.txt")
awk -v line="$line" -v n="$count" 'BEGIN {
    split(line, w, /[ ,;+]+/)
    for (i = 1; i <= length(w); i++) {
        if (w[i] == "s" && !wall) wall = w[i - 1]
        if (w[i] == "QEMU") q = w[i + 1]
        if (w[i] == "decoding") d = w[i + 1]
        if (w[i] == "analyses") { a = w[i + 1]; b = w[i + 2] }
    }
    cpu = q + d + a + b
    printf "mica -dbt -mica all: %d instructions in %.1f s wall = %.2f M instructions/s (target >= 10)\n", n, wall, n / wall / 1e6
    printf "CPU: %.1f s in all (QEMU %.1f, decoding %.1f, analyses %.1f + %.1f) = %.1f ns per instruction;\n", cpu, q, d, a, b, cpu / n * 1e9
    printf "  on 2 idle cores at best %.1f s = %.2f M instructions/s\n", cpu / 2, n / (cpu / 2) / 1e6
    exit n / wall / 1e6 >= 10 ? 0 : 1 }'
