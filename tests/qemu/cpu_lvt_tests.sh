# tests/qemu/cpu_lvt_tests.sh — -cpu N and the local APIC around a
# measurement (docs/real-machines.md), sourced by tests/qemu/run.sh.

# issue 19's reproducer: a hang on another processor (-cpu 1, two processors,
# -icount 4: the APIC-timer watchdog) is stopped like one on the boot
# processor. OVMF wakes the AP from HLT with INIT-SIPI-SIPI for every call,
# which resets its local APIC: the watchdog is armed in the call that runs
# the code. The next benchmark on the same processor measures exactly.
test_cpu_hang_stops() {
    local out
    QEMU_SMP=2 $NB -asm 'jmp $' -cpu 1 -timeout 10 -icount 4 -results "$TMP/cpu_hang" >/dev/null 2>&1
    expect_eq "reproducer" "error: timeout after 10 s (in the base run)" \
        "$(grep '^error:' "$TMP/cpu_hang/run-0001.txt")" || return 1
    printf '%s\n' 'hang: -asm "jmp $" -cpu 1 -timeout 1' \
        'after: -asm "ADD RAX, RBX; ADD RBX, RAX" -cpu 1' >"$TMP/cpu_hang.suite"
    out=$(QEMU_SMP=2 suite_with_errors cpu_hang_suite "$TMP/cpu_hang.suite" -icount 4) || { echo "$out"; return 1; }
    expect_eq "suite" "$(printf '[hang]\nerror: timeout after 1 s (in the base run)\n[after]\nRDTSC: 32.00')" \
        "$(grep -v '^processor: \|^power: \|^smi: ' <<<"$out")"
}

run_test cpu_hang_stops test_cpu_hang_stops
