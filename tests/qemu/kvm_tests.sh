# tests/qemu/kvm_tests.sh — KVM probe, run-time fallback and the host's
# progress watchdog (images/kvm-probe.sh, images/qemu-run.sh). Sourced by
# tests/qemu/run.sh, whose helpers it uses.
#
# No machine here has a good KVM, so fake qemu-system-x86_64 binaries stand
# in for the three kinds of host: KVM that runs the probe but stops OVMF
# (paravirtualised KVM without VMX), KVM that fails the probe, and a guest
# that falls silent. The fakes hand everything that is not a KVM run to the
# real QEMU, so the TCG fallback really boots and measures.

REAL_QEMU=$(command -v qemu-system-x86_64)

# fake_qemu DIR SCRIPT_BODY: DIR/qemu-system-x86_64 runs SCRIPT_BODY with
# "$@" the QEMU arguments; $CALLS logs one line per call ("probe" for the
# -bios probe under KVM, "kvm" for a KVM boot of the image, "tcg" otherwise).
fake_qemu() {
    mkdir -p "$1"
    cat >"$1/qemu-system-x86_64" <<SH
#!/bin/bash
CALLS=$1/calls
REAL_QEMU=$REAL_QEMU
kind=tcg
case " \$* " in *" -bios "*" kvm "* | *" kvm "*" -bios "*) kind=probe ;; *" kvm "*) kind=kvm ;; esac
echo "\$kind" >>"\$CALLS"
$2
exec "\$REAL_QEMU" "\$@"
SH
    chmod +x "$1/qemu-system-x86_64"
    : >"$1/calls"
}

# The probe firmware itself is sound: under TCG it walks to long mode and
# leaves through isa-debug-exit with the pass code (QEMU status 85), so a
# good KVM is never refused for a bug of the probe's.
test_kvm_probe_firmware_passes_under_tcg() {
    local bin=$TMP/kvm_probe.bin rc
    nasm -f bin -o "$bin" images/kvm_probe.asm || return 1
    expect_eq "size (QEMU wants a multiple of 64 KiB)" 65536 "$(stat -c %s "$bin")" || return 1
    timeout 20 "$REAL_QEMU" -accel tcg -machine q35 -m 16 -nodefaults -no-user-config -display none \
        -no-reboot -bios "$bin" -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null
    rc=$?
    expect_eq "QEMU status (0x2a << 1 | 1)" 85 "$rc"
}

# The issue's machine: /dev/kvm opens, a paused guest comes up (today's
# probe would pass), the probe firmware even runs, but OVMF's first
# instructions end in "KVM internal error" and QEMU pauses the guest
# forever. `make run` notices it at once, says so in one line, and boots a
# pristine image under TCG: 5 benchmarks, no errors, in seconds.
test_kvm_internal_error_falls_back_to_tcg() {
    local fake=$TMP/fake-kvm-pause out err rc start=$SECONDS
    fake_qemu "$fake" '[[ $kind == probe ]] && exit 85
if [[ $kind == kvm ]]; then
    echo "KVM internal error. Suberror: 1" >&2
    echo "emulation failure" >&2
    echo "EAX=00000000 EBX=00000000 ... Code=... <9b> db e3" >&2
    exec sleep 600
fi'
    echo "boot-1" >"$TMP/boot_id"
    out=$(PATH=$fake:$PATH KVM_DEVICE=/dev/null NB_BOOT_ID_FILE=$TMP/boot_id \
        NB_KVM_PROBE_DIR=$TMP/kvm-cache QEMU_ACCEL_FILE=$TMP/accel make --no-print-directory run 2>"$TMP/kvm-pause.err")
    rc=$?
    err=$(cat "$TMP/kvm-pause.err")
    expect_eq "exit status" 0 "$rc" || { echo "$err"; return 1; }
    ((SECONDS - start < 90)) || { echo "took $((SECONDS - start)) s: waited for a timeout"; return 1; }
    grep -qxF "qemu-run: KVM stopped the guest (KVM internal error. Suberror: 1); booting a pristine image again under TCG" <<<"$err" ||
        { echo "no fallback line in:"; echo "$err"; return 1; }
    expect_eq "calls" "probe
kvm
tcg" "$(cat "$fake/calls")" || return 1
    expect_eq "accelerator" tcg "$(cat "$TMP/accel")" || return 1
    grep -q '^nanoBench-EFI done: 5 benchmarks, 0 errors' <<<"$out" || { echo "no end line in: $out"; return 1; }
    # The pristine image: the TCG boot is run 0001, not a resumed KVM attempt.
    local dir
    dir=$(sed -n 's/^nanobench: results in \(.*\) (run 0001)$/\1/p' <<<"$err")
    [[ -n $dir ]] || { echo "no results line for run 0001 in: $err"; return 1; }
    grep -q '^hypervisor: "TCGTCGTCGTCG"' "$dir/run-0001.txt" || { echo "not measured under TCG"; return 1; }
    rm -rf "$dir"
}

