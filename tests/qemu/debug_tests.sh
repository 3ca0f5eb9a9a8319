# tests/qemu/debug_tests.sh — -debug, -debug_trace and -debug_gdb under QEMU
# -icount 4 (sourced by tests/qemu/run.sh; uses its helpers).

# debug_block FILE NAME: the lines of benchmark NAME in a run-NNNN-debug.txt.
debug_block() {
    awk -v name="[$2]" '/^\[.*\]$/ { on = ($0 == name); next } on' "$1"
}

# debug_lines FILE NAME PATTERN: the lines of NAME's dump matching PATTERN (grep -E).
debug_lines() {
    debug_block "$1" "$2" | grep -E "$3"
}

# tests/qemu/debug.suite: exact registers, flags and memory at the breakpoint,
# on serial (framed "debug:" lines the CLI prints) and in run-0001-debug.txt;
# results as without -debug.
test_debug_dump() {
    local out f
    out=$(suite_with_errors debug tests/qemu/debug.suite -icount 4) || { echo "$out"; return 1; }
    f=$TMP/debug/run-0001-debug.txt
    [[ -f $f ]] || { echo "no $f"; ls "$TMP/debug"; return 1; }
    # Results as without -debug, and the errors of the last three.
    expect_eq "results" "[add_store]
RDTSC: 32.00
[add_store_base]
RDTSC: 32.00
[add_twice]
RDTSC: 32.00
[add_loop]
RDTSC: 48.00
[ymm_init]
RDTSC: 16.00
[no_mem]
RDTSC: 16.00
[warm_up]
RDTSC: 16.00
[cpu1]
RDTSC: 16.00
[fault]
error: #UD at main code+0x0 (copy 1 of 1, main run)
[no_such_measurement]
error: suite line 31: option -debug_at: measurement 3 does not exist (measurements 0..0, no warm-up runs)
[no_such_group]
RDTSC: 16.00
error: option -debug_at 2:main:0: the benchmark never got there (it measured 1 counter group)" \
        "$(grep -E '^(\[|RDTSC|error)' <<<"$out")" || return 1
    # The serial lines the CLI printed are the file's, with "debug: " in front.
    expect_eq "serial = file (add_store)" "$(debug_block "$f" add_store | sed 's/^/debug: /')" \
        "$(awk '/^\[add_store\]$/ { on = 1; next } /^\[/ { on = 0 } on && /^debug: / && !/machine state at|debug: layout /' <<<"$out")" || return 1
    expect_eq "add_store" "stopped: counter group 1, main run, measurement 0, processor 0: after the last copy, before the second counter read
RFLAGS 0x0000000000000202  IF IOPL=0
RAX    0x1122334455667788
RBX    0x1122334455667789
R15    0x0000000000000000
memory R14 (initially $(printf '0x%x' $(($(debug_lines "$f" add_store '^R14 ' | awk '{ print $2 }'))))): 8 bytes differ from zero
  R14+0x0: 89 77 66 55 44 33 22 11 .. .. .. .. .. .. .. ..
memory RDI" "$(debug_lines "$f" add_store '^(stopped|RFLAGS|RAX|RBX|R15|memory R14|  R14|memory RDI)' | sed 's/^memory RDI.*/memory RDI/')" || return 1
    expect_eq "add_store_base" "stopped: counter group 1, base run, measurement 0, processor 0: after the last copy, before the second counter read
RBX    0x0000000000000001
memory R14" "$(debug_lines "$f" add_store_base '^(stopped|RBX|memory R14|  R14)' | sed 's/^memory R14 .*: 0 bytes differ from zero$/memory R14/')" || return 1
    expect_eq "add_twice" "RFLAGS 0x0000000000000216  PF AF IF IOPL=0
RBX    0x22446688aaccef11
  R14+0x0: .. .. .. .. .. .. .. .. 11 ef cc aa 88 66 44 22" \
        "$(debug_lines "$f" add_twice '^(RFLAGS|RBX|  R14)')" || return 1
    expect_eq "add_loop" "RBX    0x336699cd00336699
R15    0x0000000000000000" "$(debug_lines "$f" add_loop '^(RBX|R15) ')" || return 1
    expect_eq "ymm_init" "RAX    0x0123456789abcdef
XCR0   0x0000000000000007  x87 SSE AVX
YMM3   0x0000000000000000_0123456789abcdef_0000000000000000_0123456789abcdef" \
        "$(debug_lines "$f" ymm_init '^(RAX|XCR0|YMM3) ')" || return 1
    # -no_mem: the first read clobbered RAX (RDTSC's value), R8 = -RAX, the ADD used RAX.
    local rax r8 rbx
    rax=$(debug_lines "$f" no_mem '^RAX ' | awk '{ print $2 }')
    r8=$(debug_lines "$f" no_mem '^R8 ' | awk '{ print $2 }')
    rbx=$(debug_lines "$f" no_mem '^RBX ' | awk '{ print $2 }')
    expect_eq "no_mem R8 = -RAX" "0x0000000000000000" "$(printf '0x%016x' $((r8 + rax)))" || return 1
    expect_eq "no_mem RBX = RAX + 1" "$(printf '0x%016x' $((rax + 1)))" "$rbx" || return 1
    expect_eq "no_mem note" "-no_mem: R8 holds RDTSC so far: minus the first reading (the second is added after this point)
R9     0x0000000000000000" "$(debug_lines "$f" no_mem '^(-no_mem|R9 )' | sort)" || return 1
    expect_eq "warm_up" "stopped: counter group 1, main run, warm-up -1, processor 0: after the last copy, before the second counter read
RBX    0x0000000000000002" "$(debug_lines "$f" warm_up '^(stopped|RBX)')" || return 1
    expect_eq "cpu1" "stopped: counter group 1, main run, measurement 0, processor 1: after the last copy, before the second counter read
RBX    0x1122334455667789" "$(debug_lines "$f" cpu1 '^(stopped|RBX)')" || return 1
    expect_eq "no dump after a fault" "" "$(debug_block "$f" fault)" || return 1
    # RIP: the slot + 1 of a NOP main code's function, in the generated code.
    grep -qE '^RIP    0x[0-9a-f]{16}  code\+0x[0-9a-f]+ \(the second counter read starts here\)$' \
        <(debug_block "$f" add_store) || { echo "no RIP line"; return 1; }
}
run_test debug_dump test_debug_dump

