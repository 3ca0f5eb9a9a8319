# tests/qemu/calibrate_kind_tests.sh — -calibrate on the processor the
# benchmark runs on (kernel/nb_main.c calibrate_if_needed), sourced by run.sh.
#
# The first benchmark asks for -calibrate with -cpu 1: the chase runs on
# processor 1 (its CPUID's cache report gives QEMU's max CPU footprints, as
# on the boot processor), in TSC ticks (no PMU), exactly 16 ticks a load
# under -icount 4. QEMU's processors are all one kind (no CPUID.07H:EDX[15]
# Hybrid), so the benchmark on the boot processor that follows reuses those
# values and the calibration lines name no core kind.
test_calibrate_on_cpu() {
    printf 'on1: -asm "add rax, rbx" -calibrate -cpu 1\non0: -asm "add rax, rbx" -calibrate\n' \
        > "$TMP/calibrate_cpu.suite"
    local out
    out=$($NB -suite "$TMP/calibrate_cpu.suite" -results "$TMP/calibrate_cpu" -icount 4 2>/dev/null) ||
        { echo "$out"; return 1; }
    expect_eq "calibration on processor 1" "[on1]
calibration: L1 16.00 TSC ticks, L2 16.00 TSC ticks, L3 16.00 TSC ticks, DRAM 16.00 TSC ticks, TLB walk 16.00 TSC ticks (TSC ticks per dependent load: no usable PMU)
calibration: footprints L1 32768 bytes, L2 262144 bytes, L3 8388608 bytes, DRAM 268435456 bytes, TLB walk 8192 pages of 4 KiB on 262144 bytes
calibration: check not done: no usable PMU (the load-hit and page-walk counters need one)
calibration: N1 (L2 - L1) 0.00, N2 (L3 - L1) 0.00, N3 (DRAM - L1) 0.00, N4 (TLB walk - L2) 0.00 TSC ticks
calibration: DRAM 16.00 ns (TSC ticks per load / the TSC frequency)
RDTSC: 16.00
[on0]
RDTSC: 16.00" "$(grep -v '^nanobench: ' <<<"$out")" || return 1
    # The processor line comes before the calibration: the chase ran there.
    expect_eq "order in the results file" "processor: 1 (APIC ID 1) of 2
calibration: L1 16.00 TSC ticks" \
        "$(grep -o '^processor: 1 (APIC ID 1) of 2$\|^calibration: L1 16.00 TSC ticks' "$TMP/calibrate_cpu/run-0001.txt")"
}

run_test calibrate_on_cpu test_calibrate_on_cpu
