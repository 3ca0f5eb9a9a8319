#!/usr/bin/env bash
# qemu-run.sh — boot a nanoBench-EFI disk image under QEMU/OVMF and capture
# the serial port.
#
# usage: images/qemu-run.sh IMG SERIAL_LOG [--icount N] [--smp N] [--reboot-ok]
#                           [--idle S] [--secure-boot] [--serial-socket PATH | --serial-pty]
#
#   --icount N    TCG with -icount shift=N: the guest clock (and RDTSC)
#                 advances 2^N ns per instruction, so timings are exact
#   --smp N       N virtual CPUs (default 1)
#   --reboot-ok   let a guest reset reboot it (default: QEMU exits on reset)
#   --idle S      stop QEMU when the serial port has been silent for S seconds
#                 (default 120; tools/nanobench derives it from the suite's
#                 -timeout values, see docs/qemu.md)
#   --boot-again N  after the silence stopped a guest that had started the
#                 image, boot the same image again, up to N times: the image
#                 resumes its run after the benchmark that hung (its resume
#                 state on the FAT partition), so the rest of the suite runs;
#                 the serial output of every boot goes to SERIAL_LOG
#   --secure-boot Debian's Secure Boot OVMF (OVMF_CODE_4M.secboot.fd, SMM) with
#                 the snakeoil keys enrolled (OVMF_VARS_4M.snakeoil.fd): only an
#                 image signed by the snakeoil key boots (docs/secure-boot.md)
#   --serial-socket PATH   COM1 is a unix socket QEMU listens on (serve mode,
#                 docs/serve.md); the guest starts when a client connects, and
#                 what the guest sends is also logged to SERIAL_LOG
#   --serial-pty  COM1 is a pseudo-terminal (QEMU prints its /dev/pts name):
#                 a stand-in for a serial device in tests
#                 With either, silence is no sign of a hang (the image waits for
#                 requests): --idle does not apply.
#
# Environment:
#   QEMU_TIMEOUT  overall upper bound in seconds (default 1800; 0: none); exit status 124
#   STREAM=1      also copy the serial output to stdout as it arrives
#   QEMU          emulator binary (default qemu-system-x86_64)
#   OVMF_CODE, OVMF_VARS   firmware images (default Debian's 4M OVMF)
#   QEMU_CPU      CPU model under TCG (default max)
#   QEMU_MEM      guest memory (QEMU's -m; default 512)
#   QEMU_EXTRA    extra arguments, split on spaces
#   KVM_DEVICE    the KVM device (default /dev/kvm; a missing path means TCG)
#
# KVM with -cpu host is used when --icount is not given and images/kvm-probe.sh
# has seen KVM run a small firmware through real, protected and long mode
# (cached per host boot). Should KVM still stop the guest at run time (QEMU
# reports a KVM internal error or an emulation failure and pauses it), QEMU
# is stopped at once and a pristine copy of the image boots under TCG: what
# the KVM attempt wrote to the image is discarded. The image is attached
# read-write, so results files written by the guest land in IMG (see
# images/extract.sh).
# Exits 0 when QEMU exits by itself (guest power-off, or reset without
# --reboot-ok); 124 when the silence or the overall limit stopped it; 3 when
# the firmware refused to start the image (Secure Boot: "Access Denied").
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
    echo "qemu-run: $*" >&2
    exit 2
}

usage="usage: $0 IMG SERIAL_LOG [--icount N] [--smp N] [--reboot-ok] [--idle S] [--boot-again N] [--secure-boot] [--serial-socket PATH | --serial-pty]"
[[ $# -ge 2 ]] || die "$usage"
img=$1
log=$2
shift 2
icount=
smp=1
reboot=-no-reboot
idle_s=120
secure_boot=
socket=
boot_again=0
while [[ $# -gt 0 ]]; do
    case $1 in
    --icount) [[ $# -ge 2 ]] || die "$usage"; icount=$2; shift 2 ;;
    --smp) [[ $# -ge 2 ]] || die "$usage"; smp=$2; shift 2 ;;
    --idle) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$usage"; idle_s=$2; shift 2 ;;
    --reboot-ok) reboot=; shift ;;
    --secure-boot) secure_boot=1; shift ;;
    --boot-again) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || die "$usage"; boot_again=$2; shift 2 ;;
    --serial-socket) [[ $# -ge 2 ]] || die "$usage"; socket=$2; shift 2 ;;
    --serial-pty) socket=pty; shift ;;
    *) die "$usage" ;;
    esac
done

qemu=${QEMU:-qemu-system-x86_64}
code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
machine=q35
secure_args=()
if [[ -n $secure_boot ]]; then
    # The Secure Boot build keeps its variables in SMM: QEMU must emulate SMM
    # and mark the flash as secure, or OVMF stops early.
    code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
    vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd}
    machine=q35,smm=on
    secure_args=(-global driver=cfi.pflash01,property=secure,value=on)