# tests/qemu/debug_trace.suite: five instructions give exactly five steps,
# each with the registers it changed and the memory it wrote.
test_debug_trace() {
    local out csv
    out=$($NB -suite tests/qemu/debug_trace.suite -icount 4 -results "$TMP/steps" 2>&1) || { echo "$out"; return 1; }
    csv=$TMP/steps/run-0001-five-steps.csv
    [[ -f $csv ]] || { echo "no $csv"; echo "$out"; return 1; }
    grep -qE '^steps: run-0001-five-steps\.trace steps 5 bytes [0-9]+ crc32 [0-9a-f]{8}$' <<<"$out" ||
        { echo "no steps line"; echo "$out"; return 1; }
    expect_eq "steps" 'step,address,offset,bytes,instruction,changes,writes
1,ADDR,0x0,48 c7 c0 05 00 00 00,"mov rax, 0x05",RAX 0x0->0x5,
2,ADDR,0x7,48 01 c0,"add rax, rax",RAX 0x5->0xa RFLAGS 0x246->0x206,
3,ADDR,0xa,49 89 06,"mov [r14], rax",,[R14] 8 bytes = 0xa
4,ADDR,0xd,31 c9,"xor ecx, ecx",RFLAGS 0x206->0x246,
5,ADDR,0xf,48 ff c9,dec rcx,RCX 0x0->0xffffffffffffffff RFLAGS 0x246->0x296,' \
        "$(sed -E 's/^([0-9]+),0x[0-9a-f]+,/\1,ADDR,/; s/\[0x[0-9a-f]+\]/[R14]/' "$csv")" || return 1
    # The listing printed under the results has the same five steps.
    expect_eq "listing" "5" "$(grep -cE '^ +[1-5]  0x[0-9a-f]{16}  \+0x' <<<"$out")"
}
run_test debug_trace test_debug_trace

