# tests/qemu/lava_tests.sh — LAVA jobs written by tools/nanobench -lava_job,
# validated and run by Debian's lava-dispatcher (lava-run, no server) on the
# QEMU/OVMF device of lava/devices/qemu-ovmf.yaml (TCG, -icount 4: exact
# values). The results are read from lava-run's own output, not our logs.
# Sourced by tests/qemu/run.sh, whose helpers it uses.

LAVA_DEVICE=$ROOT/lava/devices/qemu-ovmf.yaml

# lava_results LOG: "definition case result measurement units" for each
# test case lava-run reported in the job's two monitors.
lava_results() {
    python3 - "$1" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    if '"lvl": "results"' not in line or '"definition": "lava"' in line:
        continue
    def get(key):  # absent, or null (an optional group that did not match): "-"
        m = re.search(r'"%s": (?:! )?"([^"]*)"' % key, line)
        return m[1] if m and m[1] != "null" else "-"
    print(get("definition"), get("case"), get("result"), get("measurement"), get("units"))
PY
}

# lava_job NAME SUITE: writes the job and the image with tools/nanobench,
# checks that lava-run --validate accepts the job, runs it; the log is
# $TMP/lava-NAME/run.log.
lava_job() {
    local dir=$TMP/lava-$1 rc
    mkdir -p "$dir"
    $NB -suite "$2" -lava_job "$dir/job.yaml" 2>"$dir/nanobench.err" || { cat "$dir/nanobench.err"; return 1; }
    lava-run --job-id "$1" --output-dir "$dir/validate" --device "$LAVA_DEVICE" --validate "$dir/job.yaml" \
        >"$dir/validate.log" 2>&1 || { echo "lava-run --validate refused the job:"; grep -E '"error"|error_msg' "$dir/validate.log"; return 1; }
    lava-run --job-id "$1" --output-dir "$dir/out" --device "$LAVA_DEVICE" "$dir/job.yaml" >"$dir/run.log" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] || { echo "lava-run exited $rc:"; grep -E '"error"|error_msg' "$dir/run.log" | cut -c1-400; return 1; }
}

test_lava_job_runs_a_suite() {
    cat >"$TMP/lava5.suite" <<'SUITE'
# Five benchmarks with exact values on the device (-icount 4: 16 per instruction).
add_chain: -asm "ADD RAX, RBX; ADD RBX, RAX"
nop1: -asm "nop"
nop3: -asm "nop; nop; nop"
add4: -asm "add rax, 1; add rax, 1; add rax, 1; add rax, 1"
two_copies: -asm "nop" -unroll_count 2
SUITE
    lava_job five "$TMP/lava5.suite" || return 1
    expect_eq "nanobench results in LAVA" "nanobench add_chain_rdtsc pass 32.00 tsc_ticks/rep
nanobench nop1_rdtsc pass 16.00 tsc_ticks/rep
nanobench nop3_rdtsc pass 48.00 tsc_ticks/rep
nanobench add4_rdtsc pass 64.00 tsc_ticks/rep
nanobench two_copies_rdtsc pass 16.00 tsc_ticks/rep" \
        "$(lava_results "$TMP/lava-five/run.log" | grep '^nanobench ')" || return 1
    # The fingerprint: numeric platform facts, e.g. QEMU's CPU family 15.
    local all
    all=$(lava_results "$TMP/lava-five/run.log")
    grep -qx 'fingerprint cpu_family pass 15.0 -' <<<"$all" ||
        { echo "no fingerprint case:"; grep fingerprint <<<"$all" | head -3; return 1; }
    grep -q '"case": "job", "definition": "lava", "result": "pass"' "$TMP/lava-five/run.log" ||
        { echo "the job did not pass"; return 1; }
    grep -q '^  nanobench.benchmarks: "5"$' "$TMP/lava-five/job.yaml" || { echo "no metadata"; return 1; }
}

# A failing -expect and a faulting benchmark are LAVA failures; the suite
# goes on and the other results stay.
test_lava_job_reports_failures() {
    cat >"$TMP/lavafail.suite" <<'SUITE'
good: -asm "nop"
wrong_expect: -asm "nop; nop" -expect "RDTSC=99"
fault: -asm "ud2"
after: -asm "nop; nop"
SUITE
    lava_job fail "$TMP/lavafail.suite" || return 1
    expect_eq "nanobench results in LAVA" "nanobench good_rdtsc pass 16.00 tsc_ticks/rep
nanobench wrong_expect_rdtsc pass 32.00 tsc_ticks/rep
nanobench wrong_expect_expect_rdtsc fail - -
nanobench fault_error fail - -
nanobench after_rdtsc pass 32.00 tsc_ticks/rep" \
        "$(lava_results "$TMP/lava-fail/run.log" | grep '^nanobench ')"
}

# The job for a lab machine (flasher deploy, minimal boot, the same
# monitors) validates against the rendered example of the lab template.
test_lava_lab_job_validates() {
    local dir=$TMP/lava-lab
    mkdir -p "$dir"
    printf 'a: -asm "nop"\n' >"$dir/s.suite"
    $NB -suite "$dir/s.suite" -lava_job "$dir/job.yaml" -lava_device_type x86-uefi-nanobench 2>"$dir/err" ||
        { cat "$dir/err"; return 1; }
    grep -qx '    to: flasher' "$dir/job.yaml" || { echo "not a flasher deploy"; return 1; }
    timeout 120 lava-run --job-id lab --output-dir "$dir/out" --device "$ROOT/lava/devices/x86-uefi-usb-example.yaml" \
        --validate "$dir/job.yaml" >"$dir/validate.log" 2>&1 ||
        { grep -E '"error"|error_msg' "$dir/validate.log" | cut -c1-400; return 1; }
}

test_lava_cli_errors() {
    expect_cli_error lava_url_alone "nanobench: -lava_url and -lava_device_type go with -lava_job" -asm nop -lava_url http://x/y.img || return 1
    expect_cli_error lava_job_folder "nanobench: -lava_job /nonexistent/dir/job.yaml: no such folder" \
        -asm nop -lava_job /nonexistent/dir/job.yaml
}

run_test lava_job_runs_a_suite test_lava_job_runs_a_suite
run_test lava_job_reports_failures test_lava_job_reports_failures
run_test lava_lab_job_validates test_lava_lab_job_validates
run_test lava_cli_errors test_lava_cli_errors
