# tests/qemu/lost_results_tests.sh — nothing lost or misread when a run goes
# wrong: a truncated serial log, -range in the CSV, print-results.sh's usage,
# QEMU's memory sized for the suite. Sourced by tests/qemu/run.sh.

# One boot of three benchmarks (b with -range); its serial log is then cut
# inside b (a cable pulled): nb_serial names a complete, b partial, c missing,
# leaves b's rows out of the CSV and exits 3.
test_truncated_serial_log() {
    printf 'a: -asm "add rax, rbx"\nb: -asm "add rax, rbx; add rbx, rax" -range\nc: -asm "nop"\n' >"$TMP/three.suite"
    $NB -suite "$TMP/three.suite" -icount 4 -results "$TMP/three" >/dev/null 2>&1 || return 1
    local log=$TMP/three/serial-0001.log
    # -range: the bounds in their own columns, the text as nanoBench prints it.
    expect_eq "csv" "benchmark,event,value,min,max
a,RDTSC,16.00,,
b,RDTSC,32.00,32.00,32.00
c,RDTSC,16.00,," "$(grep -v '^platform,' "$TMP/three/run-0001.csv")" || return 1
    grep -qx 'RDTSC: 32.00 \[32.00;32.00\]' "$TMP/three/run-0001.txt" || { echo "no range in the text"; return 1; }
    expect_eq "csv from serial" "$(cat "$TMP/three/run-0001.csv")" "$(build/host/nb_serial "$log")" || return 1
    # Cut right after b's value line.
    sed '/RDTSC: 32.00 \[32.00;32.00\]/q' "$log" >"$TMP/cut.log"
    local err rc
    err=$(build/host/nb_serial "$TMP/cut.log" -suite "$TMP/three.suite" 2>&1 >"$TMP/cut.csv")
    rc=$?
    expect_eq "exit status" 3 "$rc" || return 1
    expect_eq "messages" "nb_serial: $TMP/cut.log: run 0001 is truncated: the log ends before its end banner (nanoBench-EFI done:)
nb_serial: complete: a
nb_serial: partial: b (its rows are left out of the CSV)
nb_serial: missing: c" "$err" || return 1
    expect_eq "partial csv" "benchmark,event,value,min,max
a,RDTSC,16.00,," "$(grep -v '^platform,' "$TMP/cut.csv")" || return 1
    # Without -suite the missing ones cannot be named.
    err=$(build/host/nb_serial "$TMP/cut.log" 2>&1 >/dev/null)
    grep -qx 'nb_serial: missing: not known without -suite FILE (the suite the image ran)' <<<"$err" ||
        { echo "$err"; return 1; }
}

# tools/print-results.sh runs under set -u: without arguments it prints its usage.
test_print_results_usage() {
    local err rc
    err=$(tools/print-results.sh 2>&1)
    rc=$?
    expect_eq "exit status" 2 "$rc" || return 1
    expect_eq "usage" "usage: tools/print-results.sh RUN.txt single|suite|selftest" "$err"
}

# QEMU gets the memory the suite's areas need: a 1 GiB R14 area runs (QEMU's
# 512 MiB default could not hold it; test_area_sizes keeps QEMU_MEM=512).
test_qemu_memory_for_the_suite() {
    local out
    out=$($NB -asm "mov rax, [r14]" -r14_size 0x40000000 -icount 4 -results "$TMP/bigmem" 2>/dev/null) ||
        { echo "$out"; return 1; }
    expect_eq "result" "RDTSC: 16.00" "$out" || return 1
    out=$(QEMU_MEM=lots $NB -asm nop 2>&1)
    expect_eq "QEMU_MEM=lots" "nanobench: QEMU_MEM=lots: not a memory size (MiB, or e.g. 2G)" "$(tail -1 <<<"$out")"
}

run_test truncated_serial_log test_truncated_serial_log
run_test print_results_usage test_print_results_usage
run_test qemu_memory_for_the_suite test_qemu_memory_for_the_suite
