# tests/qemu/cycle_by_cycle_tests.sh — -cycle_by_cycle where it cannot run,
# sourced by tests/qemu/run.sh. QEMU's CPUs have no PMU: the benchmark's
# error line says why, naming the option; the method itself is tested on the
# host's model of the PMU (tests/unit/test_cycle_by_cycle.c).

test_cycle_by_cycle_without_pmu() {
    local out
    out=$(printf 'cbc: -asm "ADD RAX, RBX" -cycle_by_cycle\nafter: -asm "ADD RAX, RBX; ADD RBX, RAX"\n' >"$TMP/cbc.suite"
          suite_with_errors cbc "$TMP/cbc.suite" -icount 4) || { echo "$out"; return 1; }
    expect_eq "output" "[cbc]
error: -cycle_by_cycle: cycle-by-cycle measurements need performance counters: AMD family 0xf is older than family 17h (Zen), which this tool supports
[after]
RDTSC: 32.00" "$out" || return 1
    # The same with an Intel CPU model: CPUID.0AH is all zero under TCG.
    out=$(QEMU_CPU=Skylake-Client suite_with_errors cbc-intel "$TMP/cbc.suite" -icount 4) || { echo "$out"; return 1; }
    grep -qxF "error: -cycle_by_cycle: cycle-by-cycle measurements need performance counters: CPUID.0AH reports architectural perfmon version 0 with 0 counters (version 2 or later needed)" <<<"$out" ||
        { echo "intel: $out"; return 1; }
}

# Before the boot: what the mode does not take, and -csv / -html without it.
test_cycle_by_cycle_cli_errors() {
    expect_cli_error "-fixed_counters" "option -fixed_counters is not available with -cycle_by_cycle" \
        -asm "NOP" -cycle_by_cycle -fixed_counters || return 1
    expect_cli_error "-csv alone" "option -csv only applies to -cycle_by_cycle" -asm "NOP" -csv out.csv || return 1
    local err rc
    err=$($NB -asm "NOP" -cycle_by_cycle -html 2>&1 >/dev/null)
    rc=$?
    expect_eq "-html without a value: exit status" 2 "$rc" || return 1
    grep -qF "option -html needs a value" <<<"$err" || { echo "-html without a value: $err"; return 1; }
}

run_test cycle_by_cycle_without_pmu test_cycle_by_cycle_without_pmu
run_test cycle_by_cycle_cli_errors test_cycle_by_cycle_cli_errors
