#!/bin/sh
# qemu-run.sh — boot a nanoBench-EFI disk image under QEMU/OVMF and capture
# the serial port.
#
# usage: images/qemu-run.sh IMG SERIAL_LOG [--icount N] [--smp N] [--reboot-ok]
#
#   --icount N    TCG with -icount shift=N: the guest clock (and RDTSC)
#                 advances 2^N ns per instruction, so timings are exact
#   --smp N       N virtual CPUs (default 1)
#   --reboot-ok   let a guest reset reboot it (default: QEMU exits on reset)
#
# Environment:
#   QEMU_TIMEOUT  seconds before QEMU is killed (default 300); exit status 124
#   STREAM=1      also copy the serial output to stdout as it arrives
#   QEMU          emulator binary (default qemu-system-x86_64)
#   OVMF_CODE, OVMF_VARS   firmware images (default Debian's 4M OVMF)
#   QEMU_CPU      CPU model under TCG (default max)
#   QEMU_EXTRA    extra arguments, split on spaces
#
# KVM with -cpu host is used when /dev/kvm can be opened read/write, QEMU
# can start a guest with it, and --icount is not given; TCG otherwise
# (KVM_DEVICE overrides the device path, for tests). The image is attached
# read-write, so
# results files written by the guest land in IMG (see images/extract.sh).
# Exits 0 when QEMU exits by itself (guest power-off, or reset without
# --reboot-ok); a guest that hangs or crashes into the firmware ends in the
# timeout.
set -eu

die() {
    echo "qemu-run: $*" >&2
    exit 2
}

usage="usage: $0 IMG SERIAL_LOG [--icount N] [--smp N] [--reboot-ok]"
[ $# -ge 2 ] || die "$usage"
img=$1
log=$2
shift 2
icount=
smp=1
reboot=-no-reboot
while [ $# -gt 0 ]; do
    case $1 in
    --icount) [ $# -ge 2 ] || die "$usage"; icount=$2; shift 2 ;;
    --smp) [ $# -ge 2 ] || die "$usage"; smp=$2; shift 2 ;;
    --reboot-ok) reboot=; shift ;;
    *) die "$usage" ;;
    esac
done

qemu=${QEMU:-qemu-system-x86_64}
code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
timeout_s=${QEMU_TIMEOUT:-300}
[ -f "$img" ] || die "$img: no such image"
[ -f "$code" ] || die "$code: no OVMF firmware (Debian package ovmf)"
[ -f "$vars" ] || die "$vars: no OVMF variable store"

# Each boot starts from pristine UEFI variables (boot order, console setup).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nb-qemu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$vars" "$tmp/vars.fd"

# KVM that QEMU can really start a guest with: the device must open, and a
# paused q35 guest must come up and quit (nested virtualisation can offer a
# /dev/kvm on which QEMU aborts setting the guest's MSRs). About 60 ms.
kvm_usable() {
    # [ -c ] first: opening a missing device with <> would create a file.
    [ -c "$kvm_dev" ] && (exec 3<>"$kvm_dev") 2>/dev/null || return 1
    # In a subshell whose stderr is discarded: the shell's own "Aborted" too.
    (echo quit | timeout 10 "$qemu" -accel kvm -cpu host -machine q35 -m 64 -nodefaults \
        -no-user-config -display none -S -monitor stdio) >/dev/null 2>&1
}

kvm_dev=${KVM_DEVICE:-/dev/kvm}
if [ -z "$icount" ] && kvm_usable; then
    accel="-accel kvm -cpu host"
elif [ -z "$icount" ] && [ -c "$kvm_dev" ]; then
    echo "qemu-run: $kvm_dev is present but QEMU cannot start a KVM guest with it; using TCG" >&2
    accel="-accel tcg -cpu ${QEMU_CPU:-max}"
elif [ -n "$icount" ]; then
    accel="-accel tcg -cpu ${QEMU_CPU:-max} -icount shift=$icount"
else
    accel="-accel tcg -cpu ${QEMU_CPU:-max}"
fi

: >"$log"
if [ "${STREAM:-0}" = 1 ]; then
    serial="stdio,id=com1,logfile=$log"
else
    serial="file,id=com1,path=$log"
fi

# -nodefaults: no VGA, NIC or default serial; OVMF needs only its flash, a
# disk and COM1 (its console goes there as well, see boot/efi_console.c).
set +e
# QEMU_MEM: the guest's memory (QEMU's -m: MiB, or with a G suffix), default 512;
# tools/nanobench sets it to what the suite's areas need.
# shellcheck disable=SC2086 # $accel, $reboot and $QEMU_EXTRA are word lists
timeout --foreground -k 5 "$timeout_s" "$qemu" \
    -machine q35 -m "${QEMU_MEM:-512}" -smp "$smp" $accel \
    -nodefaults -no-user-config -display none -nic none \
    -drive if=pflash,format=raw,unit=0,readonly=on,file="$code" \
    -drive if=pflash,format=raw,unit=1,file="$tmp/vars.fd" \
    -drive if=none,id=disk0,format=raw,file="$img" \
    -device virtio-blk-pci,drive=disk0,bootindex=1 \
    -chardev "$serial" -serial chardev:com1 \
    $reboot ${QEMU_EXTRA:-}
rc=$?
set -e

case $rc in
0) ;;
124 | 137) echo "qemu-run: no shutdown within ${timeout_s} s, QEMU killed (serial log: $log)" >&2 ;;
*) echo "qemu-run: QEMU failed with status $rc" >&2 ;;
esac
exit $rc
