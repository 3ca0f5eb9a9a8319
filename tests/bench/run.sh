#!/usr/bin/env bash
# tests/bench/run.sh — the speed figures of docs/speed.md, as ratios measured in
# one run on one machine (absolute seconds depend on the machine and its load;
# the ratios much less). Called by `make bench` with the folder holding the
# yardstick app (tests/bench/bare_boot.c, built by tests/bench/bench.mk).
#
#   round trip      tools/nanobench -asm "ADD RAX, RBX" / booting bare_boot.efi
#   per benchmark   (400-benchmark suite - 100-benchmark suite) / 300, default
#                   options and -n_measurements 1 -unroll_count 1
#   host            a 1000-benchmark suite to an image (-image), no boot
#
# Each figure is the median of RUNS runs (default 3). QEMU runs as
# tools/nanobench would run it (KVM when usable, TCG otherwise).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${1:-build/bench}
RUNS=${RUNS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nb-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT

now() { date +%s.%N; }
# median_time CMD...: runs CMD RUNS times (output discarded), prints the median seconds.
median_time() {
    local times=() t0 t1
    for ((i = 0; i < RUNS; i++)); do
        t0=$(now)
        "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; exit 1; }
        t1=$(now)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
suite() { # suite N OPTIONS: N benchmarks of ADD RAX, RBX
    local f=$TMP/suite-$1-${2// /_}.suite
    for ((i = 0; i < $1; i++)); do echo "b$i: -asm \"ADD RAX, RBX\" $2"; done >"$f"
    echo "$f"
}

mkdir -p "$TMP/bare/EFI/BOOT"
cp "$BUILD/bare/EFI/BOOT/BOOTX64.EFI" "$TMP/bare/EFI/BOOT/"
images/mkimage.sh "$TMP/bare.img" "$TMP/bare"
bare=$(median_time images/qemu-run.sh "$TMP/bare.img" "$TMP/bare.log")
grep -q 'bare boot' "$TMP/bare.log" || { echo "bench: the yardstick app did not print its line" >&2; exit 1; }
trip=$(median_time tools/nanobench -asm "ADD RAX, RBX" -results "$TMP/r")

s100=$(suite 100 "") s400=$(suite 400 "")
t100=$(median_time tools/nanobench -suite "$s100" -results "$TMP/r")
t400=$(median_time tools/nanobench -suite "$s400" -results "$TMP/r")
m100=$(suite 100 "-n_measurements 1 -unroll_count 1") m400=$(suite 400 "-n_measurements 1 -unroll_count 1")
u100=$(median_time tools/nanobench -suite "$m100" -results "$TMP/r")
u400=$(median_time tools/nanobench -suite "$m400" -results "$TMP/r")
s1000=$(suite 1000 "")
host=$(median_time tools/nanobench -suite "$s1000" -image "$TMP/s1000.img")

awk -v bare="$bare" -v trip="$trip" -v t100="$t100" -v t400="$t400" -v u100="$u100" \
    -v u400="$u400" -v host="$host" -v runs="$RUNS" 'BEGIN {
    printf "bench: medians of %d runs\n", runs
    printf "bare OVMF boot of a one-line app      %6.2f s\n", bare
    printf "round trip -asm \"ADD RAX, RBX\"        %6.2f s   %.2fx the bare boot (target <= 1.10x)\n", trip, trip / bare
    printf "per benchmark, default options        %6.1f ms  (target <= 5 ms)\n", (t400 - t100) / 300 * 1000
    printf "per benchmark, -n_measurements 1 -unroll_count 1 %6.1f ms  (target <= 3 ms)\n", (u400 - u100) / 300 * 1000
    printf "1000-benchmark suite to an image      %6.2f s   (target <= 1 s)\n", host
}'
