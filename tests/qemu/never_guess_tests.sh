# tests/qemu/never_guess_tests.sh — sourced by tests/qemu/run.sh (its helpers:
# expect_eq, $NB, $TMP). The image never guesses a processor's events, and the
# vendor's counter restrictions hold for every config; both through -plan, which
# runs the image's own detection, config choice and scheduler on the host.

# A model cpu_map.txt does not list gets the architectural events and one line
# naming -config, never a neighbour's table: 0xCE and 0xD0, not in Intel's
# mapfile, sit next to Emerald Rapids 0xCF and Panther Lake 0xCC/0xD5.
test_plan_unknown_model_gets_architectural_events() {
    local out err model
    for model in 0xce 0xd0; do
        out=$($NB -plan -plan_cpu intel:6:$model:8 -asm nop 2>"$TMP/ng_err" | sed -n '1p;4p') || return 1
        err=$(cat "$TMP/ng_err")
        expect_eq "plan header $model" "# plan for intel:6:$model:8: intel, config built-in architectural events
group 1: CORE_CYCLES@PMC0 INST_RETIRED@PMC1 REF_CYCLES@PMC2 LLC_REFERENCES@PMC3 LLC_MISSES@PMC4 BR_INST_RETIRED@PMC5 BR_MISP_RETIRED@PMC6" "$out" || return 1
        expect_eq "plan warning $model" "nanobench: warning: family 0x6 model $model is not in cpu_map.txt: measuring the architectural events only (CPUID.0AH); pass this processor's events with -config FILE" "$err" || return 1
    done
}

# nanoBench's cfg lines carry no .CTR=: on an 8-counter Skylake, MEM_LOAD_RETIRED.L1_HIT
# (D1.01, PMC0-3 in Intel's list, configs/ctr_Skylake.txt) after four unrestricted
# events still lands on PMC0, and a .CTR= outside the vendor's set is refused.
test_plan_counter_restrictions_hold_for_any_config() {
    printf 'C0.00 INST_RETIRED.ANY_P\n3C.00 CPU_CLK_UNHALTED.THREAD_P\n0E.01 UOPS_ISSUED.ANY\nC2.02 UOPS_RETIRED.RETIRE_SLOTS\nD1.01 MEM_LOAD_RETIRED.L1_HIT\nD1.01.CTR=4-7 OUTSIDE\n' > "$TMP/ng.cfg"
    local out err
    out=$($NB -plan -plan_cpu intel:6:0x5e:8 -config "$TMP/ng.cfg" 2>"$TMP/ng_err" | grep '^group') || return 1
    err=$(cat "$TMP/ng_err")
    expect_eq "skylake group" "group 1: INST_RETIRED.ANY_P@PMC1 CPU_CLK_UNHALTED.THREAD_P@PMC2 UOPS_ISSUED.ANY@PMC3 UOPS_RETIRED.RETIRE_SLOTS@PMC4 MEM_LOAD_RETIRED.L1_HIT@PMC0{0-3}" "$out" || return 1
    expect_eq "skylake refusal" "nanobench: $TMP/ng.cfg:6: .CTR=4-7: this processor counts D1.01 only on counters 0-3 (configs/ctr_Skylake.txt) (event skipped)" "$err" || return 1
    # Four counters (Hyper-Threading on): every counter is allowed, nothing to refuse but PMC4-7.
    out=$($NB -plan -plan_cpu intel:6:0x5e:4 -config "$TMP/ng.cfg" 2>/dev/null | grep '^group 1') || return 1
    expect_eq "skylake 4 counters" "group 1: INST_RETIRED.ANY_P@PMC0 CPU_CLK_UNHALTED.THREAD_P@PMC1 UOPS_ISSUED.ANY@PMC2 UOPS_RETIRED.RETIRE_SLOTS@PMC3" "$out" || return 1
    # Sapphire Rapids: TOPDOWN.BAD_SPEC_SLOTS (A4.04) counts on PMC0 only.
    printf 'C0.00 A\n3C.00 B\nA4.04 BAD_SPEC\n' > "$TMP/ng_spr.cfg"
    out=$($NB -plan -plan_cpu intel:6:0x8f -config "$TMP/ng_spr.cfg" | grep '^group') || return 1
    expect_eq "spr group" "group 1: A@PMC1 B@PMC2 BAD_SPEC@PMC0{0}" "$out"
}

# -freq base: -plan lists the writes (their values come from MSRs -plan does not
# have; the values themselves are checked through the seam, tests/unit/test_freq_pin.c);
# any other setting is a CLI error naming the option.
test_plan_freq_base() {
    local out
    out=$($NB -plan -plan_cpu intel:6:0x5e:4 -asm nop -freq base | sed -n '/^# -freq base:/,/^group/p') || return 1
    expect_eq "intel -freq base" "# -freq base:
#   HWP on (IA32_PM_ENABLE[0]): wrmsr 0x774 (IA32_HWP_REQUEST) minimum = maximum = desired = IA32_HWP_CAPABILITIES[15:8] (guaranteed performance)
#   HWP off: wrmsr 0x199 (IA32_PERF_CTL) [15:8] = MSR_PLATFORM_INFO[15:8] (maximum non-turbo ratio)
#   wrmsr 0x1a0 (IA32_MISC_ENABLE) |= 1 << 38 (turbo off)
#   all restored after the benchmark
group 1: CORE_CYCLES@PMC0 INST_RETIRED@PMC1 IDQ.MITE_UOPS@PMC2 IDQ.DSB_UOPS@PMC3" "$out" || return 1
    out=$($NB -plan -plan_cpu amd:0x19:0x61 -asm nop -freq base | sed -n '/^# -freq base:/,/^#   both/p') || return 1
    expect_eq "amd -freq base" "# -freq base:
#   wrmsr 0xc0010062 (PStateCtl) PstateCmd = 0 (P-state 0)
#   wrmsr 0xc0010015 (HWCR) |= 1 << 25 (CpbDis: boost off)
#   both restored after the benchmark" "$out" || return 1
    out=$($NB -plan -plan_cpu intel:6:0x5e:4 -asm nop -freq turbo 2>&1)
    expect_eq "-freq turbo" "nanobench: option -freq: 'turbo' is not base (the only setting: base frequency, turbo off)" "$out"
}

