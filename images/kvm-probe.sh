#!/usr/bin/env bash
# kvm-probe.sh — is KVM usable here? Boots images/kvm_probe.asm (a 64 KiB
# firmware that walks real → protected → long mode, FINIT, SSE, CPUID, MSRs
# and port I/O as OVMF does first) under `-accel kvm -cpu host` and trusts
# KVM only when it leaves through isa-debug-exit with the pass code within
# PROBE_SECONDS. A /dev/kvm that merely opens, or on which QEMU can create
# a paused guest, is not enough: paravirtualised KVM without VMX/SVM fails
# on OVMF's first instructions and QEMU then pauses the guest forever.
#
# usage: images/kvm-probe.sh     prints "usable" (exit 0) or
#                                "not usable: REASON" (exit 1)
#
# The verdict is cached per host boot, QEMU binary, KVM device and probe
# (build/kvm-probe/verdict-*), so a suite of runs pays for the probe once
# (about 70 ms where KVM works, PROBE_SECONDS where a guest hangs).
#
# Environment: QEMU (binary), KVM_DEVICE (default /dev/kvm),
#   NB_BOOT_ID_FILE (default /proc/sys/kernel/random/boot_id; tests point it
#   elsewhere to simulate a reboot), NB_KVM_PROBE_DIR (cache and probe
#   binary; default build/kvm-probe under the repository).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
qemu=${QEMU:-qemu-system-x86_64}
kvm_dev=${KVM_DEVICE:-/dev/kvm}
boot_id_file=${NB_BOOT_ID_FILE:-/proc/sys/kernel/random/boot_id}
dir=${NB_KVM_PROBE_DIR:-$ROOT/build/kvm-probe}
PROBE_SECONDS=2       # a working KVM exits in well under 0.2 s, even on a loaded host
PASS_STATUS=85        # (PASS_CODE 0x2a << 1) | 1, see kvm_probe.asm

verdict() { # verdict usable|"not usable: why": print, cache, exit
    [[ -n ${key_file:-} ]] && printf '%s\n%s\n' "$key" "$1" >"$key_file.$$" 2>/dev/null &&
        mv -f "$key_file.$$" "$key_file"
    echo "$1"
    [[ $1 == usable ]]
    exit
}

# [ -c ] first: opening a missing path with <> would create a file.
[[ -c $kvm_dev ]] || { echo "not usable: $kvm_dev is not a character device"; exit 1; }
(exec 3<>"$kvm_dev") 2>/dev/null || { echo "not usable: $kvm_dev cannot be opened for reading and writing"; exit 1; }
qemu_path=$(command -v "$qemu") || { echo "not usable: $qemu not found"; exit 1; }

mkdir -p "$dir" 2>/dev/null
probe=$dir/kvm_probe.bin
if [[ ! -s $probe || $ROOT/images/kvm_probe.asm -nt $probe ]]; then
    nasm -f bin -o "$probe.$$" "$ROOT/images/kvm_probe.asm" && mv -f "$probe.$$" "$probe" ||
        { rm -f "$probe.$$"; echo "not usable: cannot assemble images/kvm_probe.asm"; exit 1; }
fi

# What the verdict depends on: this boot of the host (its kernel and KVM
# module), the QEMU binary, the device node and the probe itself.
boot_id=$(cat "$boot_id_file" 2>/dev/null) || boot_id=unknown
key="boot $boot_id; qemu $(stat -L -c '%d:%i:%s:%Y' "$qemu_path") $qemu_path; device $(stat -L -c '%t:%T:%i' "$kvm_dev") $kvm_dev; probe $(cksum <"$probe")"
key_file=$dir/verdict-$(cksum <<<"$key" | cut -d' ' -f1)
if [[ -f $key_file ]] && { read -r cached_key && read -r cached_verdict; } <"$key_file" &&
    [[ $cached_key == "$key" && -n $cached_verdict ]]; then
    echo "$cached_verdict"
    [[ $cached_verdict == usable ]]
    exit
fi

err=$(mktemp "${TMPDIR:-/tmp}/nb-kvm-probe.XXXXXX")
trap 'rm -f "$err"' EXIT
# In a subshell whose stderr is discarded: the shell's own "Aborted" too.
(timeout -k 1 "$PROBE_SECONDS" "$qemu" -accel kvm -cpu host -machine q35 -m 16 -nodefaults \
    -no-user-config -display none -no-reboot -bios "$probe" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >/dev/null 2>"$err"; exit $?) 2>/dev/null
rc=$?
first_error=$(grep -m1 -v '^[[:space:]]*$' "$err" | cut -c1-160)
case $rc in
"$PASS_STATUS") verdict usable ;;
124 | 137) verdict "not usable: the probe guest did not finish within $PROBE_SECONDS s${first_error:+ ($first_error)}" ;;
0) verdict "not usable: the probe guest reset instead of finishing (a fault KVM could not run)" ;;
*) verdict "not usable: QEMU exited with status $rc${first_error:+ ($first_error)}" ;;
esac