# A KVM that fails the probe is never used for the image, the verdict is
# cached (a second run does not probe), and a new host boot probes again.
test_kvm_probe_verdict_honoured_and_cached() {
    local fake=$TMP/fake-kvm-bad out err
    fake_qemu "$fake" 'if [[ $kind == probe ]]; then echo "KVM internal error. Suberror: 1" >&2; exec sleep 600; fi
[[ $kind == kvm ]] && { echo "the image was booted under KVM after a failed probe" >&2; exit 99; }'
    echo "boot-1" >"$TMP/boot_id2"
    local envs=(PATH=$fake:$PATH KVM_DEVICE=/dev/null NB_BOOT_ID_FILE=$TMP/boot_id2 NB_KVM_PROBE_DIR=$TMP/kvm-cache2)
    err=$(env "${envs[@]}" $NB -asm "NOP" -results "$TMP/kvm-bad" 2>&1 >/dev/null) || { echo "$err"; return 1; }
    grep -qxF "qemu-run: KVM is not usable here (the probe guest did not finish within 2 s (KVM internal error. Suberror: 1)); running under TCG" <<<"$err" ||
        { echo "no probe line in:"; echo "$err"; return 1; }
    env "${envs[@]}" $NB -asm "NOP" -results "$TMP/kvm-bad" >/dev/null 2>&1 || return 1
    expect_eq "calls after two runs (one probe, cached)" "probe
tcg
tcg" "$(cat "$fake/calls")" || return 1
    echo "boot-2" >"$TMP/boot_id2"
    env "${envs[@]}" $NB -asm "NOP" -results "$TMP/kvm-bad" >/dev/null 2>&1 || return 1
    expect_eq "calls after a host reboot" "probe
tcg
tcg
probe
tcg" "$(cat "$fake/calls")"
}

# A guest that falls silent is stopped after --idle seconds of no serial
# output, not after QEMU_TIMEOUT; one that keeps printing is not.
test_host_watchdog_is_progress() {
    local fake=$TMP/fake-silent img=$TMP/any.img rc start
    fake_qemu "$fake" 'log=$(sed -n "s/.*-chardev file,id=com1,path=\([^ ]*\) .*/\1/p" <<<" $* ")
if [[ $MODE == silent ]]; then echo "BdsDxe: starting" >"$log"; exec sleep 600; fi
for i in 1 2 3 4 5 6 7 8; do echo "line $i" >>"$log"; sleep 0.5; done; exit 0'
    : >"$img"
    start=$SECONDS
    MODE=silent PATH=$fake:$PATH KVM_DEVICE=/nonexistent QEMU_TIMEOUT=100 \
        images/qemu-run.sh "$img" "$TMP/silent.log" --idle 2 2>"$TMP/silent.err"
    rc=$?
    expect_eq "status when silent" 124 "$rc" || return 1
    ((SECONDS - start < 10)) || { echo "took $((SECONDS - start)) s"; return 1; }
    grep -qxF "qemu-run: no serial output for 2 s, QEMU stopped (serial log: $TMP/silent.log)" "$TMP/silent.err" ||
        { cat "$TMP/silent.err"; return 1; }
    MODE=busy PATH=$fake:$PATH KVM_DEVICE=/nonexistent images/qemu-run.sh "$img" "$TMP/busy.log" --idle 2 2>"$TMP/busy.err"
    rc=$?
    expect_eq "status when printing for 4 s with --idle 2" 0 "$rc" || { cat "$TMP/busy.err"; return 1; }
    expect_eq "lines" 8 "$(wc -l <"$TMP/busy.log")"
}

# A hang no watchdog of the image can stop (`cli; jmp $` with one processor
# and no -icount: the local APIC timer cannot interrupt): the host stops QEMU
# after QEMU_IDLE seconds of silence and boots the image again, which resumes
# the run (as after a machine reset: the benchmark that was running is
# reported, the rest of the suite runs). Without -icount the values are not
# exact: only their presence is checked.
test_hung_suite_boots_again() {
    local out rc err
    printf 'before: -asm "nop" -timeout 1\nhang: -asm "cli; l: jmp l" -timeout 1\nafter: -asm "nop; nop" -timeout 1\n' >"$TMP/hang_again.suite"
    out=$(QEMU_IDLE=8 KVM_DEVICE=/nonexistent $NB -suite "$TMP/hang_again.suite" -results "$TMP/hang_again" 2>"$TMP/hang_again.err")
    rc=$?
    err=$(cat "$TMP/hang_again.err")
    expect_eq "exit status" 1 "$rc" || { echo "$err"; return 1; }
    expect_eq "results" "[before]
RDTSC: (a value)
[hang]
error: machine reset while running
[after]
RDTSC: (a value)" "$(sed 's/^RDTSC: -\{0,1\}[0-9][0-9.]*$/RDTSC: (a value)/' <<<"$out")" || { echo "$err"; return 1; }
    grep -qx 'qemu-run: booting the image again: it resumes the run after the benchmark that hung' <<<"$err" ||
        { echo "no boot-again line in: $err"; return 1; }
    # Every boot's lines are in the one serial log, and the CSV has every other result.
    expect_eq "csv" "before,RDTSC
hang,error
after,RDTSC" "$(grep -v '^platform,\|^benchmark,' "$TMP/hang_again/run-0001.csv" | cut -d, -f1,2)"
}

run_test kvm_probe_firmware_passes_under_tcg test_kvm_probe_firmware_passes_under_tcg
run_test kvm_internal_error_falls_back_to_tcg test_kvm_internal_error_falls_back_to_tcg
run_test kvm_probe_verdict_honoured_and_cached test_kvm_probe_verdict_honoured_and_cached
run_test host_watchdog_is_progress test_host_watchdog_is_progress
run_test hung_suite_boots_again test_hung_suite_boots_again
