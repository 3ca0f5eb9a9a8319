# tests/qemu/cpu_one_call_tests.sh — -cpu N measures a benchmark in ONE call
# on processor N (kernel/cpu_measure.h, docs/real-machines.md), sourced by
# tests/qemu/run.sh.

# The lines made on processor 1 are recorded there and written afterwards by
# the boot processor: -verbose's tables, -range, -metrics, the -msr_config
# events (each its own measurement, all in the same call) come out exactly
# as the boot processor's own, in the text and in the CSV.
test_cpu_one_call_same_lines() {
    local opts='-asm "ADD RAX, RBX; ADD RBX, RAX" -metrics cpi -range -msr_config '"$TMP"'/one_call_msr.txt -verbose -n_measurements 3'
    printf 'msr_10 TSC_MSR\nmsr_0x10 TSC_AGAIN\n' >"$TMP/one_call_msr.txt"
    printf '%s\n' "boot: $opts" "other: $opts -cpu 1" >"$TMP/one_call.suite"
    QEMU_SMP=2 $NB -suite "$TMP/one_call.suite" -icount 4 -results "$TMP/one_call" >/dev/null 2>&1 ||
        { echo "exit status $?"; return 1; }
    local txt="$TMP/one_call/run-0001.txt" csv="$TMP/one_call/run-0001.csv" boot other
    # A benchmark's block without the lines of its processor's setup (processor 1's come with its first benchmark).
    block() { sed -n "/^\[$1\]\$/,/^\[/p" "$txt" | grep -v '^\[\|^processor: \|^power: \|^smi: \|^pmu: \|^nanoBench-EFI done'; }
    boot=$(block boot)
    other=$(block other)
    expect_eq "text" "$boot" "$other" || return 1
    expect_eq "RDTSC" "RDTSC: 32.00 [32.00;32.00]" "$(grep '^RDTSC: ' <<<"$other")" || return 1
    expect_eq "verbose tables" 2 "$(grep -c '^RDTSC results (unroll_count=' <<<"$other")" || return 1
    expect_eq "csv" "$(grep '^boot,' "$csv" | sed 's/^boot,//')" "$(grep '^other,' "$csv" | sed 's/^other,//')" || return 1
    expect_eq "lost or refused" 0 "$(grep -c 'refused\|did not fit' "$txt")"
}

run_test cpu_one_call_same_lines test_cpu_one_call_same_lines