# tests/qemu/debug_gdb.suite with gdb in batch mode (tests/qemu/debug_gdb.gdb):
# exact registers, stepi over the 7-byte MOV that starts the counter read,
# x/2gx $r14, a Z0 breakpoint at copy_3 (symbols relocated by qOffsets), and
# continue to the end of the suite with exact results.
test_debug_gdb() {
    command -v gdb >/dev/null || { echo "gdb is not installed (tools/install-deps.sh)"; return 1; }
    local out
    out=$($NB -suite tests/qemu/debug_gdb.suite -icount 4 -debug_gdb_batch tests/qemu/debug_gdb.gdb \
        -results "$TMP/gdb" 2>&1) || { echo "$out"; return 1; }
    expect_eq "results" "[gdb]
RDTSC: 16.00
[after]
RDTSC: 32.00" "$(grep -E '^(\[[a-z_]+\]$|RDTSC|error)' <<<"$out")" || return 1
    expect_eq "gdb" "rax 0x1122334455667788 rbx 0x4488cd115599de21
at breakpoint+1
0x0000000000000000	0x1122334455667788
\$1 = {0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff}
stepi: at breakpoint+8
Breakpoint 1, in copy_3 ()
at copy_3+0, rbx 0x22446688aaccef11
[Inferior 1 (Remote target) exited normally]" \
        "$(sed -n '/^gdb:$/,$p' <<<"$out" | grep -E '^(rax 0x|at |0x[0-9a-f]+:|\$1 |stepi|Breakpoint 1,|\[Inferior)' |
            sed -E 's/^0x[0-9a-f]+:\t//; s/^(Breakpoint 1,) 0x[0-9a-f]+ (in copy_3)/\1 \2/')" || return 1
    # info all-registers shows the registers of the target description: x87, SSE and AVX
    # (gdb shows XMM as the lower halves of YMM when the avx feature is there).
    local r
    for r in rip eflags fs st7 fop mxcsr ymm0 ymm15; do
        grep -q "^$r " <<<"$out" || { echo "no $r in gdb's info all-registers"; echo "$out"; return 1; }
    done
}
run_test debug_gdb test_debug_gdb

# Nobody attaches: the image waits -debug_wait 2 s at the breakpoint, longer
# than -timeout 1, and the benchmark still completes (the APIC-timer
# watchdog and the -timeout budget pause while stopped); the dump follows.
test_debug_wait() {
    local out
    out=$(GDB_ATTACH=manual $NB -asm_init "MOV RBX, 7" -asm "ADD RAX, RBX" -basic_mode -unroll_count 1 \
        -n_measurements 1 -warm_up_count 0 -debug_gdb -debug_wait 2 -timeout 1 -icount 4 \
        -results "$TMP/wait" 2>&1) || { echo "$out"; return 1; }
    expect_eq "results" "RDTSC: 16.00
debug: no debugger came within -debug_wait; the dump follows
RBX    0x0000000000000007" \
        "$(grep -E '^(RDTSC|error|debug: no debugger|debug: RBX)' <<<"$out" | sed 's/^debug: RBX/RBX/')" || return 1
    local ms
    ms=$(sed -n 's/^debug: stopped \([0-9]*\) ms at the breakpoint.*/\1/p' <<<"$out")
    [[ -n $ms && $ms -ge 2000 ]] || { echo "stopped ${ms:-?} ms, expected at least 2000"; echo "$out"; return 1; }
}
run_test debug_wait test_debug_wait

# The same wait with two processors and no -icount: the NMI watchdog (the
# other processor watching) has its deadline moved while stopped.
test_debug_wait_nmi() {
    local out
    out=$(GDB_ATTACH=manual QEMU_SMP=2 $NB -asm_init "MOV RBX, 7" -asm "ADD RAX, RBX" -basic_mode -unroll_count 1 \
        -n_measurements 1 -warm_up_count 0 -debug_gdb -debug_wait 3 -timeout 1 -results "$TMP/wait_nmi" 2>&1) ||
        { echo "$out"; return 1; }
    grep -q '^watchdog: NMI from another processor' "$TMP/wait_nmi/serial-0001.log" ||
        { echo "not the NMI watchdog"; return 1; }
    grep -qE '^error' <<<"$out" && { echo "$out"; return 1; }
    local ms
    ms=$(sed -n 's/^debug: stopped \([0-9]*\) ms at the breakpoint.*/\1/p' <<<"$out")
    [[ -n $ms && $ms -ge 3000 ]] || { echo "stopped ${ms:-?} ms, expected at least 3000"; echo "$out"; return 1; }
    grep -q '^debug: RBX    0x0000000000000007$' <<<"$out" || { echo "no dump"; echo "$out"; return 1; }
}
run_test debug_wait_nmi test_debug_wait_nmi