fi
timeout_s=${QEMU_TIMEOUT:-1800}
[[ $timeout_s =~ ^[0-9]+$ ]] || die "QEMU_TIMEOUT=$timeout_s: not a number of seconds"
[[ -f $img ]] || die "$img: no such image"
[[ -f $code ]] || die "$code: no OVMF firmware (Debian package ovmf)"
[[ -f $vars ]] || die "$vars: no OVMF variable store"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nb-qemu.XXXXXX")
qemu_pid=
stream_pid=
cleanup() {
    [[ -n $qemu_pid ]] && kill -KILL "$qemu_pid" 2>/dev/null
    [[ -n $stream_pid ]] && kill "$stream_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

kvm_dev=${KVM_DEVICE:-/dev/kvm}
accel=tcg
if [[ -z $icount ]]; then
    if probe=$(QEMU=$qemu KVM_DEVICE=$kvm_dev "$ROOT/images/kvm-probe.sh"); then
        accel=kvm
    elif [[ -e $kvm_dev ]]; then
        # One line where a /dev/kvm exists but cannot be trusted; none where
        # there is no KVM at all (nothing to explain).
        echo "qemu-run: KVM is not usable here (${probe#not usable: }); running under TCG" >&2
    fi
fi

# Errors QEMU prints when KVM cannot go on with the guest; after them QEMU
# pauses the guest and waits for a monitor command that never comes.
KVM_FAILURE='KVM internal error|emulation failure|KVM: entry failed|kvm run failed|KVM_EXIT_'

# run_qemu ACCEL [append]: one boot with the serial port in $log (appended to
# with "append": a later boot of the same run); returns QEMU's status, 124
# for the silence or overall limit (stopped_for says which), 200 when KVM
# failed.
image_started=
stopped_for=
run_qemu() {
    local accel_args
    case $1 in
    kvm) accel_args=(-accel kvm -cpu host) ;;
    *) accel_args=(-accel tcg -cpu "${QEMU_CPU:-max}")
       [[ -n $icount ]] && accel_args+=(-icount "shift=$icount") ;;
    esac
    # Each boot starts from pristine UEFI variables (boot order, console setup).
    cp "$vars" "$tmp/vars.fd"
    local serial="file,id=com1,path=$log" err_to="$tmp/stderr"
    if [[ ${2:-} == append ]]; then
        serial="file,id=com1,path=$log,append=on"
    else
        : >"$log"
    fi
    : >"$tmp/stderr"
    if [[ $socket == pty ]]; then
        serial="pty,id=com1,logfile=$log"
    elif [[ -n $socket ]]; then
        serial="socket,id=com1,path=$socket,server=on,wait=on,logfile=$log"
    fi
    # Serve mode's host reads QEMU's messages as they come (the pty's name).
    [[ -n $socket ]] && exec {err_fd}> >(tee -a "$tmp/stderr" >&2) && err_to=/dev/fd/$err_fd
    # -nodefaults: no VGA, NIC or default serial; OVMF needs only its flash, a
    # disk and COM1 (its console goes there as well, see boot/efi_console.c).
    # shellcheck disable=SC2086 # $reboot and $QEMU_EXTRA are word lists
    # QEMU_MEM: the guest's memory (QEMU's -m: MiB, or with a G suffix), default 512;
    # tools/nanobench sets it to what the suite's areas need.
    "$qemu" -machine "$machine" -m "${QEMU_MEM:-512}" -smp "$smp" "${accel_args[@]}" "${secure_args[@]}" \
        -nodefaults -no-user-config -display none -nic none \
        -drive if=pflash,format=raw,unit=0,readonly=on,file="$code" \
        -drive if=pflash,format=raw,unit=1,file="$tmp/vars.fd" \
        -drive if=none,id=disk0,format=raw,file="$img" \
        -device virtio-blk-pci,drive=disk0,bootindex=1 \
        -chardev "$serial" -serial chardev:com1 \
        $reboot ${QEMU_EXTRA:-} </dev/null 2>"$err_to" &
    qemu_pid=$!
    watch_qemu "$1"
    local rc=$?
    qemu_pid=
    return $rc
}

