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

# A 73-benchmark suite on -cpu 1 (two processors, -icount 4) completes, every
# benchmark exact. Processor 1 is identified and set up once and kept for
# the next benchmarks there (before, each benchmark's hundred-odd firmware
# calls to it, each a wake-up of the AP, took about 6 s under QEMU, and the
# suite ran past QEMU's 300 s limit at benchmark 43); one on the boot
# processor in between (-cpu 0) changes nothing.
test_cpu_suite_73() {
    local i out want=""
    {
        echo "defaults: -cpu 1"
        for i in $(seq 1 73); do
            if [[ $i -eq 37 ]]; then
                echo "b$i: -asm \"ADD RAX, RBX; ADD RBX, RAX\" -cpu 0"
            else
                echo "b$i: -asm \"ADD RAX, RBX; ADD RBX, RAX\""
            fi
        done
    } >"$TMP/cpu73.suite"
    for i in $(seq 1 73); do
        want+="[b$i]"$'\n'"RDTSC: 32.00"$'\n'
    done
    out=$(QEMU_SMP=2 $NB -suite "$TMP/cpu73.suite" -icount 4 -results "$TMP/cpu73" 2>/dev/null) ||
        { echo "exit status $?"; tail -5 <<<"$out"; return 1; }
    expect_eq "suite" "${want%$'\n'}" "$out" || return 1
    # Each benchmark names its processor; processor 1's identification lines come once.
    expect_eq "processor lines" "$(printf '%s\n' "     72 processor: 1 (APIC ID 1) of 2" "      1 processor: 0 (APIC ID 0) of 2")" \
        "$(grep '^processor:' "$TMP/cpu73/run-0001.txt" | sort | uniq -c | sort -rn)" || return 1
    # the boot processor's in the fingerprint, processor 1's with its first benchmark
    expect_eq "power lines" 2 "$(grep -c '^power:' "$TMP/cpu73/run-0001.txt")" || return 1
    expect_eq "end" "nanoBench-EFI done: 73 benchmarks, 0 errors, finish: shutdown" \
        "$(tail -1 "$TMP/cpu73/run-0001.txt")"
}

run_test cpu_suite_73 test_cpu_suite_73

# Three processors, no -icount: processor 2 watches, and `cli; jmp $` on
# -cpu 1 (every LVT entry of processor 1 masked, IF=0) is stopped by its NMI;
# processor 1 measures again afterwards, and so does the boot processor.
test_cpu_hang_nmi() {
    local out
    printf '%s\n' 'h: -asm "cli; jmp $" -cpu 1 -timeout 2' 'a: -asm "ADD RAX, RBX; ADD RBX, RAX" -cpu 1' \
        'h0: -asm "cli; jmp $" -timeout 2' 'b: -asm "ADD RAX, RBX; ADD RBX, RAX"' >"$TMP/cpu_nmi.suite"
    out=$(QEMU_SMP=3 suite_with_errors cpu_nmi "$TMP/cpu_nmi.suite") || { echo "$out"; return 1; }
    expect_eq "results" "$(printf '[h]\nerror: timeout after 2 s (in the base run)\n[a]\nRDTSC: (a value)\n[h0]\nerror: timeout after 2 s (in the base run)\n[b]\nRDTSC: (a value)')" \
        "$(sed 's/^RDTSC: [0-9][0-9.]*$/RDTSC: (a value)/' <<<"$out")" || return 1
    grep -q '^watchdog: NMI from another processor (' "$TMP/cpu_nmi/run-0001.txt" ||
        { echo "no NMI watchdog line"; return 1; }
}

run_test cpu_hang_nmi test_cpu_hang_nmi

# Two processors, no -icount: a hang on the boot processor starts the NMI
# watcher on processor 1, which the next -cpu 1 benchmark takes back; a
# `jmp $` on -cpu 1 then has no processor left to watch it and is stopped by
# its own APIC timer, armed in the procedure that runs it.
test_cpu_mixed_no_icount() {
    local out
    printf '%s\n' 'a: -asm "ADD RAX, RBX" -cpu 1' 'b: -asm "cli; jmp $" -timeout 2' 'c: -asm "ADD RAX, RBX" -cpu 1' \
        'd: -asm "jmp $" -cpu 1 -timeout 2' 'e: -asm "ADD RAX, RBX"' >"$TMP/cpu_mix.suite"
    out=$(QEMU_SMP=2 suite_with_errors cpu_mix "$TMP/cpu_mix.suite") || { echo "$out"; return 1; }
    expect_eq "results" "$(printf '[a]\nRDTSC: (a value)\n[b]\nerror: timeout after 2 s (in the base run)\n[c]\nRDTSC: (a value)\n[d]\nerror: timeout after 2 s (in the base run)\n[e]\nRDTSC: (a value)')" \
        "$(sed 's/^RDTSC: [0-9][0-9.]*$/RDTSC: (a value)/' <<<"$out")"
}

run_test cpu_mixed_no_icount test_cpu_mixed_no_icount