# SMT: a QEMU machine with 2 cores of 2 threads (firmware numbers 0,1 on core 0):
# the fingerprint lists the cores with their processors (CPUID.0BH on each), and
# -cpu 1, the boot processor's sibling, says so; -cpu 2 (another core) does not.
test_smt_siblings() {
    printf 'sib: -asm "add rax, rbx" -cpu 1\nother: -asm "add rax, rbx" -cpu 2\n' > "$TMP/smt.suite"
    $NB -image "$TMP/smt.img" -suite "$TMP/smt.suite" -icount 4 >/dev/null 2>&1 || { echo "no image"; return 1; }
    images/qemu-run.sh "$TMP/smt.img" "$TMP/smt.log" --icount 4 --smp 4,cores=2,threads=2 >/dev/null 2>&1
    local out
    out=$(clean_serial "$TMP/smt.log" | grep -a '^topology:\|^processor:\|^\[\|^RDTSC')
    expect_eq "smt lines" "topology: 4 logical processors in 2 cores, 2 threads per core (x2APIC IDs, CPUID.0BH)
topology: package.core: processors: 0.0: 0 1; 0.1: 2 3
[sib]
processor: 1 (APIC ID 1) of 4
processor: 1 is the boot processor's SMT sibling (core 0.0): the boot processor, waiting for it, shares that core's execution units and caches
RDTSC: 16.00
[other]
processor: 2 (APIC ID 2) of 4
RDTSC: 16.00" "$out"
}

# NUMA: a QEMU machine with two nodes of 256 MiB, processor 0 on node 0 and 1 on
# node 1 (QEMU writes the ACPI SRAT): the fingerprint names both domains, and a
# benchmark's -r14_size area lies in the domain of the processor it runs on.
test_numa_two_nodes() {
    printf 'boot: -asm "add rax, rbx" -r14_size 8192 -verbose\ncpu1: -asm "add rax, rbx" -r14_size 8192 -verbose -cpu 1\n' > "$TMP/numa.suite"
    $NB -image "$TMP/numa.img" -suite "$TMP/numa.suite" -icount 4 >/dev/null 2>&1 || { echo "no image"; return 1; }
    QEMU_EXTRA="-object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1" \
        images/qemu-run.sh "$TMP/numa.img" "$TMP/numa.log" --icount 4 --smp 2 >/dev/null 2>&1
    local out areas
    out=$(clean_serial "$TMP/numa.log" | grep -a '^numa:\|^\[\|^RDTSC:' )
    expect_eq "numa lines" "numa: 2 proximity domains (ACPI SRAT): domain 0: processors 0, 255 MiB; domain 1: processors 1, 256 MiB
numa: memory areas are allocated in the domain of the benchmark's processor (the boot processor: domain 0)
[boot]
RDTSC: 16.00
[cpu1]
RDTSC: 16.00" "$out" || return 1
    # The areas: node 0 is below 256 MiB, node 1 from 256 MiB to 512 MiB.
    areas=$(clean_serial "$TMP/numa.log" | sed -n 's/^verbose: R14 area \(0x[0-9a-f]*\), 8192 bytes (R14 at 0x[0-9a-f]*, proximity domain \([01]\))$/\1 \2/p')
    local a d n=0
    while read -r a d; do
        n=$((n + 1))
        [[ $d == $((n - 1)) ]] || { echo "area $n in domain $d"; return 1; }
        if [[ $d == 0 ]]; then ((a + 8192 <= 0x10000000)) || { echo "area $a is not in node 0"; return 1; }
        else ((a >= 0x10000000 && a + 8192 <= 0x20000000)) || { echo "area $a is not in node 1"; return 1; }; fi
    done <<<"$areas"
    expect_eq "areas" 2 "$n"
}

# The image carries every core's counter restrictions next to its default config,
# so any -config is held to them on the machine (kernel/engine/bench_counters.c).
test_image_has_counter_restrictions() {
    $NB -asm nop -image "$TMP/ctr.img" >/dev/null 2>&1 || { echo "no image"; return 1; }
    local listing f
    listing=$(MTOOLS_SKIP_CHECK=1 mdir -/ -b -i "$TMP/ctr.img@@1M" ::) || return 1
    for f in configs/ctr_*.txt; do
        grep -qxF "::/nanobench/configs/${f#configs/}" <<<"$listing" || { echo "missing ${f#configs/} in the image"; return 1; }
    done
    expect_eq "ctr_Skylake.txt on the image" "$(cat configs/ctr_Skylake.txt)" \
        "$(MTOOLS_SKIP_CHECK=1 mtype -i "$TMP/ctr.img@@1M" ::/nanobench/configs/ctr_Skylake.txt)"
}

run_test image_has_counter_restrictions test_image_has_counter_restrictions
run_test plan_freq_base test_plan_freq_base
run_test numa_two_nodes test_numa_two_nodes
run_test smt_siblings test_smt_siblings
run_test plan_unknown_model_gets_architectural_events test_plan_unknown_model_gets_architectural_events
run_test plan_counter_restrictions_hold_for_any_config test_plan_counter_restrictions_hold_for_any_config
