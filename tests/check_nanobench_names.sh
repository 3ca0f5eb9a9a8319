#!/usr/bin/env bash
# tests/check_nanobench_names.sh — scripts written for nanoBench read our output.
#
# nanoBench's README, "Example 1: The ADD Instruction", runs
#   -asm "ADD RAX, RBX; ADD RBX, RAX" -config configs/cfg_Skylake_common.txt
# and shows the config's events in the config's order. The README's output predates
# nanoBench's December 2021 configs (IDQ.MITE_UOPS, IDQ.DSB_UOPS, IDQ.MS_UOPS and
# LSD.UOPS after INST_RETIRED); the names and order expected here are those of
# nanoBench's current cfg_Skylake_common.txt, kept as data in
# tests/configgen/nanobench_common_names/ (with the commit they are from). `-plan` on a
# Skylake (family 6 model 5EH, 4 counters) must list the same events, in the same
# order, as the first ones of the counter groups (the "@PMCn" counter each group line
# adds is not part of the name), and parse every line of the config without a
# warning. Run by make test.
set -u
cd "$(dirname "$0")/.."

want=$(grep -v '^#' tests/configgen/nanobench_common_names/cfg_Skylake_common.txt)
nwant=$(printf '%s\n' "$want" | grep -c .)

err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$(tools/nanobench -plan -plan_cpu intel:6:0x5E:4 -asm "ADD RAX, RBX; ADD RBX, RAX" \
      -config configs/cfg_Skylake_common.txt 2>"$err") || { cat "$err"; echo "check_nanobench_names: -plan failed"; exit 1; }
# Parser warnings name the file and line; other stderr (make's jobserver note when
# tools/nanobench brings the build up to date under make -j) is not about the config.
if grep -q 'cfg_Skylake_common.txt:' "$err"; then
    cat "$err"
    echo "check_nanobench_names: configs/cfg_Skylake_common.txt: warnings from the parser"
    exit 1
fi
got=$(printf '%s\n' "$out" | sed -n 's/^group [0-9]*: //p' | tr ' ' '\n' | sed 's/@.*//' | head -n "$nwant")
if [ "$got" != "$want" ]; then
    echo "check_nanobench_names: -plan event order differs from nanoBench's cfg_Skylake_common.txt"
    diff <(printf '%s\n' "$want") <(printf '%s\n' "$got")
    exit 1
fi
echo "check_nanobench_names: cfg_Skylake_common.txt shows nanoBench's $nwant events in order"
