# tests/qemu/cpu_session_tests.sh — -cpu N: processor N's session (identify,
# XSAVE/DE_CFG state, PMU detection and probe) begun in ONE call on N, its
# lines recorded there and written by the boot processor (kernel/engine/
# cpu_session.h), and ended in one call; sourced by tests/qemu/run.sh.

# QEMU's processors are all the same model: processor N's setup lines (power:,
# smi:, pmu:) are the boot processor's fingerprint lines, in the same order,
# right after the "processor:" line; a benchmark on another processor ends
# the first session and begins a second, and nothing is refused on either.
test_cpu_session_lines() {
    local asm='-asm "ADD RAX, RBX; ADD RBX, RAX" -n_measurements 1 -warm_up_count 0'
    printf '%s\n' "a: $asm -cpu 1" "b: $asm -cpu 2" "c: $asm -cpu 1" >"$TMP/cpu_session.suite"
    QEMU_SMP=3 $NB -suite "$TMP/cpu_session.suite" -icount 4 -results "$TMP/cpu_session" >/dev/null 2>&1 ||
        { echo "exit status $?"; return 1; }
    local txt="$TMP/cpu_session/run-0001.txt" boot
    boot=$(sed '/^\[/,$d' "$txt" | grep '^power: \|^smi: \|^pmu: ')
    [ -n "$boot" ] || { echo "no fingerprint lines"; return 1; }
    block() { sed -n "/^\[$1\]\$/,/^\[/p" "$txt" | grep -v '^\['; }
    for b in a b c; do
        local n=1
        [ "$b" = b ] && n=2
        expect_eq "[$b] first line" "processor: $n (APIC ID $n) of 3" "$(block $b | head -1)" || return 1
        expect_eq "[$b] setup lines" "$boot" "$(block $b | grep '^power: \|^smi: \|^pmu: ')" || return 1
        expect_eq "[$b] RDTSC" "RDTSC: 32.00" "$(block $b | grep '^RDTSC: ')" || return 1
    done
    expect_eq "refused or errors" 0 "$(grep -c 'refused\|^error' "$txt")" || return 1
    grep -q 'done: 3 benchmarks, 0 errors' "$txt" || { echo "no clean end"; return 1; }
}

run_test cpu_session_lines test_cpu_session_lines

# -mica on processor 1: its trace (the traced run and the FS/GS bases of the
# header, one call there) has the boot processor's instruction count, and its
# MICA rows are the boot processor's.
test_cpu_mica() {
    local opts='-asm "ADD RAX, RBX; ADD RBX, RAX" -unroll_count 4 -n_measurements 1 -warm_up_count 0 -mica ilp'
    printf '%s\n' "boot: $opts" "other: $opts -cpu 1" >"$TMP/cpu_mica.suite"
    QEMU_SMP=2 $NB -suite "$TMP/cpu_mica.suite" -icount 4 -results "$TMP/cpu_mica" >/dev/null 2>&1 ||
        { echo "exit status $?"; return 1; }
    local txt="$TMP/cpu_mica/run-0001.txt" f
    expect_eq "trace lines" "$(printf '%s\n' "trace: run-0001-boot.trace instructions 8" \
        "trace: run-0001-other.trace instructions 8")" \
        "$(grep -o '^trace: [^ ]* instructions [0-9]*' "$txt")" || return 1
    for f in boot other; do
        expect_eq "$f magic" "NBTRACE" "$(head -c 7 "$TMP/cpu_mica/run-0001-$f.trace")" || return 1
    done
    expect_eq "errors" 0 "$(grep -c '^error\|refused' "$txt")" || return 1
    local csv="$TMP/cpu_mica/run-0001-mica.csv"
    [ -f "$csv" ] || { echo "no MICA CSV"; ls "$TMP/cpu_mica"; return 1; }
    expect_eq "mica rows" "$(grep '^boot,' "$csv" | sed 's/^boot,//')" "$(grep '^other,' "$csv" | sed 's/^other,//')"
}

run_test cpu_mica test_cpu_mica
