#!/usr/bin/env bash
# tests/qemu/run.sh — end-to-end tests: the real UEFI image booted under
# QEMU/OVMF with -icount 4, where RDTSC advances exactly 16 per guest
# instruction, so every expected value is exact (derivations in the suite
# files' comments). Also covers the host CLI's error handling, the results
# files, run numbering, -image and target-side error reporting.
#
# usage: tests/qemu/run.sh [filter]   (runs the tests whose name contains filter)
#        KEEP_TMP=1 keeps the temporary folder (results, traces) for a look
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
NB=tools/nanobench
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nb-qemu-test.XXXXXX")
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$TMP"' EXIT
FILTER=${1:-}
passed=0
failed=0

# run_test NAME FUNCTION: counts a pass when FUNCTION returns 0.
run_test() {
    [[ -n $FILTER && $1 != *"$FILTER"* ]] && return
    local out
    if out=$("$2" 2>&1); then
        passed=$((passed + 1))
        echo "ok   $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1"
        sed 's/^/     /' <<<"$out"
    fi
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
    if [[ "$2" != "$3" ]]; then
        echo "$1: expected:"; echo "$2" | sed 's/^/  | /'
        echo "$1: actual:"; echo "$3" | sed 's/^/  | /'
        return 1
    fi
}

# suite_with_errors NAME SUITE [OPTIONS...]: prints the suite's results
# (files in $TMP/NAME); fails unless the exit status is 1, i.e. some benchmark
# reported an error, as the suites of fault, hang and -mica tests mean to.
suite_with_errors() {
    local name=$1 suite=$2 out rc
    shift 2
    out=$($NB -suite "$suite" -results "$TMP/$name" "$@" 2>/dev/null)
    rc=$?
    printf '%s' "$out"
    [[ $rc -eq 1 ]] || { printf '\nexit status: expected 1, got %s\n' "$rc"; return 1; }
}

# Serial text as the image printed it: firmware escapes, CRs and the line
# frames (kernel/report/serial_frame.h) removed.
clean_serial() {
    sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\r//g' -e 's/\t|[0-9]\{4\} [0-9a-f]\{4\}$//' "$1"
}

test_engine_suite() {
    local out rc
    out=$($NB -suite tests/qemu/engine.suite -icount 4 -results "$TMP/engine")
    rc=$?
    expect_eq "exit status" 0 "$rc" && expect_eq "results" "$(cat tests/qemu/engine.expected)" "$out"
}

# The CSV read back out of the image says what the serial port said: the
# host parser rebuilds it from the captured log, and notices damage.
test_csv_matches_serial() {
    [[ -f $TMP/engine/run-0001.csv ]] || { echo "no CSV (engine suite did not run?)"; return 1; }
    expect_eq "csv vs serial (tools/nb_serial)" "$(cat "$TMP/engine/run-0001.csv")" \
        "$(tools/nb_serial "$TMP/engine/serial-0001.log")" || return 1
    # The .txt file is the serial text from the banner on.
    expect_eq "txt vs serial" "$(clean_serial "$TMP/engine/serial-0001.log" | sed -n '/^nanoBench-EFI [0-9]/,/^nanoBench-EFI done:/p')" \
        "$(cat "$TMP/engine/run-0001.txt")" || return 1
    # A flipped bit and a lost line on the cable are both reported.
    sed -e '0,/RDTSC: 32.00/s//RDTSC: 36.00/' -e '/^\[loop\]/d' "$TMP/engine/serial-0001.log" > "$TMP/noisy.log"
    local err rc
    err=$(build/host/nb_serial "$TMP/noisy.log" 2>&1 >/dev/null)
    rc=$?
    expect_eq "noisy exit status" 1 "$rc" || return 1
    grep -q "damaged line (serial #[0-9]*): RDTSC: 36.00" <<<"$err" || { echo "damage not reported: $err"; return 1; }
    grep -q "serial line #[0-9]* is missing" <<<"$err" || { echo "loss not reported: $err"; return 1; }
    # No value lands under the wrong benchmark: the damaged line took add_pair's
    # value, and loop's [loop] line was lost, so loop's rows are dropped rather
    # than filed under add_pair.
    expect_eq "noisy csv" "$(grep -v '^add_pair,\|^loop,' "$TMP/engine/run-0001.csv")" \
        "$(build/host/nb_serial "$TMP/noisy.log" 2>/dev/null)" || return 1
    grep -q "1 row after the damaged or lost line was dropped" <<<"$err" || { echo "drop not reported: $err"; return 1; }
    # A capture that starts in the middle of a boot says which lines it lacks.
    sed '1,/^\[add_pair\]/d' "$TMP/engine/serial-0001.log" > "$TMP/late.log"
    err=$(build/host/nb_serial "$TMP/late.log" 2>&1 >/dev/null)
    grep -q "serial lines #0000 to #[0-9]* are missing (the capture starts in the middle of a boot)" <<<"$err" ||
        { echo "late start not reported: $err"; return 1; }
}

# One capture of several runs (a stick booted twice) gives one CSV per run;
# a boot that resumes a run after a reset continues that run's CSV.
test_serial_log_of_several_runs() {
    [[ -f $TMP/boot1.log && -f $TMP/reset/serial-0001.log ]] ||
        { echo "needs the logs of target_errors_and_run_numbers and machine_reset_resumes"; return 1; }
    cat "$TMP/boot1.log" "$TMP/boot2.log" > "$TMP/two.log"
    local err rc
    err=$(build/host/nb_serial "$TMP/two.log" 2>&1 >/dev/null)
    rc=$?
    expect_eq "without -o" 2 "$rc" || return 1
    grep -q "holds 2 runs: give -o OUT.csv" <<<"$err" || { echo "message: $err"; return 1; }
    build/host/nb_serial "$TMP/two.log" -o "$TMP/two.csv" 2>/dev/null || return 1
    expect_eq "run 1" "$(cat "$TMP/target/run-0001.csv")" "$(cat "$TMP/two-run-0001.csv")" || return 1
    expect_eq "run 2" "$(cat "$TMP/target/run-0002.csv")" "$(cat "$TMP/two-run-0002.csv")" || return 1
    # The reset test's capture: two boots, one run.
    expect_eq "resumed run" "$(cat "$TMP/reset/run-0001.csv")" \
        "$(build/host/nb_serial "$TMP/reset/serial-0001.log" 2>/dev/null)"
}

# The README's quick start, stderr included: QEMU's default CPU (max) has no PMU.
test_single_benchmark() {
    local out
    out=$($NB -asm "ADD RAX, RBX; ADD RBX, RAX" -icount 4 -results "$TMP/single" 2>"$TMP/single.err") || return 1
    expect_eq "output" "RDTSC: 32.00" "$out" || return 1
    expect_eq "stderr" "nanobench: pmu: none usable: AMD family 0xf is older than family 17h (Zen), which this tool supports; measuring RDTSC only
nanobench: results in $TMP/single (run 0001)" "$(cat "$TMP/single.err")" || return 1
    grep -q '^cpu: ' "$TMP/single/run-0001.txt" || { echo "no fingerprint in report"; return 1; }
    grep -q '^tsc: invariant .*MHz' "$TMP/single/run-0001.txt" || { echo "no TSC line"; return 1; }
    # QEMU's MSRs are QEMU's zeros: the fingerprint names the hypervisor.
    grep -q '^hypervisor: "TCGTCGTCGTCG" (CPUID.1:ECX\[31\]); MSR and counter values are the hypervisor' \
        "$TMP/single/run-0001.txt" || { echo "no hypervisor line"; return 1; }
}

# -code with a binary file from the host, and -verbose's exact readings in
# nanoBench's layout: every measured region is 11 fixed instructions plus
# the copies. The tables stay out of the CSV, also when rebuilt from serial.
test_code_file_and_verbose() {
    printf '\x48\x01\xd8' > "$TMP/add.bin" # add rax, rbx
    local out
    out=$($NB -code "$TMP/add.bin" -unroll_count 2 -n_measurements 2 -warm_up_count 0 -verbose \
        -icount 4 -results "$TMP/verbose") || return 1
    expect_eq "output" "
RDTSC results (unroll_count=2, loop_count=0):

	               Ctr0
	run 0:          208
	run 1:          208

RDTSC results (unroll_count=4, loop_count=0):

	               Ctr0
	run 0:          240
	run 1:          240

RDTSC: 16.00" "$out" || return 1
    expect_eq "csv" "benchmark,event,value,min,max
benchmark,RDTSC,16.00,," "$(grep -v '^platform,' "$TMP/verbose/run-0001.csv")" || return 1
    expect_eq "csv from serial" "$(cat "$TMP/verbose/run-0001.csv")" \
        "$(tools/nb_serial "$TMP/verbose/serial-0001.log")" || return 1
    grep -q $'^\trun 1:          240$' "$TMP/verbose/run-0001.txt" || { echo "no table in run-0001.txt"; return 1; }
}

# expect_cli_error WHAT "EXPECTED STDERR LINE" ARGS... : exit 2, message, no boot.
expect_cli_error() {
    local what=$1 message=$2 err rc
    shift 2
    err=$($NB "$@" -results "$TMP/never" 2>&1 >/dev/null)
    rc=$?
    expect_eq "$what: exit status" 2 "$rc" || return 1
    grep -qF -- "$message" <<<"$err" || { echo "$what: missing '$message' in: $err"; return 1; }
    [[ ! -e $TMP/never ]] || { echo "$what: booted anyway"; return 1; }
}

test_cli_errors() {
    expect_cli_error zero_unroll "nanobench: option -unroll_count: 0 is out of range (1..2147483647)" \
        -asm nop -unroll_count 0 &&
    expect_cli_error negative "nanobench: option -loop_count: -1 is out of range" -asm nop -loop_count -1 &&
    expect_cli_error not_a_number "nanobench: option -n_measurements: 'ten' is not a whole number" \
        -asm nop -n_measurements ten &&
    expect_cli_error too_many_digits "nanobench: option -n_measurements: 99999999999999999999999 is out of range (1..1000000)" \
        -asm nop -n_measurements 99999999999999999999999 &&
    expect_cli_error ambiguous "nanobench: option -m is ambiguous (-median, -min, -max, -msr_config, -metrics, -mica, -mica_max_instructions, -mica_interval and 4 more)" -asm nop -m &&
    expect_cli_error unknown "nanobench: unknown option -frobnicate" -asm nop -frobnicate &&
    expect_cli_error both "options -asm and -code cannot be used together" -asm nop -code /dev/null &&
    expect_cli_error as_error "nanobench: -asm statement 2 'addx rax, rbx': error: no such instruction: \`addx rax,rbx'" \
        -asm "add rax, rbx; addx rax, rbx" &&
    expect_cli_error nasm "nanobench: -asm statement 2 'addx rax, rbx': error: parser: instruction expected" \
        -asm "add rax, rbx; addx rax, rbx" -asm_syntax nasm &&
    expect_cli_error nop_ext "nanobench: -asm statement 1 '|16': the NOP extension is |n with 1 <= n <= 15" -asm "|16" &&
    expect_cli_error missing_code "nanobench: option -code: cannot read $TMP/none.bin: No such file or directory" \
        -code "$TMP/none.bin"
}

# -config and -msr_config contents are checked on the host with the image's
# parsers before anything is built: with -strict_config an event line no
# processor would accept is an error naming the user's file and line (without
# it a warning: tests/qemu/host_checks_tests.sh) (under QEMU the image has no PMU and
# would never read the config). A line only one vendor accepts (AMD's 3-digit
# event codes, Intel's .AnyT) waits for the machine, as on the image.
test_cli_config_contents() {
    mkdir -p "$TMP/cfgdir"
    printf '# events\nC0.00 INST\n0E.01.FOO BAD_MODIFIER\nC4.00\n1CF.04 AMD_ONLY\n3C.00.AnyT INTEL_ONLY\nZZ.01 BAD_CODE\n' > "$TMP/cfgdir/bad.cfg"
    printf 'msr_0x10 TSC_BY_RDMSR\nmsr_zz BAD_ADDRESS\nmsr_0x10\n' > "$TMP/cfgdir/bad.msr"
    printf 'C0.00 INST\n' > "$TMP/cfgdir/good.cfg"
    local err
    err=$($NB -asm nop -config "$TMP/cfgdir/bad.cfg" -strict_config -results "$TMP/never" 2>&1 >/dev/null)
    expect_eq "config errors" "nanobench: $TMP/cfgdir/bad.cfg:3: unknown modifier '.FOO'
nanobench: $TMP/cfgdir/bad.cfg:4: event 'C4.00' has no name
nanobench: $TMP/cfgdir/bad.cfg:7: on Intel: bad event code 'ZZ' (1-2 hex digits); on AMD: bad event code 'ZZ' (1-3 hex digits)
nanobench: 3 errors; nothing was run" "$err" || return 1
    expect_cli_error config "nanobench: $TMP/cfgdir/bad.cfg:3: unknown modifier '.FOO'" \
        -asm nop -config "$TMP/cfgdir/bad.cfg" -strict_config &&
    expect_cli_error msr_address "nanobench: $TMP/cfgdir/bad.msr:2: bad MSR address in 'msr_zz' (hex)" \
        -asm nop -msr_config "$TMP/cfgdir/bad.msr" &&
    expect_cli_error msr_name "nanobench: $TMP/cfgdir/bad.msr:3: 'msr_0x10' needs a name" \
        -asm nop -msr_config "$TMP/cfgdir/bad.msr" &&
    # Suite lines: the file relative to the suite, each file reported once.
    printf 'a: -asm nop -config bad.cfg\nb: -asm nop -config bad.cfg -msr_config good.cfg\n' > "$TMP/cfgdir/s.suite" &&
    expect_cli_error suite_config "nanobench: $TMP/cfgdir/bad.cfg:3: unknown modifier '.FOO'" \
        -suite "$TMP/cfgdir/s.suite" -strict_config &&
    expect_cli_error suite_msr "nanobench: $TMP/cfgdir/good.cfg:1: 'C0.00' is not of the form msr_ADDRESS" \
        -suite "$TMP/cfgdir/s.suite" || return 1
    expect_eq "reported once" 1 "$($NB -suite "$TMP/cfgdir/s.suite" 2>&1 | grep -c ':3: unknown modifier')" || return 1
    # A stick image is not written either.
    $NB -asm nop -config "$TMP/cfgdir/bad.cfg" -strict_config -image "$TMP/cfg.img" >/dev/null 2>&1
    [[ ! -e $TMP/cfg.img ]] || { echo "image written with a bad config"; return 1; }
    # -plan checks them too, before planning.
    expect_eq "-plan status" 2 "$($NB -plan -plan_cpu intel:6:0x55 -config "$TMP/cfgdir/bad.cfg" -strict_config >/dev/null 2>&1; echo $?)"
}

