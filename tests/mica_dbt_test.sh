#!/usr/bin/env bash
# tests/mica_dbt_test.sh — nb_mica -dbt (QEMU user-mode TCG plugin) end to
# end (make mica-dbt-test, and test_mica_dbt of tests/qemu/run.sh):
#  - five small static programs (tests/mica/progs/*.asm) analysed with
#    `-mica all` by the ptrace capture and by the DBT capture give identical
#    outputs: the report, the CSV and every MICA file, byte for byte
#    (-mica_nop_mem off on the ptrace side: the DBT path never sees a NOP's
#    operand; the programs align RSP to a page first, so stack offsets match);
#  - exact itypes lines where counting by hand is easy;
#  - intervals, the instruction limit, a crash, a dynamically linked program,
#    and the refusals.
#
# usage: tests/mica_dbt_test.sh NB_MICA PROGS_DIR
set -uo pipefail
mica=${1:?usage: mica_dbt_test.sh NB_MICA PROGS_DIR} progs=${2:?usage: mica_dbt_test.sh NB_MICA PROGS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
same_outputs() { # ptrace_dir dbt_dir
    diff -r "$1/mica" "$2/mica" >/dev/null && cmp -s "$1/mica.csv" "$2/mica.csv"
}

for p in loops memory strings branches float; do
    "$mica" -o "$tmp/pt-$p" -mica_nop_mem off -mica_max_instructions 0 -- "$progs/$p" \
        >"$tmp/pt-$p.txt" 2>"$tmp/pt-$p.err"
    check "$p: ptrace exit 0" test $? -eq 0
    "$mica" -o "$tmp/dbt-$p" -dbt -- "$progs/$p" >"$tmp/dbt-$p.txt" 2>"$tmp/dbt-$p.err"
    check "$p: dbt exit 0" test $? -eq 0
    check "$p: dbt says what it analysed" grep -q "instructions analysed through QEMU (DBT)" "$tmp/dbt-$p.err"
    check "$p: same report" cmp -s "$tmp/pt-$p.txt" "$tmp/dbt-$p.txt"
    check "$p: same CSV and MICA files" same_outputs "$tmp/pt-$p" "$tmp/dbt-$p"
done
# loops: 4 + 40 x (MOV + 50 x 7 + SUB/JNZ) + 3 = 14127 instructions; 2040 branches
# (control), 2001 shifts/rotates (system: ROL is ROTATE; SYSCALL).
check "loops: itypes" grep -qx 'MICA itypes: 14127 0 0 2040 8086 0 0 2000 0 0 2001 0 0' "$tmp/dbt-loops.txt"
# strings: 20 rounds; REP MOVSB 44 iterations, REP STOSQ 64, REPE CMPSB 21, REPNE SCASB 42,
# 10 LODSB, MOVSQ, CMPSQ: 182 string records per round.
check "strings: string records" grep -q '^MICA itypes: 4626 2300 2200 220 605 0 0 0 3580 ' "$tmp/dbt-strings.txt"
# N_hpc: the 1046 other records + 20 x (4 REP instructions counted once + 10 LODSB + MOVSQ + CMPSQ).
check "strings: N_hpc counts one per REP" \
    grep -qx 'number of instructions: 1366' "$tmp/dbt-strings/mica/strings/itypes_full_int_pin.out"

# Intervals (ilp's batches, the per-interval resets) agree too.
"$mica" -o "$tmp/pt-iv" -mica_nop_mem off -mica_interval 2000 -- "$progs/memory" >/dev/null 2>&1
"$mica" -o "$tmp/dbt-iv" -dbt -mica_interval 2000 -- "$progs/memory" >/dev/null 2>&1
check "intervals: same CSV and MICA files" same_outputs "$tmp/pt-iv" "$tmp/dbt-iv"
check "intervals: 7 lines and the trailer" \
    test "$(wc -l <"$tmp/dbt-iv/mica/memory/itypes_phases_int_pin.out")" -eq 8

# The limit: the first N instructions are analysed, exit 1, the program runs on.
"$mica" -o "$tmp/lim" -dbt -mica itypes -mica_max_instructions 500 -- "$progs/branches" >"$tmp/lim.txt" 2>"$tmp/lim.err"
check "limit: exit 1" test $? -eq 1
check "limit: message" grep -q 'more than -mica_max_instructions 500 instructions' "$tmp/lim.err"
check "limit: 500 analysed" grep -q '^MICA itypes: 500 ' "$tmp/lim.txt"

# Stopped by the limit on a JNZ that falls through (instruction 355 of loops:
# 4 + MOV + 50 x 7): both captures know where it went, neither calls it taken.
"$mica" -o "$tmp/pt-lim" -mica_nop_mem off -mica_max_instructions 355 -- "$progs/loops" >/dev/null 2>&1
"$mica" -o "$tmp/dbt-lim" -dbt -mica_max_instructions 355 -- "$progs/loops" >/dev/null 2>&1
check "limit on a branch: same outputs" same_outputs "$tmp/pt-lim" "$tmp/dbt-lim"
# 49 taken then 1 not taken: branches 50, taken = min(49, 1) = 1, one transition.
check "limit on a branch: not taken" grep -qx 'loops,mica.ppm.transitions,1' "$tmp/dbt-lim/mica.csv"

# A program that forks: only the initial process is recorded (the child shares
# the ring and must stay silent). Parent: AND, MOV, SYSCALL (fork), MOV, MOV,
# 1000 x DEC/JNZ, TEST, JZ, 5 + SYSCALL (wait4), MOV, XOR, SYSCALL = 2016.
cat >"$tmp/fork.asm" <<'ASM'
bits 64
global _start
_start:
    and rsp, -4096
    mov eax, 57
    syscall
    mov r12, rax
    mov ecx, 1000
spin:
    dec ecx
    jnz spin
    test r12, r12
    jz done
    mov eax, 61
    mov rdi, -1
    xor esi, esi
    xor edx, edx
    xor r10d, r10d
    syscall
done:
    mov eax, 60
    xor edi, edi
    syscall
ASM
nasm -f elf64 -o "$tmp/fork.o" "$tmp/fork.asm" && ld -o "$tmp/fork" "$tmp/fork.o"
"$mica" -o "$tmp/fork-out" -dbt -mica itypes -- "$tmp/fork" >"$tmp/fork.txt" 2>"$tmp/fork.err"
check "fork: exit 0" test $? -eq 0
check "fork: the parent's 2016 instructions only" grep -q '^MICA itypes: 2016 ' "$tmp/fork.txt"

# A dynamically linked program: the loader and libc start-up under QEMU.
"$mica" -o "$tmp/true" -dbt -mica itypes -- /bin/true >"$tmp/true.txt" 2>"$tmp/true.err"
check "/bin/true: exit 0" test $? -eq 0
check "/bin/true: analysed" grep -q '^MICA itypes: [1-9][0-9]* ' "$tmp/true.txt"

# A program killed by a signal: its records up to the fault are analysed.
printf 'bits 64\nglobal _start\n_start:\nnop\nmov rax, [0]\n' >"$tmp/pf.asm"
nasm -f elf64 -o "$tmp/pf.o" "$tmp/pf.asm" && ld -o "$tmp/pf" "$tmp/pf.o"
"$mica" -o "$tmp/pf-out" -dbt -mica itypes -- "$tmp/pf" >"$tmp/pf.txt" 2>"$tmp/pf.err"
check "crash: exit 0" test $? -eq 0
check "crash: killed said" grep -q 'killed by signal 11' "$tmp/pf.err"
check "crash: the NOP and the faulting load" grep -q '^MICA itypes: 2 ' "$tmp/pf.txt"

# AVX-512 (TCG lacks it): a clear error pointing to the ptrace capture.
printf 'bits 64\nglobal _start\n_start:\nvpaddd zmm0, zmm1, zmm2\nmov eax, 60\nxor edi, edi\nsyscall\n' >"$tmp/z.asm"
nasm -f elf64 -o "$tmp/z.o" "$tmp/z.asm" && ld -o "$tmp/z" "$tmp/z.o"
"$mica" -o "$tmp/z-out" -dbt -mica itypes -- "$tmp/z" >/dev/null 2>"$tmp/z.err"
check "AVX-512: exit 1" test $? -eq 1
check "AVX-512: message" grep -q "undecodable instruction at 0x401000: 62 (as QEMU read it.*use the ptrace capture" "$tmp/z.err"

# Refusals.
"$mica" -dbt -int3_markers -- "$progs/loops" 2>"$tmp/r1.err"; check "-dbt -int3_markers: exit 2" test $? -eq 2
check "-dbt -int3_markers: message" grep -q 'trace between markers with the ptrace capture' "$tmp/r1.err"
"$mica" -dbt -mica_nop_mem on -- "$progs/loops" 2>"$tmp/r2.err"; check "-dbt -mica_nop_mem on: exit 2" test $? -eq 2
check "-dbt -mica_nop_mem on: message" grep -q "QEMU makes no access for a NOP's memory operand" "$tmp/r2.err"
NB_MICA_QEMU=/nonexistent/qemu-x86_64 "$mica" -o "$tmp/r3" -dbt -- "$progs/loops" 2>"$tmp/r3.err" >/dev/null
check "no QEMU: exit 1" test $? -eq 1
check "no QEMU: message" grep -q 'cannot run it: No such file or directory (install qemu-user' "$tmp/r3.err"
"$mica" -dbt "$tmp/x.trace" 2>/dev/null; check "-dbt without --: exit 2" test $? -eq 2

echo "mica-dbt-test: $fails failed"
exit $((fails > 0))
