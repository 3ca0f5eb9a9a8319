#!/usr/bin/env bash
# tests/mica_cli_test.sh — nb_mica end to end (make mica-test): a generated
# trace named like the image's (run-NNNN-<benchmark>.trace) in a results
# folder, analysed by file and by folder; exact numbers from the known loop;
# and the refusals (damaged trace, bad options) with their exit status.
#
# The ptrace capture (nb_mica -- PROGRAM): /bin/true with its dynamic
# loader, and benchmark code between INT3 markers (tests/mica/mica_runner.c)
# with exact numbers.
#
# usage: tests/mica_cli_test.sh MICA_GEN_TRACE NB_MICA MICA_RUNNER
set -uo pipefail
gen=${1:?usage: mica_cli_test.sh GEN NB_MICA RUNNER} mica=${2:?usage: mica_cli_test.sh GEN NB_MICA RUNNER}
runner=${3:?usage: mica_cli_test.sh GEN NB_MICA RUNNER}
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

# nb_mica -- PROGRAM: the whole program under ptrace, loader included.
"$mica" -o "$tmp/pt" -- /bin/true >"$tmp/pt.txt" 2>"$tmp/pt.err"
check "ptrace /bin/true: exit 0" test $? -eq 0
check "ptrace /bin/true: trace written" test -s "$tmp/pt/true.trace"
check "ptrace /bin/true: report" grep -q '^MICA itypes: [1-9][0-9]* ' "$tmp/pt.txt"
check "ptrace /bin/true: count said" grep -q '/bin/true: [0-9]* instructions traced' "$tmp/pt.err"
check "ptrace /bin/true: header count = itypes count" test \
    "$(od -An -tu8 -j 16 -N 8 "$tmp/pt/true.trace" | tr -d ' ')" = \
    "$(sed -n 's/^MICA itypes: \([0-9]*\) .*/\1/p' "$tmp/pt.txt")"
# A static program of exactly 14 instructions (MOV, 5 x DEC/JNZ, MOV, XOR,
# SYSCALL): the first one is recorded once, not twice (issue 23).
printf 'bits 64\nglobal _start\n_start:\nmov ecx, 5\nl: dec ecx\njnz l\nmov eax, 60\nxor edi, edi\nsyscall\n' \
    >"$tmp/exit14.asm"
nasm -f elf64 -o "$tmp/exit14.o" "$tmp/exit14.asm" && ld -o "$tmp/exit14" "$tmp/exit14.o"
"$mica" -o "$tmp/pt14" -mica itypes -- "$tmp/exit14" >"$tmp/pt14.txt" 2>&1
check "ptrace static program: exit 0" test $? -eq 0
check "ptrace static program: 14 instructions, no phantom first record" \
    grep -qx 'MICA itypes: 14 0 0 5 8 0 0 0 0 0 1 0 0' "$tmp/pt14.txt"
"$mica" -o "$tmp/pt2" -mica_max_instructions 500 -mica itypes -- /bin/true >"$tmp/pt2.txt" 2>"$tmp/pt2.err"
check "ptrace limit: exit 1" test $? -eq 1
check "ptrace limit: message" grep -q 'more than -mica_max_instructions 500 instructions' "$tmp/pt2.err"
check "ptrace limit: the 500 are analysed" grep -qx 'MICA itypes: 500 .*' "$tmp/pt2.txt"
"$mica" -o "$tmp/pt3" -- "$tmp/no-such-program" 2>"$tmp/pt3.err" >/dev/null
check "ptrace missing program: exit 1" test $? -eq 1
check "ptrace missing program: message" grep -q 'no-such-program: cannot run it: No such file' "$tmp/pt3.err"

# Between INT3 markers: 3 iterations of 2 copies of ADD RAX, RBX; ADD RBX, RAX,
# then DEC R15 and JNZ: 18 instructions, 3 control, 15 arithmetic.
printf 'bits 64\nadd rax, rbx\nadd rbx, rax\n' >"$tmp/add.asm"
nasm -f bin -o "$tmp/add.bin" "$tmp/add.asm"
"$mica" -o "$tmp/pt4" -int3_markers -- "$runner" -unroll_count 2 -loop_count 3 "$tmp/add.bin" \
    >"$tmp/pt4.txt" 2>"$tmp/pt4.err"