# A suite may come from a pipe or /dev/null (read to EOF, not by its size;
# its relative paths are then the current folder's); only a folder is "Is a
# directory".
test_cli_suite_input_files() {
    expect_cli_error suite_pipe "nanobench: benchmark 'typo' (/dev/fd/" \
        -suite <(printf 'typo: -asm "nop" -unrol_count 5\n') &&
    expect_cli_error suite_pipe_line ":1): unknown option -unrol_count" \
        -suite <(printf 'typo: -asm "nop" -unrol_count 5\n') &&
    expect_cli_error suite_dev_null "nanobench: suite /dev/null has no benchmarks" -suite /dev/null &&
    expect_cli_error suite_pipe_paths "): option -code: cannot read none.bin: No such file" \
        -suite <(printf 'a: -code none.bin\n') &&
    expect_cli_error suite_folder "nanobench: cannot read suite file $TMP: Is a directory" -suite "$TMP"
}

# -image: the count in the message agrees with its noun; a bad place for the
# image is an error before anything is built.
test_cli_image_messages() {
    local err
    # A folder or a missing folder: an error before anything is built.
    mkdir -p "$TMP/imgdir"
    expect_cli_error image_folder "nanobench: -image $TMP/imgdir: is a folder; give the name of the image file" \
        -asm "NOP" -image "$TMP/imgdir" || return 1
    expect_eq "folder left alone" "" "$(ls -A "$TMP/imgdir")" || return 1
    expect_cli_error image_no_folder "nanobench: -image $TMP/nowhere/x.img: $TMP/nowhere does not exist" \
        -asm "NOP" -image "$TMP/nowhere/x.img" || return 1
    [[ ! -e $TMP/nowhere ]] || { echo "created $TMP/nowhere"; return 1; }
    # A device or FIFO is not replaced by the image (mv would put a plain file
    # where /dev/sdX or /dev/null was).
    mkfifo "$TMP/fifo"
    expect_cli_error image_fifo "nanobench: -image $TMP/fifo: not a regular file; write the image to a file, then dd it to the stick" \
        -asm "NOP" -image "$TMP/fifo" || return 1
    [[ -p $TMP/fifo ]] || { echo "the FIFO was replaced"; return 1; }
    echo x >"$TMP/plainfile"
    expect_cli_error image_file_as_folder "nanobench: -image $TMP/plainfile/x.img: $TMP/plainfile is not a folder" \
        -asm "NOP" -image "$TMP/plainfile/x.img" || return 1
    err=$($NB -asm "NOP" -image "$TMP/one.img" 2>&1 >/dev/null) || { echo "$err"; return 1; }
    grep -qF "nanobench: wrote $TMP/one.img (1 benchmark); write it to a USB stick with" <<<"$err" ||
        { echo "message: $err"; return 1; }
    printf 'a: -asm "nop"\nb: -asm "nop"\n' >"$TMP/two-img.suite"
    err=$($NB -suite "$TMP/two-img.suite" -image "$TMP/two.img" 2>&1 >/dev/null) || { echo "$err"; return 1; }
    grep -qF "nanobench: wrote $TMP/two.img (2 benchmarks); write it" <<<"$err" || { echo "message: $err"; return 1; }
}

# Paths on the command line are the shell's: relative to the current folder
# (a suite's own -code/-config paths are relative to the suite file), and a
# file that cannot be read is reported once, not once per benchmark.
test_cli_paths_resolve_against_cwd() {
    mkdir -p "$TMP/cwd/sub"
    printf 'a: -asm "nop"\nb: -asm "nop"\nc: -asm "nop" -config local.cfg\n' >"$TMP/cwd/sub/s.suite"
    printf 'C0.00 INST\n' >"$TMP/cwd/here.cfg"
    printf 'msr_0x10 TSC\n' >"$TMP/cwd/here.msr"
    printf 'C0.00 INST\n' >"$TMP/cwd/sub/local.cfg"
    printf '\x90' >"$TMP/cwd/nop.bin"
    local err rc
    err=$(cd "$TMP/cwd" && "$ROOT/$NB" -suite sub/s.suite -config here.cfg -msr_config here.msr \
        -code_init nop.bin -image "$TMP/cwd.img" 2>&1)
    rc=$?
    expect_eq "exit status" 0 "$rc" || { echo "$err"; return 1; }
    local listing
    listing=$(MTOOLS_SKIP_CHECK=1 mdir -/ -b -i "$TMP/cwd.img@@1M" ::/nanobench) || return 1
    for f in configs/a.cfg configs/a.msr configs/c.cfg code/code.bin; do
        grep -qxF "::/nanobench/$f" <<<"$listing" || { echo "missing $f in image: $listing"; return 1; }
    done
    # b's -code_init is nop.bin's one byte, a slice of code/code.bin.
    MTOOLS_SKIP_CHECK=1 mtype -i "$TMP/cwd.img@@1M" ::/nanobench/suite.nb | tr -d '\r' |
        grep -Eq '^b: -code_init code/code\.bin:[0-9]+:1 ' ||
        { echo "b's -code_init is not a 1-byte slice of code/code.bin"; return 1; }
    err=$(cd "$TMP/cwd" && "$ROOT/$NB" -suite sub/s.suite -config none.cfg -code_init none.bin \
        -results "$TMP/never" 2>&1)
    rc=$?
    expect_eq "missing: exit status" 2 "$rc" || return 1
    expect_eq "missing: messages" "nanobench: option -code_init: cannot read none.bin: No such file or directory
nanobench: option -config: cannot read none.cfg: No such file or directory
nanobench: 2 errors; nothing was run" "$err"
}

# -asm_syntax nasm: the nasm dialect (tests/unit/test_asm_translate.c checks
# the bytes): what cannot be accepted names the statement and says what to
# write instead; statement numbers survive statements that became several
# nasm lines; messages show the user's label names. One suite, one nasm run:
# the same label in two benchmarks, and in -asm_init and -asm of one, is fine.
# (GNU as, the default: tests/qemu/gas_tests.sh.)
test_cli_asm_input() {
    expect_cli_error section "nanobench: -asm statement 2 'section .data': the harness places the code, so section, segment, absolute and org cannot be used; put data inline (db/dq or .byte/.quad, jumped over) or store it through R14 in -asm_init" \
        -asm "nop; section .data" -asm_syntax nasm &&
    expect_cli_error p2align "nanobench: -asm_init statement 1 '.p2align 4': gas's .p2align is not nasm: write nasm's align N (N in bytes: .p2align 4 is align 16)" \
        -asm_init ".p2align 4" -asm nop -asm_syntax nasm &&
    expect_cli_error numbering "nanobench: -asm statement 3 'addx rax, rbx': error: parser: instruction expected" \
        -asm "lea rax, [rip+4]; 3*|nop; nop| # six NOPs; addx is in the comment
addx rax, rbx" -asm_syntax nasm &&
    expect_cli_error label_names "nanobench: -asm statement 2 'l: nop': error: label \`l' inconsistently redefined" \
        -asm "l: nop; l: nop" -asm_syntax nasm || return 1
    cat > "$TMP/labels.suite" <<'SUITE'
defaults: -asm_syntax nasm
one: -asm_init "l: nop" -asm "l: jmp l"
two: -asm "l: jmp l; %define RBX RCX"
SUITE
    local err rc
    err=$($NB -suite "$TMP/labels.suite" -image "$TMP/labels.img" 2>&1 >/dev/null)
    rc=$?
    expect_eq "labels.suite exit status" 0 "$rc" || { echo "$err"; return 1; }
    expect_eq "labels.suite first line" "nanobench: wrote $TMP/labels.img (2 benchmarks); write it to a USB stick with" \
        "$(head -1 <<<"$err")"
}

# -h/-help print the usage and every option (from docs/options.md's tables);
# nothing to measure is an error with the usage, not an empty benchmark.
test_help_and_usage() {
    local out rc
    for flag in -h -help --help; do
        out=$($NB $flag 2>&1)
        rc=$?
        expect_eq "$flag exit status" 0 "$rc" || return 1
        grep -q '^  -unroll_count N  *copies of the code' <<<"$out" || { echo "$flag: no -unroll_count row"; return 1; }
        grep -q '^  -suite FILE  *run every benchmark' <<<"$out" || { echo "$flag: no -suite row"; return 1; }
        grep -q '^  -fixed_counters ' <<<"$out" || { echo "$flag: no -fixed_counters row"; return 1; }
        grep -q '^  -plan_cpu VENDOR:FAMILY:MODEL\[:p/:e\]\[:stepping=N\]\[:native=ID\]\[:GPCOUNTERS\]  *the processor -plan describes' <<<"$out" ||
            { echo "$flag: no -plan_cpu row"; return 1; }
    done
    out=$($NB 2>&1)
    rc=$?
    expect_eq "bare exit status" 2 "$rc" || return 1
    expect_eq "bare last line" "nanobench: nothing to measure: give -asm, -code or -suite (or -selftest)" \
        "$(tail -1 <<<"$out")" || return 1
    grep -q '^tools/nanobench -suite FILE' <<<"$out" || { echo "no usage before the error"; return 1; }
}

