#!/usr/bin/env bash
# tests/mica_cli_test.sh — nb_mica end to end (make mica-test): a generated
# trace named like the image's (run-NNNN-<benchmark>.trace) in a results
# folder, analysed by file and by folder; exact numbers from the known loop;
# and the refusals (damaged trace, bad options) with their exit status.
#
# usage: tests/mica_cli_test.sh MICA_GEN_TRACE NB_MICA
set -uo pipefail
gen=${1:?usage: mica_cli_test.sh GEN NB_MICA} mica=${2:?usage: mica_cli_test.sh GEN NB_MICA}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

res=$tmp/results
mkdir -p "$res"
"$gen" "$res/run-0007-loop.trace" 1100 # 110 iterations of the 10 instructions up to jnz
"$gen" "$res/run-0007-short.trace" 22

# By folder: both traces, one CSV for run 0007, MICA's files per benchmark.
"$mica" "$res" >"$tmp/out.txt" 2>"$tmp/err.txt"
check "folder: exit 0" test $? -eq 0
check "folder: report names the benchmark" grep -qx 'loop:' "$tmp/out.txt"
# Per iteration: load and pop read, store and push write, one jnz, 7 in
# arithmetic (mov, add, mov, imul, xor, inc, and), push and pop in stack.
check "itypes line" grep -qx 'MICA itypes: 1100 220 220 110 770 0 220 0 0 0 0 0 0' "$tmp/out.txt"
check "csv header once" test "$(grep -c '^benchmark,event,value$' "$res/run-0007-mica.csv")" -eq 1
check "csv loop row" grep -qx 'loop,mica.itypes.instructions,1100' "$res/run-0007-mica.csv"
check "csv short row" grep -qx 'short,mica.ppm.branches,2' "$res/run-0007-mica.csv"
check "MICA file" grep -qx 'number of instructions: 1100' "$res/run-0007-mica/loop/itypes_full_int_pin.out"

# Intervals: rows with .k, MICA's phases files.
"$mica" "$res/run-0007-loop.trace" -mica itypes,memfootprint -mica_interval 500 -o "$tmp/iv" -q
check "interval: exit 0" test $? -eq 0
check "interval rows" grep -qx 'loop,mica.itypes.instructions.3,100' "$tmp/iv/run-0007-mica.csv"
check "interval whole-run row" grep -qx 'loop,mica.itypes.instructions,1100' "$tmp/iv/run-0007-mica.csv"
check "phases file" test "$(wc -l <"$tmp/iv/run-0007-mica/loop/itypes_phases_int_pin.out")" -eq 4

# A damaged trace is named with its byte offset, the other one is still analysed.
head -c 300 "$res/run-0007-loop.trace" >"$tmp/cut.trace"
"$mica" "$tmp/cut.trace" "$res/run-0007-short.trace" -o "$tmp/o2" >"$tmp/out2.txt" 2>"$tmp/err2.txt"
check "damaged: exit 1" test $? -eq 1
check "damaged: message" grep -q 'cut.trace: byte offset 300: truncated' "$tmp/err2.txt"
check "damaged: others still run" grep -qx 'short,mica.itypes.instructions,22' "$tmp/o2/run-0007-mica.csv"

# Refusals: exit status 2, a message that names the problem.
"$mica" "$res" -mica itypes,bogus 2>"$tmp/e3.txt"; check "unknown analysis: exit 2" test $? -eq 2
check "unknown analysis: message" grep -q 'bogus' "$tmp/e3.txt"
"$mica" "$res" -mica_interval 300 2>"$tmp/e4.txt"; check "interval 300: exit 2" test $? -eq 2
check "interval 300: message" grep -q 'multiple of 200' "$tmp/e4.txt"
"$mica" "$res" -mica_block_size 0 2>/dev/null; check "block size 0: exit 2" test $? -eq 2
printf '0, 0, CATEGORY, NOP\n1, 0, CATEGORY, BOGUS\n' >"$tmp/bad.spec"
"$mica" "$res" -mica_itypes "$tmp/bad.spec" 2>"$tmp/e5.txt"; check "bad spec: exit 2" test $? -eq 2
check "bad spec: file:line" grep -q 'bad.spec:2: unknown XED category' "$tmp/e5.txt"
"$mica" "$res/run-0007-loop.trace" -mica_max_instructions 1000 -o "$tmp/o3" 2>"$tmp/e6.txt" >/dev/null
check "max instructions: exit 1" test $? -eq 1
check "max instructions: message" grep -q 'more than the limit of 1000' "$tmp/e6.txt"

echo "mica-test: $fails failed"
exit $((fails > 0))