check "int3 markers: exit 0" test $? -eq 0
check "int3 markers: itypes" grep -qx 'MICA itypes: 18 0 0 3 15 0 0 0 0 0 0 0 0' "$tmp/pt4.txt"
check "int3 markers: ppm" grep -qx 'MICA ppm: 18 2 2 2 2 2 2 2 2 2 2 2 2 3 1 1' "$tmp/pt4.txt"
# REP STOSB with RCX = 3: one record per iteration; PUSHF's TF is the program's.
printf 'bits 64\nmov rcx, 3\n' >"$tmp/rcx.asm"; nasm -f bin -o "$tmp/rcx.bin" "$tmp/rcx.asm"
printf 'bits 64\nrep stosb\npushfq\npop rax\n' >"$tmp/rep.asm"; nasm -f bin -o "$tmp/rep.bin" "$tmp/rep.asm"
"$mica" -o "$tmp/pt5" -int3_markers -mica itypes -- "$runner" -init "$tmp/rcx.bin" "$tmp/rep.bin" \
    >"$tmp/pt5.txt" 2>&1
check "int3 markers: rep" grep -qx 'MICA itypes: 5 1 4 0 0 0 2 0 3 0 0 0 0' "$tmp/pt5.txt"
# A fault between the markers: the faulting load is the last record (once),
# the header says fault, vector 14 (#PF).
printf 'bits 64\nnop\nmov rax, [0]\n' >"$tmp/pf.asm"; nasm -f bin -o "$tmp/pf.bin" "$tmp/pf.asm"
"$mica" -o "$tmp/pt7" -int3_markers -mica itypes -- "$runner" "$tmp/pf.bin" >"$tmp/pt7.txt" 2>"$tmp/pt7.err"
check "fault: exit 0" test $? -eq 0
check "fault: itypes" grep -qx 'MICA itypes: 2 1 0 0 1 0 0 0 0 0 0 1 0' "$tmp/pt7.txt"
check "fault: vector" grep -q 'stopped on exception vector 14' "$tmp/pt7.txt"
check "fault: killed said" grep -q 'killed by signal 11' "$tmp/pt7.err"
# A NOP with a memory operand: a read by default (MICA on Pin), none with
# -mica_nop_mem off (issue 23).
printf 'bits 64\nnop dword [r14+8]\n' >"$tmp/nopm.asm"; nasm -f bin -o "$tmp/nopm.bin" "$tmp/nopm.asm"
"$mica" -o "$tmp/pt8" -int3_markers -mica itypes,memfootprint -- "$runner" -unroll_count 4 "$tmp/nopm.bin" \
    >"$tmp/pt8.txt" 2>&1
check "nop mem on: itypes" grep -qx 'MICA itypes: 4 4 0 0 0 0 0 0 0 0 0 4 0' "$tmp/pt8.txt"
check "nop mem on: one data block" grep -qx 'MICA memfootprint: 1 1 1 1' "$tmp/pt8.txt"
"$mica" -o "$tmp/pt9" -mica_nop_mem off -int3_markers -mica itypes,memfootprint -- "$runner" -unroll_count 4 \
    "$tmp/nopm.bin" >"$tmp/pt9.txt" 2>&1
check "nop mem off: itypes" grep -qx 'MICA itypes: 4 0 0 0 0 0 0 0 0 0 0 4 0' "$tmp/pt9.txt"
check "nop mem off: no data" grep -qx 'MICA memfootprint: 0 0 1 1' "$tmp/pt9.txt"
"$mica" "$res" -mica_nop_mem maybe 2>"$tmp/e7.txt"; check "nop mem maybe: exit 2" test $? -eq 2
check "nop mem maybe: message" grep -q -- '-mica_nop_mem maybe: give on or off' "$tmp/e7.txt"
# -h and --help: the usage on stdout, exit 0.
"$mica" -h >"$tmp/h.txt" 2>&1; check "-h: exit 0" test $? -eq 0
check "-h: usage" grep -q '^usage: nb_mica TRACE' "$tmp/h.txt"
check "-h: lists -mica_nop_mem" grep -q -- '-mica_nop_mem on|off' "$tmp/h.txt"
"$mica" --help 2>/dev/null | grep -q '^usage: nb_mica'; check "--help: usage on stdout" test $? -eq 0
"$mica" -o "$tmp/pt6" -int3_markers -- /bin/true >/dev/null 2>"$tmp/pt6.err"
check "int3 markers missing: exit 1" test $? -eq 1
check "int3 markers missing: message" grep -q 'ended before its first' "$tmp/pt6.err"

echo "mica-test: $fails failed"
exit $((fails > 0))
