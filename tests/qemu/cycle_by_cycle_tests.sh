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
    # -csv / -html: nothing to copy, said so; the page is there as always
    local err rc
    err=$($NB -asm "ADD RAX, RBX" -cycle_by_cycle -csv "$TMP/cbc-copy.csv" -html "$TMP/cbc-copy.html" -icount 4 \
          -results "$TMP/cbc-cli" 2>&1 >/dev/null)
    rc=$?
    expect_eq "-csv: exit status" 1 "$rc" || return 1
    grep -qxF "nanobench: benchmark 'benchmark' has no cycle-by-cycle table (see its error line); -csv/-html not written" <<<"$err" ||
        { echo "-csv: $err"; return 1; }
    [[ ! -e $TMP/cbc-copy.csv && ! -e $TMP/cbc-copy.html && -f $TMP/cbc-cli/run-0001.html ]] ||
        { echo "-csv: files"; ls "$TMP" "$TMP/cbc-cli"; return 1; }
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

# -plan: the writes of one cycle on a Skylake-X (SDM vol. 3B: IA32_DEBUGCTL
# 1D9H bit 12; IA32_FIXED_CTR_CTRL 38DH, 4 bits per counter, bit 0 ring 0,
# bit 3 PMI; IA32_PERF_GLOBAL_STATUS_RESET 390H; fixed counter 1 at 30AH).
test_cycle_by_cycle_plan() {
    printf '0E.01 UOPS_ISSUED.ANY\nA1.01 UOPS_DISPATCHED_PORT.PORT_0\n' >"$TMP/cbc.cfg"
    local out
    out=$($NB -asm "ADD RAX, RBX" -cycle_by_cycle -config "$TMP/cbc.cfg" -plan -plan_cpu intel:6:0x55:4 2>&1) || { echo "$out"; return 1; }
    expect_eq "plan" "# plan for intel:6:0x55:4: intel, config $TMP/cbc.cfg
# cpu: Skylake-X (intel family 0x6 model 0x55)
# pmu: perfmon v4, 4 general-purpose counters {0-3} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available
# cycle by cycle: 4 events per run, counters frozen by the overflow of fixed counter 1 (CPU_CLK_UNHALTED.THREAD); the writes of cycle 1:
wrmsr 0x38f 0x0
wrmsr 0x1d9 0x1000
wrmsr 0x38d 0x111
wrmsr 0x186 0x43010e
wrmsr 0x187 0x4301a1
wrmsr 0x188 0x423079
wrmsr 0x189 0x4200c0
wrmsr 0x38f 0x0
wrmsr 0x186 0x43010e
wrmsr 0xc1 0x0
wrmsr 0x187 0x4301a1
wrmsr 0xc2 0x0
wrmsr 0x188 0x423079
wrmsr 0xc3 0x0
wrmsr 0x189 0x4200c0
wrmsr 0xc4 0x0
wrmsr 0x38d 0x191
wrmsr 0x309 0x0
wrmsr 0x30a 0x0
wrmsr 0x30b 0x0
wrmsr 0x390 0x0
wrmsr 0x30a 0xffffffffffff
# the template: wrmsr 0x38f 0x70000000f; lfence; <benchmark>; lfence; wrmsr 0x38f 0x0; then rdmsr of the frozen counters
# cycle N presets fixed counter 1 to 2^48 - N; after the last cycle:
wrmsr 0x38f 0x0
wrmsr 0x1d9 0x0
wrmsr 0x38d 0x0
wrmsr 0x186 0x0
wrmsr 0x187 0x0
wrmsr 0x188 0x0
wrmsr 0x189 0x0
wrmsr 0x390 0x0" "$out" || return 1
    # -end_to_end: no internal events, the config's two only
    out=$($NB -asm "ADD RAX, RBX" -cycle_by_cycle -end_to_end -config "$TMP/cbc.cfg" -plan -plan_cpu intel:6:0x55:4 2>&1) || { echo "$out"; return 1; }
    grep -qxF "# cycle by cycle: 2 events per run, counters frozen by the overflow of fixed counter 1 (CPU_CLK_UNHALTED.THREAD); the writes of cycle 1:" <<<"$out" ||
        { echo "end_to_end: $out"; return 1; }
    # elsewhere: the reason, exit status 2
    out=$($NB -asm "ADD RAX, RBX" -cycle_by_cycle -plan -plan_cpu amd:0x19:0x61 2>&1 >/dev/null)
    expect_eq "amd: exit status" 2 "$?" || return 1
    expect_eq "amd" "nanobench: -cycle_by_cycle: cycle-by-cycle measurements need Intel's freeze of the counters on a PMI (IA32_DEBUGCTL.Freeze_PerfMon_On_PMI); this is not an Intel processor" "$out"
}

run_test cycle_by_cycle_plan test_cycle_by_cycle_plan
run_test cycle_by_cycle_without_pmu test_cycle_by_cycle_without_pmu
run_test cycle_by_cycle_cli_errors test_cycle_by_cycle_cli_errors