test_suite_errors_name_the_line() {
    cat > "$TMP/bad.suite" <<'SUITE'
good: -asm "nop"
# a comment
typo: -asm "nop" -unrol_count 5
asm_error: -asm "mov rax, [rbx" \
     -unroll_count 2
good: -asm "nop"
SUITE
    local err rc
    err=$($NB -suite "$TMP/bad.suite" -results "$TMP/never" 2>&1 >/dev/null)
    rc=$?
    expect_eq "exit status" 2 "$rc" || return 1
    expect_eq "messages" "nanobench: benchmark 'typo' ($TMP/bad.suite:3): unknown option -unrol_count
nanobench: benchmark 'good' ($TMP/bad.suite:6): duplicate benchmark name (first defined at $TMP/bad.suite:1)
nanobench: benchmark 'asm_error' ($TMP/bad.suite:4): -asm statement 1 'mov rax, [rbx': error: bad expression
nanobench: benchmark 'asm_error' ($TMP/bad.suite:4): -asm statement 1 'mov rax, [rbx': error: junk \`rbx' after expression
nanobench: 3 errors; nothing was run" "$err"
}

# Options of the command line alone, on a suite line, are an error naming the
# line (a defaults line once, not once per benchmark after it).
test_suite_cli_only_options() {
    cat > "$TMP/cli-only.suite" <<'SUITE'
plan: -asm "nop" -plan
cpu: -asm "nop" -plan_cpu intel:6:0x55:2
image: -asm "nop" -image x.img
defaults: -icount 4
after: -asm "nop"
later: -asm "nop"
SUITE
    local err rc m="options -suite, -image, -results, -icount, -plan and -plan_cpu belong on the command line"
    err=$($NB -suite "$TMP/cli-only.suite" -results "$TMP/never" 2>&1 >/dev/null)
    rc=$?
    expect_eq "exit status" 2 "$rc" || return 1
    expect_eq "messages" "nanobench: benchmark 'plan' ($TMP/cli-only.suite:1): $m
nanobench: benchmark 'cpu' ($TMP/cli-only.suite:2): $m
nanobench: benchmark 'image' ($TMP/cli-only.suite:3): $m
nanobench: defaults ($TMP/cli-only.suite:4): $m
nanobench: 4 errors; nothing was run" "$err"
}

# Errors only the image can see (a hand-edited suite.nb): each benchmark gets
# an error line, the others still run, and a second boot of the same image
# writes run-0002 without touching run-0001.
test_target_errors_and_run_numbers() {
    local stage=$TMP/stage img=$TMP/target.img
    build/host/nb_compile "$stage" -asm "ADD RAX, RBX" -unroll_count 10 || return 1
    rm -rf "$stage/cli.env" "$stage/work"
    cat >> "$stage/nanobench/suite.nb" <<'SUITE'
bad_option: -code code/code.bin -unroll_count 0
no_such_cpu: -code code/code.bin -cpu 7
host_only: -asm "nop"
missing: -code code/missing.bin
no_colon here
after: -code code/code.bin -unroll_count 10 -l 2
past_end: -code code/code.bin:2:5
bad_slice: -code code/code.bin:2
SUITE
    mkdir -p "$stage/EFI/BOOT" && cp build/efi/BOOTX64.EFI "$stage/EFI/BOOT/"
    images/mkimage.sh "$img" "$stage" || return 1
    images/qemu-run.sh "$img" "$TMP/boot1.log" --icount 4 || return 1
    images/qemu-run.sh "$img" "$TMP/boot2.log" --icount 4 || return 1
    images/extract.sh "$img" "$TMP/target" || return 1
    local body
    body=$(sed -n '/^\[benchmark\]/,$p' "$TMP/target/run-0001.txt")
    expect_eq "report" "[benchmark]
RDTSC: 16.00
[bad_option]
error: suite line 4: option -unroll_count: 0 is out of range (1..2147483647)
[no_such_cpu]
error: suite line 5: option -cpu: processor 7 does not exist (this machine has 1 enabled processor, 0..0)
[host_only]
error: suite line 6: option -asm is only understood by the host tool (tools/nanobench); on the image use the -code variant with a binary file
[missing]
error: suite line 7: option -code: cannot read nanobench/code/missing.bin (no such file on the image)
[no_colon]
error: suite line 8: expected 'name: options' (a benchmark name followed by a colon)
[after]
RDTSC: 16.00
[past_end]
error: suite line 10: option -code: code/code.bin:2:5 is past the end of nanobench/code/code.bin (3 bytes)
[bad_slice]
error: suite line 11: option -code: code/code.bin:2 is neither a file nor FILE:OFFSET:LENGTH
nanoBench-EFI done: 9 benchmarks, 7 errors, finish: shutdown" "$body" || return 1
    expect_eq "csv error row" 'missing,error,suite line 7: option -code: cannot read nanobench/code/missing.bin (no such file on the image),,' \
        "$(grep '^missing,' "$TMP/target/run-0001.csv")" || return 1
    [[ -f $TMP/target/run-0002.txt ]] || { echo "second boot did not write run-0002.txt"; return 1; }
    expect_eq "run-0001 untouched by boot 2" "$body" "$(sed -n '/^\[benchmark\]/,$p' "$TMP/target/run-0001.txt")" || return 1
    grep -q 'results: nanobench/results/run-0002.txt' "$TMP/target/run-0002.txt" ||
        { echo "run-0002 does not name itself"; return 1; }
    expect_eq "last-run" 2 "$(tr -d '\r\n' < "$TMP/target/last-run")"
}

# -image writes a GPT disk with one EFI System Partition holding the app and the suite.
test_image_layout() {
    $NB -suite tests/qemu/engine.suite -image "$TMP/usb.img" 2>/dev/null || return 1
    local table
    table=$(sgdisk -p "$TMP/usb.img" 2>/dev/null) || { echo "no GPT"; return 1; }
    grep -Eq '^ +1 +2048 .* EF00 ' <<<"$table" || { echo "partition 1 is not an ESP at 1 MiB:"; echo "$table"; return 1; }
    # tools/nb_gpt writes the table: both headers and entry arrays must check out.
    grep -q '^No problems found' <<<"$(sgdisk -v "$TMP/usb.img" 2>&1)" ||
        { echo "sgdisk -v finds problems:"; sgdisk -v "$TMP/usb.img"; return 1; }
    grep -q 'NANOBENCH' <<<"$table" || { echo "partition name missing: $table"; return 1; }
    local listing
    listing=$(MTOOLS_SKIP_CHECK=1 mdir -/ -b -i "$TMP/usb.img@@1M" ::) || return 1
    for f in ::/EFI/BOOT/BOOTX64.EFI ::/nanobench/suite.nb ::/nanobench/code/code.bin; do
        grep -qxF "$f" <<<"$listing" || { echo "missing $f in image: $listing"; return 1; }
    done
    # The metric files (and the configs they name) go on the image for -metrics
    # and for -calibrate, whose level check reads its events from them.
    grep -q '^::/nanobench/configs/metrics/' <<<"$listing" && { echo "metric files without -metrics or -calibrate"; return 1; }
    $NB -asm nop -calibrate -image "$TMP/cal.img" 2>/dev/null || return 1
    listing=$(MTOOLS_SKIP_CHECK=1 mdir -/ -b -i "$TMP/cal.img@@1M" ::) || return 1
    for f in ::/nanobench/configs/metrics/Skylake.txt ::/nanobench/configs/cfg_Skylake_all_core.txt; do
        grep -qxF "$f" <<<"$listing" || { echo "-calibrate: missing $f in image"; return 1; }
    done
}

# Counters under TCG: -config is accepted, the image says in one line why no
# PMU is usable (CPUID for an Intel model, the probe for an AMD one whose
# counter MSRs do not keep a value), and RDTSC stays exact.
test_no_pmu_intel_cpuid() {
    printf '0E.01.CMSK=1.INV UOPS_ISSUED.STALL_CYCLES\nC0.00 INST_RETIRED\n' > "$TMP/skl.cfg"
    local out
    out=$(QEMU_CPU=Skylake-Client QEMU_EXTRA= $NB -asm "ADD RAX, RBX; ADD RBX, RAX" -config "$TMP/skl.cfg" \
        -icount 4 -results "$TMP/pmu_intel" 2>/dev/null) || return 1
    expect_eq "output" "RDTSC: 32.00" "$out" || return 1
    expect_eq "pmu line" "pmu: none usable: CPUID.0AH reports architectural perfmon version 0 with 0 counters (version 2 or later needed); measuring RDTSC only" \
        "$(grep '^pmu:' "$TMP/pmu_intel/run-0001.txt")" || return 1
    # QEMU's Intel models have MSR_SMI_COUNT: every measurement was checked, and stayed exact.
    expect_eq "smi line" "smi: 0 SMIs since reset (MSR_SMI_COUNT); a measurement with an SMI is repeated" \
        "$(grep '^smi:' "$TMP/pmu_intel/run-0001.txt")" || return 1
    expect_eq "lfence line" "lfence: dispatch-serialising (Intel)" "$(grep '^lfence:' "$TMP/pmu_intel/run-0001.txt")"
}

# -metrics without a PMU: every metric is n/a, the reason once; RDTSC stays exact.
test_metrics_without_pmu() {
    local out
    out=$(QEMU_CPU=Skylake-Client QEMU_EXTRA= $NB -asm "ADD RAX, RBX; ADD RBX, RAX" -metrics cpi \
        -icount 4 -results "$TMP/metrics" 2>/dev/null) || return 1
    expect_eq "output" "RDTSC: 32.00
CPI: n/a (no usable PMU: CPUID.0AH reports architectural perfmon version 0 with 0 counters (version 2 or later needed))
NOMINAL_CPI: n/a
TSC_PER_INST: n/a
IPC: n/a
EFFECTIVE_MHZ: n/a
REF_PER_TSC: n/a" "$out" || return 1
    expect_eq "csv" "benchmark,metric.CPI,n/a (no usable PMU: CPUID.0AH reports architectural perfmon version 0 with 0 counters (version 2 or later needed)),,
benchmark,metric.IPC,n/a,," "$(grep -E ',metric\.(CPI|IPC),' "$TMP/metrics/run-0001.csv")"
}

# -metrics codemon on a Zen 3 model (EPYC-Milan, family 19h model 1) without a
# PMU: the image reads Zen3.txt and codemon_zen2.txt from the medium; the
# metrics its events cannot give print their `na` reasons (METRICS-FACTS 3a),
# the rest n/a for the missing PMU (its reason once).
test_metrics_codemon_na_reasons() {
    local out
    out=$(QEMU_CPU=EPYC-Milan QEMU_EXTRA= $NB -asm "ADD RAX, RBX; ADD RBX, RAX" -metrics codemon -icount 4 \
        2>/dev/null) || return 1
    expect_eq "output" "RDTSC: 32.00
PROG_CPUI: n/a (no usable PMU: counter 0 (MSR 0xc0010004) read back 0x0 after writing 0x5a5a)
PROG_CPI: n/a
PROG_UCPUI: n/a
PROG_UCPI: n/a
PROG_DELAY_RATIO: n/a
FLUSH_RATIO: n/a
L1D_FPU_RATIO: n/a (no AMD event counts L1D-bound stall cycles (section 3a))
EXE_RATIO: n/a (no ex_no_retire (0D6) event on Zen 2/3 (sections 1c, 3a))
OTHER_BE_RATIO: n/a
FE_RATIO: n/a
PROG_ACCESS_DELAY_RATIO: n/a
CM_L2_MISS_RATIO: n/a
CM_L3_MISS_RATIO: n/a
CACHE_DELAY_RATIO: n/a
MEM_DELAY_RATIO: n/a
TLB_DELAY_RATIO: n/a
FP_SPEED: n/a
SYS_UTILIZE: n/a" "$out"
}

test_no_pmu_amd_probe() {
    local out
    out=$(QEMU_CPU=EPYC $NB -asm "ADD RAX, RBX" -unroll_count 10 -fixed_counters -icount 4 \
        -results "$TMP/pmu_amd" 2>/dev/null) || return 1
    expect_eq "output" "RDTSC: 16.00" "$out" || return 1
    expect_eq "pmu line" "pmu: none usable: counter 0 (MSR 0xc0010004) read back 0x0 after writing 0x5a5a; measuring RDTSC only" \
        "$(grep '^pmu:' "$TMP/pmu_amd/run-0001.txt")" || return 1
    # Family 17h: DE_CFG[1] is tried; QEMU drops the write, and the line says so.
    expect_eq "lfence line" "lfence: NOT known to serialise: DE_CFG[1] did not stick (read back 0x0); the measured code may leak past the counter reads" \
        "$(grep '^lfence:' "$TMP/pmu_amd/run-0001.txt")"
}

# The platform report (kernel/platform/platform_report.h) of the runs above: QEMU's
# own values exactly (its CPU models' caches and TLBs, OVMF's firmware
# facts, QEMU's SMBIOS tables, -m 512), the facts that vary (TSC
# calibration, free memory, page counts) by their shape. The CSV carries the
# same rows (test_csv_matches_serial checks nb_serial rebuilds them).
test_platform_report() {
    local txt=$TMP/engine/run-0001.txt
    [[ -f $txt ]] || { echo "no engine run"; return 1; }
    expect_eq "max CPU" "$(cat tests/qemu/platform_max.expected)" \
        "$(grep '^platform: ' "$txt" | grep -v 'tsc\.\|memory\.\(usable\|largest\)\|paging\.pages')" || return 1
    expect_eq "Skylake-Client caches" "$(cat tests/qemu/platform_skylake.expected)" \
        "$(grep '^platform: \(cache\|tlb\|metrics\)' "$TMP/pmu_intel/run-0001.txt")" || return 1
    expect_eq "EPYC caches" "$(cat tests/qemu/platform_epyc.expected)" \
        "$(grep '^platform: \(cache\|tlb\|metrics\)' "$TMP/pmu_amd/run-0001.txt")" || return 1
    local usable
    usable=$(sed -n 's/^platform: memory.usable_bytes = //p' "$txt")
    (( usable > 400 * 1048576 && usable <= 512 * 1048576 )) || { echo "usable memory $usable"; return 1; }
    grep -q '^platform: tsc.calibrated_hz = [1-9][0-9]*$' "$txt" || { echo "no calibrated TSC"; return 1; }
    grep -q '^platform,smbios.system.product,"Standard PC (Q35 + ICH9, 2009)",,$' \
        "$TMP/engine/run-0001.csv" || { echo "no CSV row for the SMBIOS product"; return 1; }
}

# -r14_size etc.: an area the firmware cannot give is an error for that
# benchmark only; a 4 MiB area is usable at both ends and -verbose says where.
test_area_sizes() {
    cat > "$TMP/areas.suite" <<'SUITE'
too_big: -asm "mov rax, [r14]" -r14_size 0x40000000
four_mib: -asm "mov [r14 + 0x1FFFF8], rax; mov [r14 - 0x200000], rax" -r14_size 4194304 -verbose
after: -asm "ADD RAX, RBX"
SUITE
    local out
    # QEMU_MEM=512: the 1 GiB area cannot fit (without it QEMU would get the 2 GiB it needs).
    out=$(QEMU_MEM=512 $NB -suite "$TMP/areas.suite" -icount 4 -results "$TMP/areas" 2>"$TMP/areas.err")
    # Each error is printed once: in a suite, under its benchmark on stdout.
    ! grep -q 'error:' "$TMP/areas.err" || { echo "error lines also on stderr:"; cat "$TMP/areas.err"; return 1; }
    expect_eq "results" "[too_big]
error: suite line 1: option -r14_size: the firmware has no free block of 1073741824 contiguous bytes
[four_mib]
RDTSC: 32.00
[after]
RDTSC: 16.00" "$(grep -v -e '^verbose:' -e '^$' -e $'^\t' -e ' results (unroll_count=[0-9]*, loop_count=0):$' <<<"$out")" ||
        return 1
    grep -q '^verbose: R14 area 0x[0-9a-f]*, 4194304 bytes (R14 at 0x[0-9a-f]*)$' "$TMP/areas/run-0001.txt" ||
        { echo "no -verbose area line"; return 1; }
}

# Pointer chasing (tools/gen_latency_suite.sh): the chain is one cycle through
# every node, checked before measuring (one dependent load per instruction:
# exactly 16 ticks under -icount 4); a broken chain stops at UD2. The shipped
# configs/latency.suite is what the script writes for the sizes in its header.
# -calibrate: the pointer-chase latencies once per boot (kernel/engine/bench_calibrate.h),
# at footprints from QEMU's cache report (max CPU: L1d 64 KiB, L2 512 KiB,
# L3 16 MiB); without a PMU in TSC ticks, and under -icount 4 one load is
# one instruction: exactly 16 ticks at every level, the TLB walk too (its
# 8192 4 KiB pages hooked into PML4 entry 255 of OVMF's tables, so N4 =
# 0.00), and 16 ns for DRAM (the TSC counts at 1 GHz under -icount 4; the
# image's estimate of about 1.0002 GHz gives 15.997, printed 16.00); QEMU
# has no PMU, so the counter check of each level is not done, and says why. The
# second benchmark asks again and does not repeat it; the third loads from
# the window after it was unhooked: a page fault.
test_calibrate() {
    printf 'add: -asm "add rax, rbx" -calibrate\nadd2: -asm "add rax, rbx"\ngone: -asm "movabs rax, [0x7F8000000000]"\n' \
        > "$TMP/calibrate.suite"
    local out
    out=$(suite_with_errors calibrate "$TMP/calibrate.suite" -calibrate -icount 4) || { echo "$out"; return 1; }
    expect_eq "calibration" "[add]
calibration: L1 16.00 TSC ticks, L2 16.00 TSC ticks, L3 16.00 TSC ticks, DRAM 16.00 TSC ticks, TLB walk 16.00 TSC ticks (TSC ticks per dependent load: no usable PMU)
calibration: footprints L1 32768 bytes, L2 262144 bytes, L3 8388608 bytes, DRAM 268435456 bytes, TLB walk 8192 pages of 4 KiB on 262144 bytes
calibration: check not done: no usable PMU (the load-hit and page-walk counters need one)
calibration: N1 (L2 - L1) 0.00, N2 (L3 - L1) 0.00, N3 (DRAM - L1) 0.00, N4 (TLB walk - L2) 0.00 TSC ticks
calibration: DRAM 16.00 ns (TSC ticks per load / the TSC frequency)
RDTSC: 16.00
[add2]
RDTSC: 16.00
[gone]
error: #PF(0x0) at main code+0x0 (copy 1 of 1000, base run), address 0x7f8000000000" "$(grep -v '^nanobench: ' <<<"$out")"
}

test_latency_suite() {
    local args
    args=$(sed -n '1s/^# Generated by tools\/gen_latency_suite.sh //p' configs/latency.suite)
    expect_eq "configs/latency.suite" "$(cat configs/latency.suite)" "$(tools/gen_latency_suite.sh $args)" || return 1
    tools/gen_latency_suite.sh l1:16384:64 l2:131072:64 page:8519680:4160 > "$TMP/latency.suite" || return 1
    # A chain whose first node points to itself: the check must refuse it.
    tools/gen_latency_suite.sh broken:16384:64 | sed 's/jnz shuffle_broken/jnz shuffle_broken; mov qword ptr [rdi], rdi/' \
        >> "$TMP/latency.suite"
    local out
    out=$($NB -suite "$TMP/latency.suite" -icount 4 -results "$TMP/latency" 2>/dev/null)
    expect_eq "results" "[l1]
RDTSC: 16.00
[l2]
RDTSC: 16.00
[page]
RDTSC: 16.00
[broken]
error: #UD at one-time init code+0x92 (one-time init)" "$out"
}

# -msr_config: the lines are measured with RDMSR after their writes (RDMSR
# is not an exact icount point, so only the shape of the value is checked);
# bad lines are refused on the host (test_cli_config_contents), before a boot.
test_msr_config() {
    printf '# MSR config\nmsr_0x10 TSC_BY_RDMSR\nmsr_0xC0000103=7.msr_0xC0000103=0x9 msr_C0000103h TSC_AUX\n' > "$TMP/t.msr"
    local out err
    out=$($NB -asm "ADD RAX, RBX; ADD RBX, RAX" -msr_config "$TMP/t.msr" -icount 4 \
        -results "$TMP/msr" 2>"$TMP/msr.err") || return 1
    err=$(grep '^warning' "$TMP/msr.err")
    expect_eq "warnings" "" "$err" || return 1
    grep -qx 'RDTSC: 32.00' <<<"$out" || { echo "no exact RDTSC: $out"; return 1; }
    grep -Eqx 'TSC_BY_RDMSR: [0-9]+\.[0-9]{2}' <<<"$out" || { echo "no TSC_BY_RDMSR: $out"; return 1; }
    # TSC_AUX holds the value written before the run: it does not change, so main - base = 0.
    grep -qx 'TSC_AUX: 0.00' <<<"$out" || { echo "no TSC_AUX: $out"; return 1; }
}

# The magic pause/resume bytes without -no_mem: an error on the host (exit 2),
# before anything boots (the image refuses such code too, bench_run.c).
test_magic_bytes_need_no_mem() {
    expect_cli_error magic "nanobench: the main code contains nanoBench's pause/resume magic bytes (0xF0B513B1C2813F04 / 0xE0B513B1C2813F04), which need -no_mem" \
        -asm "nop; .quad 0xF0B513B1C2813F04; nop; .quad 0xE0B513B1C2813F04" -icount 4
}

# Vector code: AVX/AVX2/FMA with exact values, YMM state from the init code,
# the firmware's state restored for the next benchmark, and -cpu 1 (derivations
# in vector.suite). The fingerprint names the enabled XSAVE components.
test_vector_suite() {
    local out rc
    out=$($NB -suite tests/qemu/vector.suite -icount 4 -results "$TMP/vector" 2>/dev/null)
    rc=$?
    expect_eq "exit status" 0 "$rc" && expect_eq "results" "$(cat tests/qemu/vector.expected)" "$out" || return 1
    # QEMU's max CPU: CPUID.(0DH,0) allows x87|SSE|AVX (and PKRU, which stays
    # off); the standard-form area is 512 + 64 + 256 bytes.
    expect_eq "xsave line" "xsave: XCR0 0x7 (x87 SSE AVX), 832-byte area" \
        "$(grep '^xsave:' "$TMP/vector/run-0001.txt")"
}

# -cpu 1: the CLI boots two processors; the benchmark and its CPUID run on
# processor 1 (APIC ID 1), and the result is still exact.
test_cpu_option() {
    local out
    out=$($NB -asm "ADD RAX, RBX; ADD RBX, RAX" -cpu 1 -icount 4 -results "$TMP/cpu" 2>/dev/null) || return 1
    expect_eq "output" "RDTSC: 32.00" "$out" || return 1
    expect_eq "processor line" "processor: 1 (APIC ID 1) of 2" "$(grep '^processor:' "$TMP/cpu/run-0001.txt")"
}

# -cpu beyond what QEMU can boot (q35: 255 processors without x2APIC
# interrupt remapping, "current -smp configuration requires kernel irqchip
# and X2APIC API support" from -smp 256) is refused before a boot; an image
# for a real machine may name any processor, and the highest -cpu QEMU can
# give gets exactly the processors it needs.
test_cli_cpu_beyond_qemu() {
    local m="processors 0..254 (beyond APIC ID 254 it needs x2APIC interrupt remapping); -image FILE writes an image for a machine that has it"
    expect_cli_error cpu_255 "nanobench: option -cpu 255: QEMU's q35 machine boots at most 255 $m" -asm nop -cpu 255 &&
    printf 'a: -asm nop\nbig: -asm nop -cpu 1000\n' > "$TMP/bigcpu.suite" &&
    expect_cli_error cpu_suite "nanobench: benchmark 'big' ($TMP/bigcpu.suite:2): option -cpu 1000: QEMU's q35 machine boots at most 255 $m" \
        -suite "$TMP/bigcpu.suite" || return 1
    $NB -suite "$TMP/bigcpu.suite" -image "$TMP/bigcpu.img" >/dev/null 2>&1 || { echo "-image refused -cpu 1000"; return 1; }
    build/host/nb_compile "$TMP/cpu254" -asm nop -cpu 254 -icount 4 >/dev/null 2>&1 || { echo "-cpu 254 refused"; return 1; }
    expect_eq "-cpu 254 processors" "NB_SMP=255" "$(grep '^NB_SMP=' "$TMP/cpu254/cli.env")" || return 1
    # Many processors under -icount: a notice of the slow boot (about 1 s per
    # processor, docs/counters.md "Other processors") and a host watchdog whose allowed
    # silence grows with them (docs/qemu.md: 4 x 10 s + 60 s for -timeout 10,
    # + 2 s per processor = 182 s), seen by a stand-in for QEMU in the
    # arguments images/qemu-run.sh got.
    cat >"$TMP/qemu-args" <<'SH'
#!/bin/sh
idle=$(tr '\0' '\n' </proc/$PPID/cmdline | grep -A1 -x -- --idle | tail -n 1)
echo "$idle $*" > "$(dirname "$0")/qemu-args.out"
exit 1
SH
    chmod +x "$TMP/qemu-args"
    local err
    err=$(QEMU=$TMP/qemu-args $NB -asm nop -cpu 40 -icount 4 -results "$TMP/many" 2>&1 >/dev/null)
    grep -qxF "nanobench: QEMU boots 41 processors for -cpu 40; under TCG with -icount each adds about 1 s to the boot" <<<"$err" ||
        { echo "no notice in: $err"; return 1; }
    expect_eq "allowed silence and -smp" "182 -smp 41" "$(grep -o '^[0-9]* \|-smp [0-9]*' "$TMP/qemu-args.out" | tr -d '\n')"
}

# tools/nanobench -selftest: configs/selftest.suite under QEMU -icount 4. The
# image decides every check itself: RDTSC is exactly 16.00 per instruction
# (one instruction per copy, 2^4 ticks each), the counter checks are SKIPPED
# with the fingerprint's no-PMU reason, the -cpu 1 benchmark runs on the second
# processor the CLI boots, and avx_chain's VADDPS runs because the image
# enables XSAVE/AVX state (it was #UD before). Nothing FAILs: exit status 0.
test_selftest() {
    local out rc suite
    out=$($NB -selftest -results "$TMP/selftest" 2>/dev/null)
    rc=$?
    expect_eq "exit status" 0 "$rc" || return 1
    expect_eq "checks" "$(cat tests/qemu/selftest.expected)" "$out" || return 1
    expect_eq "results file" "$out" "$(grep -E '^(check|selftest): ' "$TMP/selftest/run-0001.txt")" || return 1
    # A stick image: no -qemu_icount, so on hardware the RDTSC checks are SKIPPED.
    $NB -selftest -image "$TMP/selftest.img" 2>/dev/null || return 1
    suite=$(MTOOLS_SKIP_CHECK=1 mtype -i "$TMP/selftest.img@@1M" ::/nanobench/suite.nb) || return 1
    grep -qF -- '-expect "RDTSC=16.00 if icount=4"' <<<"$suite" || { echo "no -expect in: $suite"; return 1; }
    ! grep -qF -- '-qemu_icount' <<<"$suite" || { echo "-qemu_icount in a stick image: $suite"; return 1; }
    expect_cli_error qemu_icount "option -qemu_icount is set by the CLI from -icount" -asm nop -qemu_icount 4 &&
    expect_cli_error selftest_suite "nanobench: -selftest runs configs/selftest.suite; it cannot be combined with -suite" \
        -selftest -suite tests/qemu/engine.suite &&
    expect_cli_error bad_expect \
        "nanobench: option -expect: bad value '1.001' (a number with at most 2 decimals, or event names)" \
        -asm nop -expect "RDTSC=1.001"
}

# -plan: groups and MSR writes for a described CPU, without booting. Values
# follow the SDM (IA32_PERFEVTSELx: event | umask<<8 | USR | OS | EN | INV<<23 |
# CMASK<<24) and the APM (PERF_CTL: event[11:8] at bits 35:32).
test_plan() {
    printf '0E.01.CMSK=1.INV STALLS\nC0.00 INST\nB7.01.MSR_RSP0=0x10001 OFFCORE_A\nBB.01.MSR_RSP0=0x10002 OFFCORE_B\n' > "$TMP/plan.cfg"
    local out
    out=$($NB -plan -plan_cpu intel:6:0x55:2 -config "$TMP/plan.cfg") || return 1
    expect_eq "intel plan" "# plan for intel:6:0x55:2: intel, config $TMP/plan.cfg
# cpu: Skylake-X (intel family 0x6 model 0x55)
# pmu: perfmon v4, 2 general-purpose counters {0-1} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available
group 1: STALLS@PMC0 INST@PMC1
wrmsr 0x38f 0x0
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x1c3010e
wrmsr 0x187 0x0
wrmsr 0xc2 0x0
wrmsr 0x187 0x4300c0
wrmsr 0x38d 0x0
wrmsr 0x38f 0x3
group 2: OFFCORE_A@PMC0
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x1a6 0x10001
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x4301b7
wrmsr 0x38d 0x0
wrmsr 0x38f 0x1
group 3: OFFCORE_B@PMC0
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x1a6 0x10002
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x4301bb
wrmsr 0x38d 0x0
wrmsr 0x38f 0x1" "$out" || return 1
    printf '1CF.04 ROLLOVER\n' > "$TMP/amd.cfg"
    out=$($NB -plan -plan_cpu amd:0x19:0x61:1 -config "$TMP/amd.cfg") || return 1
    expect_eq "amd plan" "# plan for amd:0x19:0x61:1: amd, config $TMP/amd.cfg
# cpu: Zen 4 (amd family 0x19 model 0x61)
# pmu: 1 counters {0} (48 bits), PerfCtrExtCore yes, PerfMonV2 yes
group 1: ROLLOVER@PMC0
wrmsr 0xc0000301 0x0
wrmsr 0xc0010200 0x0
wrmsr 0xc0010201 0x0
wrmsr 0xc0010200 0x1004304cf
wrmsr 0xc0000301 0x1" "$out" || return 1
    # Sapphire Rapids (8 counters from the model table): the PMC0-3-only
    # event gets PMC0 although the unconstrained one comes first in the config.
    printf 'C0.00 INST\nD1.01.CTR=0-3 L1_HIT\n' > "$TMP/spr.cfg"
    out=$($NB -plan -plan_cpu intel:6:0x8f -config "$TMP/spr.cfg" | grep -v '^wrmsr') || return 1
    expect_eq "spr plan" "# plan for intel:6:0x8f: intel, config $TMP/spr.cfg
# cpu: Sapphire Rapids (intel family 0x6 model 0x8f)
# pmu: perfmon v5, 8 general-purpose counters {0-7} (48 bits), 4 fixed {0-3} (48 bits), full-width writes yes, PERF_METRICS yes (levels 1 and 2), AnyThread deprecated
group 1: INST@PMC1 L1_HIT@PMC0{0-3}" "$out" || return 1
    # What the image would find on each model of pmu/pmu_models.c (facts and
    # sources there): CPU and PMU lines, the group with counters and sets, and
    # the last write (global enable: GP counters used | fixed 0-2 << 32).
    printf 'D1.01.CTR=0-3 L1_HIT\nC0.00 INST\n' > "$TMP/models.cfg"
    local spec cpu pmu group last
    while IFS='|' read -r spec cpu pmu group last; do
        out=$($NB -plan -plan_cpu "$spec" -config "$TMP/models.cfg" -fixed_counters | sed -n '2,4p;$p') || return 1
        expect_eq "plan $spec" "$cpu
$pmu
$group
$last" "$out" || return 1
    done <<'TABLE'
intel:6:0x55|# cpu: Skylake-X (intel family 0x6 model 0x55)|# pmu: perfmon v4, 4 general-purpose counters {0-3} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available|group 1: L1_HIT@PMC0 INST@PMC1|wrmsr 0x38f 0x700000003
intel:6:0x55:8|# cpu: Skylake-X (intel family 0x6 model 0x55)|# pmu: perfmon v4, 8 general-purpose counters {0-7} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0x38f 0x700000003
intel:6:0x7e|# cpu: Ice Lake (intel family 0x6 model 0x7e)|# pmu: perfmon v5, 8 general-purpose counters {0-7} (48 bits), 4 fixed {0-3} (48 bits), full-width writes yes, PERF_METRICS yes (level 1), AnyThread deprecated|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0x38f 0x700000003
intel:6:0x97:p|# cpu: Alder Lake (intel family 0x6 model 0x97, P-core)|# pmu: perfmon v5, 8 general-purpose counters {0-7} (48 bits), 4 fixed {0-3} (48 bits) (P-core: CPUID.0AH reports the common subset), full-width writes yes, PERF_METRICS yes (levels 1 and 2), AnyThread deprecated|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0x38f 0x700000003
intel:6:0x97:e|# cpu: Alder Lake (intel family 0x6 model 0x97, E-core)|# pmu: perfmon v5, 6 general-purpose counters {0-5} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread deprecated|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0x38f 0x700000003
intel:6:0x8f|# cpu: Sapphire Rapids (intel family 0x6 model 0x8f)|# pmu: perfmon v5, 8 general-purpose counters {0-7} (48 bits), 4 fixed {0-3} (48 bits), full-width writes yes, PERF_METRICS yes (levels 1 and 2), AnyThread deprecated|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0x38f 0x700000003
amd:0x17:0x71|# cpu: Zen 2 (amd family 0x17 model 0x71)|# pmu: 6 counters {0-5} (48 bits), PerfCtrExtCore yes, PerfMonV2 no|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0xc0010202 0x4300c0
amd:0x19:0x21|# cpu: Zen 3 (amd family 0x19 model 0x21)|# pmu: 6 counters {0-5} (48 bits), PerfCtrExtCore yes, PerfMonV2 no|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0xc0010202 0x4300c0
amd:0x19:0x61|# cpu: Zen 4 (amd family 0x19 model 0x61)|# pmu: 6 counters {0-5} (48 bits), PerfCtrExtCore yes, PerfMonV2 yes|group 1: L1_HIT@PMC0{0-3} INST@PMC1|wrmsr 0xc0000301 0x3
TABLE
    # Without -config: the config the image would pick for that model.
    $NB -plan -plan_cpu intel:6:0x5E:4 | head -1 | grep -q 'config .*configs/cfg_Skylake_common.txt$' ||
        { echo "no Skylake default config"; return 1; }
    local rc
    # Another vendor, a family the image refuses, a hybrid model without its core type.
    for spec in via:6:1:4 amd:0x15:0x1 intel:6:0x97; do
        $NB -plan -plan_cpu $spec >/dev/null 2>&1
        rc=$?
        expect_eq "-plan_cpu $spec status" 2 "$rc" || return 1
    done
}

# -plan of a suite: one heading per benchmark, each with its own config,
# -fixed_counters and -msr_config; the MSR config's writes follow the counter
# groups, in the image's order (kernel/engine/bench_counters.c measure_msr_events:
# per MSR event its writes in line order, the run, then each MSR back to the
# value read before it, last first). Values: IA32_PERFEVTSELx = event |
# umask<<8 | USR | OS | EN (0x430000); the unused PERFEVTSEL1 is cleared.
# -plan -metrics: the metric file of the CPU (configs/metrics/Skylake.txt for
# model 0x5e) adds what its groups need, as the image does: cpi reads only the
# fixed counters (programmed with group 1: IA32_FIXED_CTR_CTRL 0x333, global
# enable bits 32-34), memory adds nine events that the scheduler places.
# The up-to-date check before every run costs a find, not a make: make runs
# only when a build input is newer than build/.up-to-date (written after
# a successful make), and again after any change.
test_build_check() {
    local shim=$TMP/make-shim out
    mkdir -p "$shim"
    printf '#!/bin/sh\necho "make $*" >>"%s/make.calls"\nexec /usr/bin/make "$@"\n' "$TMP" >"$shim/make"
    chmod +x "$shim/make"
    rm -f "$TMP/make.calls"
    PATH=$shim:$PATH $NB -plan -plan_cpu intel:6:0x5e:2 -asm nop >/dev/null || return 1
    PATH=$shim:$PATH $NB -plan -plan_cpu intel:6:0x5e:2 -asm nop >/dev/null || return 1
    expect_eq "make calls when current" "" "$(cat "$TMP/make.calls" 2>/dev/null | grep -v '^$' | sed -n '2,$p')" || return 1
    touch -d '2000-01-01' build/.up-to-date
    rm -f "$TMP/make.calls"
    PATH=$shim:$PATH $NB -plan -plan_cpu intel:6:0x5e:2 -asm nop >/dev/null || return 1
    expect_eq "make calls after a change" "make -C $PWD -s --no-print-directory deps all" "$(cat "$TMP/make.calls" 2>/dev/null)" || return 1
    rm -f "$TMP/make.calls"
    PATH=$shim:$PATH $NB -plan -plan_cpu intel:6:0x5e:2 -asm nop >/dev/null || return 1
    expect_eq "make calls once current again" "" "$(cat "$TMP/make.calls" 2>/dev/null)"
}

test_plan_metrics() {
    printf 'C0.00 INST\n' > "$TMP/inst.cfg"
    local out
    out=$($NB -plan -plan_cpu intel:6:0x5e:2 -asm nop -config "$TMP/inst.cfg" -metrics cpi) || return 1
    expect_eq "cpi plan" "# plan for intel:6:0x5e:2: intel, config $TMP/inst.cfg
# cpu: Skylake (intel family 0x6 model 0x5e)
# pmu: perfmon v4, 2 general-purpose counters {0-1} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available
# metrics cpi from configs/metrics/Skylake.txt: 0 events added, fixed counters read
group 1: INST@PMC0
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x4300c0
wrmsr 0x38d 0x0
wrmsr 0x309 0x0
wrmsr 0x30a 0x0
wrmsr 0x30b 0x0
wrmsr 0x38d 0x333
wrmsr 0x38f 0x700000001" "$out" || return 1
    out=$($NB -plan -plan_cpu intel:6:0x5e:4 -asm nop -config "$TMP/inst.cfg" -metrics memory) || return 1
    expect_eq "memory groups" "# metrics memory from configs/metrics/Skylake.txt: 9 events added, fixed counters read
group 1: INST@PMC0 MEM_LOAD_RETIRED.L1_MISS@PMC1 MEM_INST_RETIRED.ALL_LOADS@PMC2 MEM_LOAD_RETIRED.L2_MISS@PMC3
group 2: MEM_LOAD_RETIRED.L3_MISS@PMC0 LONGEST_LAT_CACHE.MISS@PMC1 LONGEST_LAT_CACHE.REFERENCE@PMC2 DTLB_LOAD_MISSES.WALK_COMPLETED@PMC3
group 3: L1D_PEND_MISS.PENDING@PMC0 MEM_LOAD_RETIRED.FB_HIT@PMC1" "$(grep '^# metrics\|^group' <<<"$out")" || return 1
    # Ice Lake-SP and Sapphire Rapids: topdown from PERF_METRICS, with fixed
    # counter 3 (FIXED_CTR3 and PERF_METRICS zeroed, FIXED_CTR_CTRL 15:12,
    # GLOBAL_CTRL bits 48, 35 and the group's PMCs), as Intel's TMA defines it
    # (configs/tables/tma/): level 1 from the four bytes less INT_MISC.UOP_DROPPING
    # (Ice Lake-SP also plus 5 x INT_MISC.CLEARS_COUNT in Backend Bound); Sapphire
    # Rapids reads the level-2 bytes 4-7 from the same snapshot, Ice Lake-SP takes
    # level 2 from ordinary events (two more groups).
    local model td_l1="TOPDOWN.FE_BOUND@PERF_METRICS TOPDOWN.SLOTS@FIXED3 TOPDOWN.BAD_SPEC@PERF_METRICS TOPDOWN.RETIRING@PERF_METRICS TOPDOWN.BE_BOUND@PERF_METRICS"
    # Ice Lake-SP's heavy/light operations need four events perfmon allows on
    # PMC0-3 only ({0-3}), so those go first and the unrestricted ones after.
    local -A td_group=([0x6a]="INST@PMC4 INT_MISC.UOP_DROPPING@PMC5 INT_MISC.CLEARS_COUNT@PMC6 IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE@PMC7 IDQ.MS_UOPS@PMC0{0-3} UOPS_DECODED.DEC0@PMC1{0-3} UOPS_DECODED.DEC0.CMSK1@PMC2{0-3} IDQ.MITE_UOPS@PMC3{0-3} $td_l1
group 2: BR_MISP_RETIRED.ALL_BRANCHES@PMC0 MACHINE_CLEARS.COUNT@PMC1 UOPS_RETIRED.SLOTS@PMC2 UOPS_ISSUED.ANY@PMC3 CYCLE_ACTIVITY.STALLS_MEM_ANY@PMC4 EXE_ACTIVITY.BOUND_ON_STORES@PMC5 CYCLE_ACTIVITY.STALLS_TOTAL@PMC6 EXE_ACTIVITY.1_PORTS_UTIL@PMC7
group 3: EXE_ACTIVITY.2_PORTS_UTIL@PMC0"
        [0x8f]="INST@PMC0 INT_MISC.UOP_DROPPING@PMC1 $td_l1 TOPDOWN.FETCH_LAT@PERF_METRICS TOPDOWN.BR_MISPREDICT@PERF_METRICS TOPDOWN.HEAVY_OPS@PERF_METRICS TOPDOWN.MEM_BOUND@PERF_METRICS")
    local -A td_global=([0x6a]=0x10008000000ff [0x8f]=0x1000800000003)
    for model in 0x6a 0x8f; do
        out=$($NB -plan -plan_cpu intel:6:$model:8 -asm nop -config "$TMP/inst.cfg" -metrics topdown) || return 1
        expect_eq "topdown $model" "group 1: ${td_group[$model]}
wrmsr 0x30c 0x0
wrmsr 0x329 0x0
wrmsr 0x38d 0x3000
wrmsr 0x38f ${td_global[$model]}" "$(grep '^group' <<<"$out"; sed -n '/^group 1/,/^group 2/p' <<<"$out" | grep -v '^group' | tail -4)" || return 1
    done
    # Zen 4 flops: event 003H on an even counter, the MergeEvent FFFH on the odd
    # one programmed first (PPR "Large Increment per Cycle Events").
    printf '0C0.00 INST\n' > "$TMP/amdinst.cfg"
    out=$($NB -plan -plan_cpu amd:0x19:0x61:6 -asm nop -config "$TMP/amdinst.cfg" -metrics flops) || return 1
    expect_eq "zen4 flops" "# metrics flops from configs/metrics/Zen4.txt: 2 events added
group 1: INST@PMC2 LsNotHaltedCyc@PMC3 FpRetSseAvxOps.All@PMC0+MERGE@PMC1{0,2,4}
wrmsr 0xc0010202 0xf004000ff
wrmsr 0xc0010200 0x431f03
wrmsr 0xc0000301 0xf" "$(grep '^# metrics\|^group' <<<"$out"; tail -3 <<<"$out")" || return 1
    # Zen 4 codemon (METRICS-FACTS 3a Zen 4 column): 26 events in 5 groups, the ones
    # of cfg_Zen4_all.txt under AMD's PPR names (LsDmndFillsFromSys.LocalL2 for
    # libpfm4's DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.LCL_L2, ...); the
    # hand-written codemon_zen4.txt adds ex_no_retire.all (0D6/1B: 0x431bd6) and
    # the cycles without front-end ops in all 6 slots (1A0/01 c6: event bits 11:8
    # at bit 32, CntMask 6 at bit 24: 0x1064301a0).
    out=$($NB -plan -plan_cpu amd:0x19:0x61:6 -asm nop -config "$TMP/amdinst.cfg" -metrics codemon) || return 1
    expect_eq "zen4 codemon" "# metrics codemon from configs/metrics/Zen4.txt: 26 events added
group 1: INST@PMC2 LsNotHaltedCyc@PMC3 LsDmndFillsFromSys.LocalL2@PMC4 LsDmndFillsFromSys.LocalCcx@PMC5 FpRetSseAvxOps.All@PMC0+MERGE@PMC1{0,2,4}
group 2: LsDmndFillsFromSys.NearCache@PMC0 LsDmndFillsFromSys.DramIoNear@PMC1 LsDmndFillsFromSys.FarCache@PMC2 LsDmndFillsFromSys.DramIoFar@PMC3 L2CacheReqStat.LsRdBlkC@PMC4 L2CacheReqStat.LsRdBlkX@PMC5
group 3: L2CacheReqStat.LsRdBlkLHitS@PMC0 L2CacheReqStat.LsRdBlkLHitX@PMC1 L2CacheReqStat.LsRdBlkCS@PMC2 LsL1DTlbMiss.TlbReload4KL2Miss@PMC3 LsL1DTlbMiss.TlbReloadCoalescedPageMiss@PMC4 LsL1DTlbMiss.TlbReload2ML2Miss@PMC5
group 4: LsL1DTlbMiss.TlbReload1GL2Miss@PMC0 DeSrcOpDisp.Decoder@PMC1 DeSrcOpDisp.OpCache@PMC2 DeSrcOpDisp.LoopBuffer@PMC3 ExRetOps@PMC4 ExNoRetire.LoadNotComplete@PMC5
group 5: ExNoRetire.NotComplete@PMC0 CYCLES_NO_RETIRE.ALL@PMC1 ExNoRetire.Other@PMC2 DISPATCH_STALLS_1.FE_NO_OPS_CYCLES@PMC3
wrmsr 0xc0010202 0x431bd6
wrmsr 0xc0010206 0x1064301a0" "$(grep '^# metrics\|^group\|1bd6$\|1a0$' <<<"$out")" || return 1
    # Gracemont (Alder Lake-N) codemon: B = UOPS_RETIRED.ALL with CMASK 1 and INV
    # (codemon_ecore.txt, section 3a): 0x1c300c2 on PMC3 (IA32_PERFEVTSEL3, 0x189).
    out=$($NB -plan -plan_cpu intel:6:0xbe:6 -asm nop -config "$TMP/inst.cfg" -metrics codemon) || return 1
    expect_eq "gracemont codemon" "# metrics codemon from configs/metrics/AlderLakeE.txt: 16 events added, fixed counters read
group 1: INST@PMC0 MEM_LOAD_UOPS_RETIRED.L1_MISS@PMC1 MEM_LOAD_UOPS_RETIRED.L2_MISS@PMC2 MEM_LOAD_UOPS_RETIRED.DRAM_HIT@PMC3 LONGEST_LAT_CACHE.MISS@PMC4 LONGEST_LAT_CACHE.REFERENCE@PMC5
group 2: DTLB_LOAD_MISSES.WALK_COMPLETED@PMC0 TOPDOWN_FE_BOUND.ALL@PMC1 TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS@PMC2 UOPS_RETIRED.STALL_CYCLES@PMC3 TOPDOWN_BAD_SPECULATION.ALL@PMC4 LD_HEAD.L1_BOUND_AT_RET@PMC5
wrmsr 0x189 0x1c300c2
group 3: MEM_BOUND_STALLS.LOAD@PMC0 MEM_SCHEDULER_BLOCK.ST_BUF@PMC1 LD_HEAD.ANY_AT_RET@PMC2 MEM_LOAD_UOPS_RETIRED.L2_HIT@PMC3 MEM_LOAD_UOPS_RETIRED.L3_HIT@PMC4" \
        "$(grep '^# metrics\|^group\|c300c2$' <<<"$out")" || return 1
    # Haswell flops: a group of `na` metrics only (no FP_ARITH_INST_RETIRED in its
    # event lists): no event added, the benchmark's own event is planned alone.
    out=$($NB -plan -plan_cpu intel:6:0x3c:4 -asm nop -config "$TMP/inst.cfg" -metrics flops) || return 1
    expect_eq "haswell flops" "# metrics flops from configs/metrics/Haswell.txt: 0 events added
group 1: INST@PMC0" "$(grep '^# metrics\|^group' <<<"$out")" || return 1
    # Haswell codemon: Skylake's mapping with the stand-ins (our mapping): B =
    # UOPS_RETIRED.STALL_CYCLES C2/01 CMASK 1 INV (0x1c301c2), STALLS_LDM_PENDING
    # A3/06 CMASK 6 (0x64306a3) for STALLS_MEM_ANY.
    out=$($NB -plan -plan_cpu intel:6:0x3c:4 -asm nop -config "$TMP/inst.cfg" -metrics codemon) || return 1
    expect_eq "haswell codemon" "# metrics codemon from configs/metrics/Haswell.txt: 14 events added, fixed counters read
group 1: INST@PMC0 MEM_LOAD_UOPS_RETIRED.L1_MISS@PMC1 MEM_LOAD_UOPS_RETIRED.L2_MISS@PMC3 CYCLE_ACTIVITY.STALLS_L1D_PENDING@PMC2{2}
group 2: MEM_LOAD_UOPS_RETIRED.L3_MISS@PMC0 LONGEST_LAT_CACHE.MISS@PMC1 LONGEST_LAT_CACHE.REFERENCE@PMC2 DTLB_LOAD_MISSES.WALK_COMPLETED@PMC3
group 3: INT_MISC.RECOVERY_CYCLES@PMC0 IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE@PMC1 UOPS_RETIRED.STALL_CYCLES@PMC2 CYCLE_ACTIVITY.STALLS_LDM_PENDING@PMC3
wrmsr 0x188 0x1c301c2
wrmsr 0x189 0x64306a3
group 4: CYCLE_ACTIVITY.CYCLES_NO_EXECUTE@PMC0 MEM_LOAD_UOPS_RETIRED.L2_HIT@PMC1 MEM_LOAD_UOPS_RETIRED.L3_HIT@PMC2" \
        "$(grep '^# metrics\|^group\|0x1c301c2$\|0x64306a3$' <<<"$out")"
}

# -plan of a suite: one heading per benchmark, each with its own config,
# -fixed_counters and -msr_config; the MSR config's writes follow the counter
# groups, in the image's order (kernel/engine/bench_counters.c measure_msr_events:
# per MSR event its writes in line order, the run, then each MSR back to the
# value read before it, last first). Values: IA32_PERFEVTSELx = event |
# umask<<8 | USR | OS | EN (0x430000); the unused PERFEVTSEL1 is cleared.
# Ice Lake-SP (perfmon v5, PERF_CAPABILITIES[15]): the top-down pseudo events
# take fixed counter 3 and IA32_PERF_METRICS, both zeroed (FIXED_CTR3 first,
# as Linux does) before FIXED_CTR_CTRL bits 15:12 and GLOBAL_CTRL bits 35 and
# 48 start them; Skylake-X has neither and refuses the lines.
test_plan_topdown() {
    printf 'C0.00 INST\n00.04 TOPDOWN.SLOTS\n00.80 TOPDOWN.RETIRING\n00.81 TOPDOWN.BAD_SPEC\n00.82 TOPDOWN.FE_BOUND\n00.83 TOPDOWN.BE_BOUND\n' > "$TMP/td.cfg"
    local out
    out=$($NB -plan -plan_cpu intel:6:0x6a:8 -config "$TMP/td.cfg") || return 1
    expect_eq "icx topdown plan" "# plan for intel:6:0x6a:8: intel, config $TMP/td.cfg
# cpu: Ice Lake-X (intel family 0x6 model 0x6a)
# pmu: perfmon v5, 8 general-purpose counters {0-7} (48 bits), 4 fixed {0-3} (48 bits), full-width writes yes, PERF_METRICS yes (level 1), AnyThread deprecated
group 1: INST@PMC0 TOPDOWN.SLOTS@FIXED3 TOPDOWN.RETIRING@PERF_METRICS TOPDOWN.BAD_SPEC@PERF_METRICS TOPDOWN.FE_BOUND@PERF_METRICS TOPDOWN.BE_BOUND@PERF_METRICS
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x188 0x0
wrmsr 0x189 0x0
wrmsr 0x18a 0x0
wrmsr 0x18b 0x0
wrmsr 0x18c 0x0
wrmsr 0x18d 0x0
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x4300c0
wrmsr 0x38d 0x0
wrmsr 0x30c 0x0
wrmsr 0x329 0x0
wrmsr 0x38d 0x3000
wrmsr 0x38f 0x1000800000001" "$out" || return 1
    # With -fixed_counters: fields 0-3 of FIXED_CTR_CTRL, GLOBAL_CTRL bits 32-35 and 48.
    out=$($NB -plan -plan_cpu intel:6:0x6a:8 -config "$TMP/td.cfg" -fixed_counters | tail -3) || return 1
    expect_eq "icx topdown + fixed" "wrmsr 0x329 0x0
wrmsr 0x38d 0x3333
wrmsr 0x38f 0x1000f00000001" "$out" || return 1
    out=$($NB -plan -plan_cpu intel:6:0x55 -config "$TMP/td.cfg" 2>&1 | grep -c 'top-down events need fixed counter 3') || return 1
    expect_eq "skx refuses topdown" "5" "$out" || return 1
    # -no_mem: skipped, as the image does (the fields cannot be summed in R8..R13).
    out=$($NB -plan -plan_cpu intel:6:0x6a:8 -config "$TMP/td.cfg" -no_mem 2>&1 | grep -c 'not measured with -no_mem\|^wrmsr 0x329') || return 1
    expect_eq "icx topdown -no_mem" "5" "$out"
}

# Zen 4: RETIRED_SSE_AVX_FLOPS (003H, up to 64 per cycle) on an even counter
# with the MergeEvent (FFFH) on the odd one after it (PPR "Large Increment
# per Cycle Events"; Linux pair_constraint): odd and even counters zeroed,
# the MergeEvent enabled before the event, both in PerfCntrGlobalCtl.
test_plan_merge() {
    printf '076.00 CYCLES\n003.1F FLOPS\n0C0.00 INST\n003.08 MAC_FLOPS\n0C1.00 OPS\n' > "$TMP/merge.cfg"
    local out
    out=$($NB -plan -plan_cpu amd:0x19:0x61:6 -config "$TMP/merge.cfg") || return 1
    expect_eq "zen4 merge plan" "# plan for amd:0x19:0x61:6: amd, config $TMP/merge.cfg
# cpu: Zen 4 (amd family 0x19 model 0x61)
# pmu: 6 counters {0-5} (48 bits), PerfCtrExtCore yes, PerfMonV2 yes
group 1: CYCLES@PMC4 FLOPS@PMC0+MERGE@PMC1{0,2,4} INST@PMC5 MAC_FLOPS@PMC2+MERGE@PMC3{0,2,4}
wrmsr 0xc0000301 0x0
wrmsr 0xc0010208 0x0
wrmsr 0xc0010209 0x0
wrmsr 0xc0010208 0x430076
wrmsr 0xc0010200 0x0
wrmsr 0xc0010202 0x0
wrmsr 0xc0010203 0x0
wrmsr 0xc0010201 0x0
wrmsr 0xc0010202 0xf004000ff
wrmsr 0xc0010200 0x431f03
wrmsr 0xc001020a 0x0
wrmsr 0xc001020b 0x0
wrmsr 0xc001020a 0x4300c0
wrmsr 0xc0010204 0x0
wrmsr 0xc0010206 0x0
wrmsr 0xc0010207 0x0
wrmsr 0xc0010205 0x0
wrmsr 0xc0010206 0xf004000ff
wrmsr 0xc0010204 0x430803
wrmsr 0xc0000301 0x3f
group 2: OPS@PMC0
wrmsr 0xc0000301 0x0
wrmsr 0xc0010202 0x0
wrmsr 0xc0010204 0x0
wrmsr 0xc0010206 0x0
wrmsr 0xc0010208 0x0
wrmsr 0xc001020a 0x0
wrmsr 0xc0010200 0x0
wrmsr 0xc0010201 0x0
wrmsr 0xc0010200 0x4300c1
wrmsr 0xc0000301 0x1" "$out"
}

test_plan_suite() {
    mkdir -p "$TMP/plan_suite"
    printf 'C0.00 INST\n' > "$TMP/plan_suite/a.cfg"
    printf '0E.01 UOPS\n' > "$TMP/plan_suite/b.cfg"
    printf '# uncore\nmsr_0xE01=0x20000000.msr_700=0x408F34 msr_706 LLC_LOOKUP\n\nmsr_611 PKG_ENERGY\n' > "$TMP/plan_suite/u.msr"
    printf 'a: -asm "nop" -config a.cfg\nb: -asm "nop" -config b.cfg -msr_config u.msr\n' > "$TMP/plan_suite/s.suite"
    local out
    out=$($NB -plan -plan_cpu intel:6:0x55:2 -suite "$TMP/plan_suite/s.suite") || return 1
    expect_eq "suite plan" "# plan for intel:6:0x55:2: intel, suite $TMP/plan_suite/s.suite
# cpu: Skylake-X (intel family 0x6 model 0x55)
# pmu: perfmon v4, 2 general-purpose counters {0-1} (48 bits), 3 fixed {0-2} (48 bits), full-width writes yes, PERF_METRICS no, AnyThread available
[a]
# config $TMP/plan_suite/a.cfg
group 1: INST@PMC0
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x4300c0
wrmsr 0x38d 0x0
wrmsr 0x38f 0x1
[b]
# config $TMP/plan_suite/b.cfg
group 1: UOPS@PMC0
wrmsr 0x38f 0x0
wrmsr 0x187 0x0
wrmsr 0x186 0x0
wrmsr 0xc1 0x0
wrmsr 0x186 0x43010e
wrmsr 0x38d 0x0
wrmsr 0x38f 0x1
# msr_config $TMP/plan_suite/u.msr
msr 1: LLC_LOOKUP (line 2) rdmsr 0x706
wrmsr 0xe01 0x20000000
wrmsr 0x700 0x408f34
wrmsr 0x700 (the value read before)
wrmsr 0xe01 (the value read before)
msr 2: PKG_ENERGY (line 4) rdmsr 0x611" "$out" || return 1
    # One benchmark from the command line: the MSR writes follow its groups.
    out=$($NB -plan -plan_cpu intel:6:0x55:2 -config "$TMP/plan_suite/a.cfg" \
        -msr_config "$TMP/plan_suite/u.msr" | sed -n '1p;/^# msr_config/,$p') || return 1
    expect_eq "single plan" "# plan for intel:6:0x55:2: intel, config $TMP/plan_suite/a.cfg
# msr_config $TMP/plan_suite/u.msr
msr 1: LLC_LOOKUP (line 2) rdmsr 0x706
wrmsr 0xe01 0x20000000
wrmsr 0x700 0x408f34
wrmsr 0x700 (the value read before)
wrmsr 0xe01 (the value read before)
msr 2: PKG_ENERGY (line 4) rdmsr 0x611" "$out" || return 1
    # -no_mem with -fixed_counters: RDTSC and 3 fixed counters leave 2 of R8..R13 per group.
    printf 'C0.00 A\n0E.01 B\nC2.01 C\nC4.00 D\n' > "$TMP/plan_suite/nomem.cfg"
    out=$($NB -plan -plan_cpu intel:6:0x55 -config "$TMP/plan_suite/nomem.cfg" -no_mem -fixed_counters | grep '^group') || return 1
    expect_eq "-no_mem plan" "group 1: A@PMC0 B@PMC1
group 2: C@PMC0 D@PMC1" "$out"
}

# -plan_cpu of a processor the image would refuse: the image's own reason
# (pmu/pmu_detect.c), no writes, exit status 2. Pentium M has no CPUID leaf
# 0AH, Core Duo only architectural perfmon version 1, Pentium 4 (NetBurst,
# family 0FH) no leaf 0AH, AMD before family 17H is refused by family.
test_plan_refused_cpus() {
    local spec why err rc
    while IFS='|' read -r spec why; do
        err=$($NB -plan -plan_cpu "$spec" 2>&1 >/dev/null)
        rc=$?
        expect_eq "-plan_cpu $spec status" 2 "$rc" || return 1
        expect_eq "-plan_cpu $spec" "nanobench: -plan_cpu '$spec': $why" "$err" || return 1
    done <<'TABLE'
intel:6:0xd|the image would find no usable PMU (CPUID has no leaf 0AH (max leaf 0x2)) and measure RDTSC only
intel:6:0xe|the image would find no usable PMU (CPUID.0AH reports architectural perfmon version 1 with 2 counters (version 2 or later needed)) and measure RDTSC only
intel:0xf:0x4|the image would find no usable PMU (CPUID has no leaf 0AH (max leaf 0x5)) and measure RDTSC only
amd:0xf:0x41|the image would find no usable PMU (AMD family 0xf is older than family 17h (Zen), which this tool supports) and measure RDTSC only
intel:6:0x97|a hybrid model: add the core type, :p (P-core) or :e (E-core)
intel:6:0x55:p|not a hybrid model: :p / :e apply to hybrid models only
TABLE
    # A later Intel family with architectural perfmon is planned like an unknown model.
    printf 'C0.00 INST\n' > "$TMP/family.cfg"
    $NB -plan -plan_cpu intel:0x13:0x1:8 -config "$TMP/family.cfg" >/dev/null 2>"$TMP/family.err" ||
        { echo "intel family 0x13 refused: $(cat "$TMP/family.err")"; return 1; }
}

# Exceptions in benchmark code become error lines (vector, error code, part,
# offset, copy, run) and the next benchmark still measures exactly.
test_faults() {
    local out
    out=$(suite_with_errors faults tests/qemu/faults.suite -icount 4) || { echo "$out"; return 1; }
    expect_eq "results" "$(cat tests/qemu/faults.expected)" "$out" || return 1
    grep -q '^nanoBench-EFI done: 16 benchmarks, 14 errors' "$TMP/faults/run-0001.txt" ||
        { echo "end banner missing or wrong"; return 1; }
}

# A benchmark that triple-faults resets the machine; QEMU reboots, the image
# continues the same run after it and the suite ends.
test_machine_reset_resumes() {
    local out rc
    out=$($NB -suite tests/qemu/reset.suite -icount 4 -results "$TMP/reset" 2>/dev/null)
    rc=$?
    expect_eq "exit status" 1 "$rc" || return 1
    expect_eq "results" "[before]
RDTSC: 32.00
[triple_fault]
error: machine reset while running
[after]
RDTSC: 32.00" "$out" || return 1
    # Three boots: the reset comes inside the durability window, so the second
    # boot runs [before] again in safe mode (its first result was never
    # committed) and the reset comes again, now pinned to triple_fault.
    expect_eq "boots" 3 "$(grep -c '^nanoBench-EFI 0' "$TMP/reset/run-0001.txt")" || return 1
    expect_eq "resume lines" "resumed: run 0001 continues after a machine reset; benchmarks whose results were not saved yet run again
resumed: run 0001 continues after a machine reset" "$(grep '^resumed:' "$TMP/reset/run-0001.txt")" || return 1
    grep -qx 'nanoBench-EFI done: 3 benchmarks, 1 error, finish: shutdown' "$TMP/reset/run-0001.txt" ||
        { echo "wrong end banner"; return 1; }
    expect_eq "csv" "benchmark,event,value,min,max
before,RDTSC,32.00,,
triple_fault,error,machine reset while running,,
after,RDTSC,32.00,," "$(grep -v '^platform,' "$TMP/reset/run-0001.csv")" || return 1
    # The platform report of the first boot, not repeated by the boots that resumed.
    expect_eq "platform rows" 1 "$(grep -c '^platform,cpu.vendor,' "$TMP/reset/run-0001.csv")" || return 1
    [[ ! -e $TMP/reset/run-0002.txt ]] || { echo "the resumed boot started a new run"; return 1; }
}

# Benchmarks that never end are stopped by the watchdog after -timeout; the
# next one still measures exactly (and every other test here runs with the
# watchdog armed, so it never disturbs a normal run).
test_hangs() {
    local out
    out=$(suite_with_errors hang tests/qemu/hang.suite -icount 4) || { echo "$out"; return 1; }
    expect_eq "results" "$(cat tests/qemu/hang.expected)" "$out" || return 1
    grep -q '^watchdog: local APIC timer ([0-9]* kHz after /128; the other LVT entries masked, task priority 0xE0, spurious vector 0xff); ' \
        "$TMP/hang/run-0001.txt" || { echo "no watchdog line (OVMF programs spurious vector 0xff)"; return 1; }
    expect_cli_error timeout_zero "nanobench: option -timeout: 0 is out of range (1..86400)" -asm nop -timeout 0
}

# Two processors (QEMU_SMP=2) and no -icount: the second is the NMI watchdog,
# which stops hangs, `cli; jmp $` included, while the code runs with
# interrupts disabled. (RDTSC values are not exact without -icount: only
# their presence is checked.)
test_hangs_nmi() {
    local out
    out=$(QEMU_SMP=2 suite_with_errors hang_nmi tests/qemu/hang_nmi.suite) || { echo "$out"; return 1; }
    expect_eq "results" "$(cat tests/qemu/hang_nmi.expected)" \
        "$(sed 's/^RDTSC: [0-9][0-9.]*$/RDTSC: (a value)/' <<<"$out")" || return 1
    grep -q '^watchdog: NMI from another processor (' "$TMP/hang_nmi/run-0001.txt" ||
        { echo "no NMI watchdog line"; return 1; }
}

# -mica: the traces' instruction counts are exact (tests/qemu/mica.suite),
# and so are MICA's analyses of them, which tools/nanobench runs after the
# boot (tools/nb_mica; e.g. loop: 3 control, 3 arith, 6 nop). Each file came
# back to the results folder with the size and CRC-32 its serial line gives
# (gzip's trailer holds the same CRC), and its header's count agrees.
# Addresses change with every build: bytes and CRCs are not in the expected
# output.
test_mica_traces() {
    local out
    out=$(suite_with_errors mica tests/qemu/mica.suite -icount 4) || { echo "$out"; return 1; }
    expect_eq "results" "$(cat tests/qemu/mica.expected)" \
        "$(sed 's/ bytes [0-9]* crc32 [0-9a-f]*$//' <<<"$out")" || return 1
    local name n bytes crc f
    while read -r _ name _ n _ bytes _ crc; do
        f=$TMP/mica/$name
        [[ -f $f ]] || { echo "$name not in the results folder"; return 1; }
        expect_eq "$name size" "$bytes" "$(stat -c %s "$f")" || return 1
        expect_eq "$name crc32" "$crc" "$(gzip -c "$f" | tail -c 8 | head -c 4 | od -An -tx4 | tr -d ' ')" || return 1
        expect_eq "$name magic" "NBTRACE" "$(head -c 7 "$f")" || return 1
        expect_eq "$name count" "$n" "$(od -An -tu8 -j 16 -N 8 "$f" | tr -d ' ')" || return 1
    done < <(grep '^trace: ' <<<"$out")
    grep -q '^loop,mica.itypes.control,3$' "$TMP/mica/run-0001-mica.csv" ||
        { echo "no mica CSV row"; return 1; }
}

# Capture cross-check (issue 9): the same benchmark code traced in the image
# under QEMU (#DB single-steps) and on this host under ptrace
# (nb_mica -int3_markers -- build/host/mica_runner, which lays the code out
# as the image's trace run: the traced region at the page offset of the
# image's first traced RIP, the first copy 64-byte aligned, R14/RDI/RSI/RBP/RSP
# in the middle of page-aligned 1 MiB areas) gives the same analyses, every
# CSV row of `-mica all`. Absolute addresses differ between the two; MICA's
# analyses see them only through blocks, pages and strides, and every stride
# between two areas or from address 0 is beyond the last bucket in both.
# Each row: name|init|late init|main|unroll_count|loop_count.
MICA_XCHECK=(
    "add|||ADD RAX, RBX; ADD RBX, RAX|4|10"
    "rep|mov rcx, 3||rep stosb|1|0"
    "pushf|||pushfq; pop rax|2|0"
    "mem|||mov rax, [r14]; mov [rsi+8], rax; add r14, 64; add rsi, 24|2|20"
    "late||nop; nop|push rax; pop rbx; lea rcx, [rbx+rax*2]|3|0"
    "branch|||test r15, 1; jz \$+4; nop; nop; inc rax|1|16"
)
test_mica_xcheck() {
    make -s build/host/mica_runner || return 1
    local line name init late main unroll loop suite=$TMP/xcheck.suite
    : >"$suite"
    for line in "${MICA_XCHECK[@]}"; do
        IFS='|' read -r name init late main unroll loop <<<"$line"
        # The host assembles the same text with nasm below: the same bytes on both sides.
        printf '%s: -asm "%s" -unroll_count %s -loop_count %s -mica all -asm_syntax nasm' "$name" "$main" "$unroll" "$loop" >>"$suite"
        [[ -n $init ]] && printf ' -asm_init "%s"' "$init" >>"$suite"
        [[ -n $late ]] && printf ' -asm_late_init "%s"' "$late" >>"$suite"
        echo >>"$suite"
    done
    $NB -suite "$suite" -icount 4 -results "$TMP/xcheck" >"$TMP/xcheck.out" 2>&1 ||
        { echo "image run failed:"; cat "$TMP/xcheck.out"; return 1; }
    local asm part f offset image host n=0
    for line in "${MICA_XCHECK[@]}"; do
        IFS='|' read -r name init late main unroll loop <<<"$line"
        local args=(-unroll_count "$unroll" -loop_count "$loop")
        for part in init late main; do
            asm=${!part}
            [[ -z $asm ]] && continue
            f=$TMP/xcheck-$name-$part
            printf 'bits 64\n%s\n' "${asm//; /$'\n'}" | sed 's/\\\$/$/' >"$f.asm"
            nasm -f bin -o "$f.bin" "$f.asm" || return 1
            case $part in init) args+=(-init "$f.bin") ;; late) args+=(-late_init "$f.bin") ;; esac
        done
        f=$TMP/xcheck/run-0001-$name.trace
        [[ -f $f ]] || { echo "$name: no image trace"; cat "$TMP/xcheck.out"; return 1; }
        offset=$(( $(od -An -tu8 -j 48 -N 8 "$f" | tr -d ' ') % 4096 ))
        build/host/nb_mica -q -o "$TMP/xcheck-host-$name" -int3_markers -- \
            build/host/mica_runner -page_offset "$offset" "${args[@]}" "$TMP/xcheck-$name-main.bin" 2>"$TMP/xcheck.err" ||
            { echo "$name: nb_mica --:"; cat "$TMP/xcheck.err"; return 1; }
        image=$(grep "^$name," "$TMP/xcheck/run-0001-mica.csv" | cut -d, -f2-)
        host=$(grep "^mica_runner," "$TMP/xcheck-host-$name/mica.csv" | cut -d, -f2-)
        [[ -n $image ]] || { echo "$name: no image rows"; return 1; }
        expect_eq "$name: host (ptrace) vs image (QEMU) analyses" "$image" "$host" || return 1
        n=$((n + 1))
    done
    expect_eq "benchmarks compared" "${#MICA_XCHECK[@]}" "$n"
}

# MICA-SPEC's worked examples E1-E6 as real code (tests/qemu/mica_examples.suite):
# every line of tests/qemu/mica_examples.expected rebuilt from the CSV rows
# mica.<analysis>.<field>[.<k>] of run-0001-mica.csv, exactly.
mica_csv_line() { # CSV BENCHMARK ANALYSIS[.K]
    local analysis=${3%%.*} k=
    [[ $3 == *.* ]] && k=.${3#*.}
    awk -F, -v b="$2" -v a="$analysis" -v k="$k" '
        $1 != b { next }
        { n = split($2, f, ".") }
        f[1] != "mica" || f[2] != a { next }
        (k == "" && n != 3) || (k != "" && (n != 4 || "." f[4] != k)) { next }
        f[3] ~ /^d[0-9]+$/ && $3 == 0 { next }  # fullmemstackdist: the distances that occurred
        { printf "%s%s", (out++ ? " " : ""), (f[3] ~ /^d[0-9]+$/ ? f[3] "=" $3 : $3) }
        END { print "" }' "$1"
}
test_mica_examples() {
    local out rc
    out=$($NB -suite tests/qemu/mica_examples.suite -icount 4 -results "$TMP/examples" 2>&1)
    rc=$?
    expect_eq "exit status" 0 "$rc" || { echo "$out"; return 1; }
    local csv=$TMP/examples/run-0001-mica.csv bench analysis values expected actual start tok n=0
    while read -r bench analysis values; do
        [[ -z $bench || $bench == \#* ]] && continue
        expected=
        for tok in $values; do
            if [[ $tok == pages:* ]]; then
                # pages touched by [start+A, start+B): the harness's code placement
                IFS=: read -r _ a b <<<"$tok"
                start=$(od -An -tu8 -j 48 -N 8 "$TMP/examples/run-0001-$bench.trace" | tr -d ' ')
                tok=$(( ((start + b - 1) >> 12) - ((start + a) >> 12) + 1 ))
            fi
            expected+=${expected:+ }$tok
        done
        actual=$(mica_csv_line "$csv" "$bench" "$analysis")
        expect_eq "$bench $analysis" "$expected" "$actual" || return 1
        n=$((n + 1))
    done <tests/qemu/mica_examples.expected
    expect_eq "lines checked" 47 "$n"
}

# A /dev/kvm on which QEMU cannot start a guest (nested virtualisation that
# fails setting the guest's MSRs, as on this project's own machines) must not
# end the run: qemu-run.sh checks KVM with a paused guest and falls back to
# TCG, saying so. The fake QEMU fails like the real one whenever KVM is asked.
test_broken_kvm_falls_back_to_tcg() {
    cat >"$TMP/qemu-nokvm" <<'SH'
#!/bin/sh
case " $* " in *" kvm "*) echo "kvm_buf_set_msrs: Assertion failed" >&2; exit 134 ;; esac
exec qemu-system-x86_64 "$@"
SH
    chmod +x "$TMP/qemu-nokvm"
    local out rc
    out=$(QEMU=$TMP/qemu-nokvm KVM_DEVICE=/dev/null $NB -asm "NOP" -results "$TMP/nokvm" 2>"$TMP/nokvm.err")
    rc=$?
    expect_eq "exit status" 0 "$rc" || { cat "$TMP/nokvm.err"; return 1; }
    grep -q '^RDTSC: ' <<<"$out" || { echo "no RDTSC line: $out"; return 1; }
    grep -q '^qemu-run: KVM is not usable here (QEMU exited with status 134 (kvm_buf_set_msrs: Assertion failed)); running under TCG$' "$TMP/nokvm.err" ||
        { echo "no fallback message:"; cat "$TMP/nokvm.err"; return 1; }
}

# Every way a run can end leaves nothing in TMPDIR: success, bad input, an
# image written, a plan, and Ctrl-C while QEMU boots (the whole process
# group gets SIGINT, as from a terminal).
test_no_temporary_files_left() {
    local tmpdir=$TMP/tmpdir left
    mkdir -p "$tmpdir"
    TMPDIR=$tmpdir $NB -asm "NOP" -icount 4 -results "$TMP/tmp-ok" >/dev/null 2>&1
    TMPDIR=$tmpdir $NB -asm "NOPX" >/dev/null 2>&1
    TMPDIR=$tmpdir $NB -asm "NOP" -image "$TMP/tmp.img" >/dev/null 2>&1
    TMPDIR=$tmpdir $NB -asm "NOP" -plan -plan_cpu intel:6:0x55:4 >/dev/null 2>&1
    TMPDIR=$tmpdir setsid $NB -asm "NOP" -icount 4 -results "$TMP/tmp-int" >/dev/null 2>&1 &
    local pid=$!
    sleep 2
    kill -INT -- "-$pid" 2>/dev/null
    wait "$pid"
    left=$(ls -A "$tmpdir")
    expect_eq "files left in TMPDIR" "" "$left"
}

# -results DIR never loses a run: the second one gets the next number.
test_results_folder_collects_runs() {
    local dir=$TMP/collect err
    $NB -asm "NOP" -icount 4 -results "$dir" >/dev/null 2>&1 || return 1
    err=$($NB -asm "NOP; NOP" -icount 4 -results "$dir" 2>&1 >/dev/null) || return 1
    expect_eq "files" "run-0001.csv
run-0001.html
run-0001.txt
run-0002.csv
run-0002.html
run-0002.txt
serial-0001.log
serial-0002.log" "$(ls "$dir")" || return 1
    expect_eq "first run kept" "RDTSC: 16.00" "$(grep '^RDTSC' "$dir/run-0001.txt")" || return 1
    expect_eq "second run" "RDTSC: 32.00" "$(grep '^RDTSC' "$dir/run-0002.txt")" || return 1
    grep -qxF "nanobench: results in $dir (run 0002)" <<<"$err" || { echo "no results line: $err"; return 1; }
    echo x >"$TMP/afile"
    err=$($NB -asm "NOP" -results "$TMP/afile" 2>&1)
    expect_eq "exit status for a file" 2 "$?" || return 1
    expect_eq "message" "nanobench: -results $TMP/afile: not a folder" "$err"
}

# -finish exit returns to the firmware, which would sit at its boot menu until
# QEMU's timeout: the CLI ends QEMU once the image says its files are closed.
test_finish_exit_ends_qemu() {
    local out rc start=$SECONDS
    out=$(QEMU_TIMEOUT=60 $NB -asm "NOP" -icount 4 -finish exit -results "$TMP/exit" 2>/dev/null)
    rc=$?
    expect_eq "exit status" 0 "$rc" || return 1
    expect_eq "output" "RDTSC: 16.00" "$out" || return 1
    ((SECONDS - start < 50)) || { echo "waited for the QEMU timeout"; return 1; }
    grep -q 'finish: exit$' "$TMP/exit/run-0001.txt" || { echo "results file incomplete"; return 1; }
}

# STREAM=1 shows the image's lines as they arrive, without firmware noise,
# escapes, carriage returns or frames; a terminal gets a progress line for a
# suite ([n/total] name) on stderr, and results on stdout as each finishes.
test_stream_and_progress_are_clean() {
    local out
    # A suite of two: a block is printed when the next one starts.
    printf 'a: -asm "NOP"\nb: -asm "NOP; NOP"\n' >"$TMP/two.suite"
    out=$(STREAM=1 $NB -suite "$TMP/two.suite" -icount 4 -results "$TMP/stream" 2>/dev/null) || return 1
    if grep -q $'[\r\x1b\t]\|BdsDxe\||[0-9]\{4\} [0-9a-f]\{4\}$' <<<"$out"; then
        echo "unclean stream:"; cat -A <<<"$out" | head; return 1
    fi
    expect_eq "RDTSC lines (each line once)" "RDTSC: 16.00
RDTSC: 32.00" "$(grep '^RDTSC' <<<"$out")" || return 1
    grep -q '^cpu: ' <<<"$out" && grep -q '^nanoBench-EFI done: 2 benchmarks, 0 errors' <<<"$out" ||
        { echo "stream: $out"; return 1; }
    [[ -s $TMP/stream/serial-0001.log ]] && grep -q $'\t|0001 ' "$TMP/stream/serial-0001.log" ||
        { echo "raw serial log not kept"; return 1; }
    printf 'a: -asm "NOP"\nb: -asm "NOP; NOP"\nc: -asm "NOP; NOP; NOP"\n' >"$TMP/three.suite"
    local tty
    tty=$(script -qec "$NB -suite $TMP/three.suite -icount 4 -results $TMP/progress" /dev/null) || return 1
    grep -q '\[2/3\] b, [0-9]* s, about [0-9]* s left' <<<"$tty" || { echo "no progress line:"; cat -A <<<"$tty"; return 1; }
    expect_eq "results" "[a]
RDTSC: 16.00
[b]
RDTSC: 32.00
[c]
RDTSC: 48.00" "$(tr '\r' '\n' <<<"$tty" | sed 's/\x1b\[K//g' | grep -v '^\[[0-9]/3\]\|^nanobench: \|^qemu-run: \|^$')"
}

run_test selftest test_selftest
run_test engine_suite_exact_values test_engine_suite
run_test csv_and_txt_match_serial test_csv_matches_serial
run_test single_benchmark test_single_benchmark
run_test code_file_and_verbose test_code_file_and_verbose
run_test cli_errors_before_boot test_cli_errors
run_test cli_suite_input_files test_cli_suite_input_files
run_test cli_config_contents test_cli_config_contents
run_test cli_image_messages test_cli_image_messages
run_test cli_paths_resolve_against_cwd test_cli_paths_resolve_against_cwd
run_test cli_asm_input test_cli_asm_input
run_test help_and_usage test_help_and_usage
run_test suite_errors_name_the_line test_suite_errors_name_the_line
run_test suite_cli_only_options test_suite_cli_only_options
run_test target_errors_and_run_numbers test_target_errors_and_run_numbers
run_test image_layout test_image_layout
run_test no_pmu_intel_cpuid test_no_pmu_intel_cpuid
run_test no_pmu_amd_probe test_no_pmu_amd_probe
run_test metrics_without_pmu test_metrics_without_pmu
run_test metrics_codemon_na_reasons test_metrics_codemon_na_reasons
run_test platform_report test_platform_report
run_test msr_config test_msr_config
run_test area_sizes test_area_sizes
run_test latency_suite test_latency_suite
run_test calibrate test_calibrate
run_test magic_bytes_need_no_mem test_magic_bytes_need_no_mem
run_test cpu_option test_cpu_option
run_test cli_cpu_beyond_qemu test_cli_cpu_beyond_qemu
run_test vector_suite test_vector_suite
run_test plan test_plan
run_test plan_topdown test_plan_topdown
run_test plan_merge test_plan_merge
run_test plan_suite test_plan_suite
run_test build_check test_build_check
run_test plan_metrics test_plan_metrics
run_test plan_refused_cpus test_plan_refused_cpus
run_test faults test_faults
run_test machine_reset_resumes test_machine_reset_resumes
run_test hangs test_hangs
run_test hangs_nmi test_hangs_nmi
run_test mica_traces test_mica_traces
run_test mica_xcheck test_mica_xcheck
run_test mica_examples test_mica_examples
run_test broken_kvm_falls_back_to_tcg test_broken_kvm_falls_back_to_tcg
run_test no_temporary_files_left test_no_temporary_files_left
run_test results_folder_collects_runs test_results_folder_collects_runs
run_test finish_exit_ends_qemu test_finish_exit_ends_qemu
run_test stream_and_progress_are_clean test_stream_and_progress_are_clean
run_test serial_log_of_several_runs test_serial_log_of_several_runs
source "$ROOT/tests/qemu/configs_tma_tests.sh"
source "$ROOT/tests/qemu/serve_tests.sh"
source "$ROOT/tests/qemu/cpu_lvt_tests.sh"

source "$ROOT/tests/qemu/kvm_tests.sh"
source "$ROOT/tests/qemu/secure_boot_tests.sh"
source "$ROOT/tests/qemu/lava_tests.sh"
source "$ROOT/tests/qemu/never_guess_tests.sh"
source "$ROOT/tests/qemu/debug_tests.sh"

source "$ROOT/tests/qemu/results_page_tests.sh"
source "$ROOT/tests/qemu/cycle_by_cycle_tests.sh"
source "$ROOT/tests/qemu/gas_tests.sh"
source "$ROOT/tests/qemu/host_checks_tests.sh"
source "$ROOT/tests/qemu/lost_results_tests.sh"
source "$ROOT/tests/qemu/mica_dbt_tests.sh"
source "$ROOT/tests/qemu/readme_tests.sh"
source "$ROOT/tests/qemu/calibrate_kind_tests.sh"
source "$ROOT/tests/qemu/cpu_one_call_tests.sh"
source "$ROOT/tests/qemu/cpu_session_tests.sh"
echo "qemu: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
