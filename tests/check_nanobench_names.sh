#!/usr/bin/env bash
# tests/check_nanobench_names.sh — scripts written for nanoBench read our output.
#
# nanoBench's README, "Example 1: The ADD Instruction", runs
#   -asm "ADD RAX, RBX; ADD RBX, RAX" -config configs/cfg_Skylake_common.txt
# and shows these event lines first, in this order (values aside, which need the
# hardware). `-plan` on a Skylake (family 6 model 5EH, 4 counters) must list the same
# events, in the same order, as the first ones of the counter groups (the "@PMCn"
# counter each group line adds is not part of the name), and parse every
# line of the config without a warning. Run by make test.
set -u
cd "$(dirname "$0")/.."

want="CORE_CYCLES
INST_RETIRED
UOPS_ISSUED
UOPS_EXECUTED
UOPS_DISPATCHED_PORT.PORT_0
UOPS_DISPATCHED_PORT.PORT_1
UOPS_DISPATCHED_PORT.PORT_2
UOPS_DISPATCHED_PORT.PORT_3
UOPS_DISPATCHED_PORT.PORT_4
UOPS_DISPATCHED_PORT.PORT_5
UOPS_DISPATCHED_PORT.PORT_6
UOPS_DISPATCHED_PORT.PORT_7"

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
got=$(printf '%s\n' "$out" | sed -n 's/^group [0-9]*: //p' | tr ' ' '\n' | sed 's/@.*//' | head -n 12)
if [ "$got" != "$want" ]; then
    echo "check_nanobench_names: -plan event order differs from nanoBench's README example"
    diff <(printf '%s\n' "$want") <(printf '%s\n' "$got")
    exit 1
fi
echo "check_nanobench_names: cfg_Skylake_common.txt shows nanoBench's README events in order"
