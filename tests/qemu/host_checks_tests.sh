# tests/qemu/host_checks_tests.sh — mistakes found on the host, exit 2 with
# the benchmark and option, before anything boots (tools/compile/host_checks.h); a
# failing -expect makes the run exit 1; -plan_cpu names; nanoBench's config
# lines it skips are warnings. Sourced by tests/qemu/run.sh.

test_host_checks() {
    printf 'garbage\n' >"$TMP/itypes-bad.txt"
    expect_cli_error metrics "nanobench: option -metrics cpi,cache: no metric file defines a group 'cache' (the groups: cpi, memory, topdown, flops, codemon, tma_info)" \
        -asm nop -metrics cpi,cache &&
    expect_cli_error itypes_missing "nanobench: option -mica_itypes: cannot read $TMP/none.txt: No such file or directory" \
        -asm nop -mica all -mica_itypes "$TMP/none.txt" &&
    expect_cli_error itypes_parse "nanobench: option -mica_itypes: $TMP/itypes-bad.txt:1: expected" \
        -asm nop -mica all -mica_itypes "$TMP/itypes-bad.txt" &&
    expect_cli_error expect_value "nanobench: option -expect \"RDTSC=abc\": 'abc' is not a number (at most 2 decimals, optionally ~TOLERANCE) and no config names such an event" \
        -asm nop -expect RDTSC=abc &&
    expect_cli_error plan_cpu_name "nanobench: -plan_cpu 'skylak': not a processor name (-plan_cpu list prints them) nor VENDOR:FAMILY:MODEL" \
        -asm nop -plan -plan_cpu skylak &&
    expect_cli_error plan_cpu_image "nanobench: -plan_cpu skylake prints the counter plan for that processor and builds nothing, as -plan does; an image finds its processor when it boots: drop -plan_cpu to write $TMP/x.img" \
        -asm nop -plan_cpu skylake -image "$TMP/x.img" || return 1
    [[ ! -e $TMP/x.img ]] || { echo "image written"; return 1; }
    # In a suite: the benchmark and its line.
    printf 'ok: -asm nop\nbad: -asm nop -metrics nosuch\n' >"$TMP/checks.suite"
    expect_cli_error suite_metrics "nanobench: benchmark 'bad' ($TMP/checks.suite:2): option -metrics nosuch: no metric file defines a group 'nosuch'" \
        -suite "$TMP/checks.suite" || return 1
    # What is right passes: an event name as the value, known groups.
    local err
    err=$($NB -asm nop -expect "Instructions retired=INST_RETIRED.ANY_P|INSTRUCTION_RETIRED" \
        -metrics cpi,memory -image "$TMP/ok.img" 2>&1 >/dev/null) || { echo "$err"; return 1; }
}

# -plan_cpu NAME stands for the model cpu_map.txt gives it; list prints them.
test_plan_cpu_names() {
    local out
    out=$($NB -asm nop -plan -plan_cpu skylake 2>&1) || { echo "$out"; return 1; }
    expect_eq "skylake" "# cpu: Skylake (intel family 0x6 model 0x4e)" "$(sed -n 2p <<<"$out")" || return 1
    out=$($NB -asm nop -plan -plan_cpu alderlake:p 2>&1) || { echo "$out"; return 1; }
    expect_eq "alderlake:p" "# cpu: Alder Lake (intel family 0x6 model 0x97, P-core)" "$(sed -n 2p <<<"$out")" || return 1
    out=$($NB -asm nop -plan -plan_cpu zen4 2>&1) || { echo "$out"; return 1; }
    expect_eq "zen4" "# cpu: Zen 4 (amd family 0x19 model 0x11)" "$(sed -n 2p <<<"$out")" || return 1
    out=$($NB -asm nop -plan -plan_cpu sapphirerapids 2>&1) || { echo "$out"; return 1; }
    expect_eq "sapphirerapids" "# cpu: Sapphire Rapids (intel family 0x6 model 0x8f)" "$(sed -n 2p <<<"$out")" || return 1
    out=$($NB -plan_cpu list 2>&1) || { echo "$out"; return 1; }
    # Skylake-SP and Cascade Lake share 6/0x55: the map tells them apart by stepping.
    grep -qx 'skylakex                     intel:0x6:0x55:stepping=0' <<<"$out" || { echo "no skylakex in: $out"; return 1; }
    grep -qx 'cascadelakex                 intel:0x6:0x55:stepping=5' <<<"$out" || { echo "no cascadelakex in: $out"; return 1; }
    grep -qx 'alderlake                    intel:0x6:0x97 (hybrid: :p or :e)' <<<"$out" || { echo "no alderlake in: $out"; return 1; }
    out=$($NB -asm nop -plan -plan_cpu cascadelakex 2>&1) || { echo "$out"; return 1; }
    grep -q '^# plan for cascadelakex: intel, config .*/configs/cfg_CascadeLakeX_common.txt$' <<<"$out" ||
        { echo "cascadelakex: $(head -1 <<<"$out")"; return 1; }
}

# nanoBench's own cfg_ArrowLakeE_Skymont_all_core.txt has lines no processor
# takes (fixed-counter events with .CTR=37/38): nanoBench loads the file, so
# they are warnings naming the line; -strict_config makes them errors.
test_config_skipped_lines() {
    printf '# nanoBench-style\n00.06.CTR=37 TOPDOWN_FE_BOUND.ALL\nC0.00 INST_RETIRED\n' >"$TMP/skip.cfg"
    local err rc
    err=$($NB -asm nop -config "$TMP/skip.cfg" -image "$TMP/skip.img" 2>&1 >/dev/null)
    rc=$?
    expect_eq "exit status" 0 "$rc" || { echo "$err"; return 1; }
    expect_eq "warning" "nanobench: warning: $TMP/skip.cfg:2: on Intel: event 00H is a fixed-counter-only event (00.01-00.03: use -fixed_counters; 00.04, 00.80-00.87: top-down); on AMD: bad counter set '.CTR=37' (n, a-b or a,b,... with counters 0..31); the line is skipped, as nanoBench skips it (-strict_config: an error)" \
        "$(head -1 <<<"$err")" || return 1
    expect_cli_error strict "nanobench: $TMP/skip.cfg:2: on Intel: event 00H is a fixed-counter-only event" \
        -asm nop -config "$TMP/skip.cfg" -strict_config
}

# A failed -expect check makes the run exit 1 (CI can use it); a passed one 0.
test_expect_exit_status() {
    local out rc
    out=$($NB -asm "add rax, rbx; add rbx, rax" -icount 4 -expect RDTSC=32 -results "$TMP/expect" 2>&1)
    rc=$?
    expect_eq "pass: exit status" 0 "$rc" || { echo "$out"; return 1; }
    out=$($NB -asm "add rax, rbx; add rbx, rax" -icount 4 -expect RDTSC=31 -results "$TMP/expect" 2>&1)
    rc=$?
    expect_eq "fail: exit status" 1 "$rc" || { echo "$out"; return 1; }
    grep -qx 'check: FAIL benchmark: RDTSC = 32.00, expected 31.00' <<<"$out" || { echo "no FAIL line: $out"; return 1; }
}

run_test host_checks test_host_checks
run_test plan_cpu_names test_plan_cpu_names
run_test config_skipped_lines test_config_skipped_lines
run_test expect_exit_status test_expect_exit_status