# OVMF's boot manager on a Secure Boot machine whose db does not trust the
# image: "BdsDxe: failed to load Boot0001 ... : Access Denied". It then tries
# the other boot options and waits at its menu for a key forever.
REFUSED='BdsDxe: failed to (load|start) .*: (Access Denied|Security Violation)'

# watch_qemu ACCEL: waits for QEMU ($qemu_pid) while watching four things
# ten times a second: a KVM failure on its stderr, the firmware refusing the
# image (until the image's banner shows it started), the serial log's growth
# (progress), and the overall limit.
watch_qemu() {
    local start=$EPOCHSECONDS last_change=$EPOCHSECONDS sizes last_sizes= started=$image_started
    stopped_for=
    while kill -0 "$qemu_pid" 2>/dev/null; do
        sleep 0.1
        sizes=$(stat -c %s "$log" "$tmp/stderr" 2>/dev/null | tr '\n' ' ')
        if [[ $sizes != "$last_sizes" ]]; then
            last_sizes=$sizes
            last_change=$EPOCHSECONDS
            if [[ $1 == kvm && ${sizes#* } != "0 " ]] && grep -Eq "$KVM_FAILURE" "$tmp/stderr"; then
                stop_qemu
                return 200
            fi
            if [[ -z $started ]]; then
                if grep -q 'nanoBench-EFI [0-9]' "$log"; then
                    started=1
                    image_started=1
                elif grep -Eq "$REFUSED" "$log"; then
                    stop_qemu
                    echo "qemu-run: the firmware refused the image: $(grep -Eo "$REFUSED" "$log" | head -n 1 | tr -d '\r')" >&2
                    return 3
                fi
            fi
        fi
        if [[ -z $socket ]] && ((EPOCHSECONDS - last_change >= idle_s)); then
            stop_qemu
            echo "qemu-run: no serial output for $idle_s s, QEMU stopped (serial log: $log)" >&2
            stopped_for=silence
            return 124
        fi
        if ((timeout_s > 0 && EPOCHSECONDS - start >= timeout_s)); then
            stop_qemu
            echo "qemu-run: no shutdown within ${timeout_s} s (QEMU_TIMEOUT), QEMU stopped (serial log: $log)" >&2
            return 124
        fi
    done
    wait "$qemu_pid" 2>/dev/null
}

stop_qemu() {
    kill -TERM "$qemu_pid" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 "$qemu_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
}

if [[ ${STREAM:-0} == 1 ]]; then
    : >"$log"
    tail -s 0.05 -n +1 -F "$log" 2>/dev/null &
    stream_pid=$!
fi

if [[ $accel == kvm ]]; then
    # What the guest writes during a KVM attempt must not survive a fallback.
    cp --sparse=always "$img" "$tmp/pristine.img"
fi
run_qemu "$accel"
rc=$?
# QEMU itself may also give up on KVM (an abort setting up the vCPU): any
# failure whose message names KVM falls back as well.
if [[ $accel == kvm && ( $rc == 200 || ( $rc -ne 0 && $rc -ne 124 ) && $(grep -ci kvm "$tmp/stderr") -gt 0 ) ]]; then
    why=$(grep -Em1 "$KVM_FAILURE" "$tmp/stderr" || grep -m1 . "$tmp/stderr")
    echo "qemu-run: KVM stopped the guest (${why:-QEMU status $rc}); booting a pristine image again under TCG" >&2
    cp --sparse=always "$tmp/pristine.img" "$img"
    accel=tcg
    run_qemu tcg
    rc=$?
fi
# A benchmark that hung where no watchdog of the image could stop it (say
# `cli; jmp $` with one processor and no -icount): boot the image again, which
# resumes the run after it, so the rest of the suite still runs.
while [[ $rc == 124 && $stopped_for == silence && -n $image_started && $boot_again -gt 0 ]]; do
    boot_again=$((boot_again - 1))
    echo "qemu-run: booting the image again: it resumes the run after the benchmark that hung" >&2
    run_qemu "$accel" append
    rc=$?
done
# QEMU's own messages (warnings, errors) after the run, not mixed into it
# (serve mode showed them as they came).
[[ -z $socket && -s $tmp/stderr ]] && cat "$tmp/stderr" >&2
echo "$accel" >"$tmp/accel"
[[ -n ${QEMU_ACCEL_FILE:-} ]] && cp "$tmp/accel" "$QEMU_ACCEL_FILE"

case $rc in
0 | 3 | 124) ;;
*) echo "qemu-run: QEMU failed with status $rc" >&2 ;;
esac
exit $rc
