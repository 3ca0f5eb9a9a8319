#!/bin/sh
# check_pe.sh — sanity checks on the UEFI application before it goes on an image.
#
# usage: boot/check_pe.sh BOOTX64.EFI BOOTX64.so
#
# 1. No PE section is both writable and executable (objdump -h: CODE without
#    READONLY). Firmware with memory protection (OVMF's image protection
#    policy, Windows-style NX policies) maps sections by these flags.
# 2. SectionAlignment is 4 KiB, so the firmware can protect each section.
# 3. The intermediate ELF has no undefined dynamic symbols: there is no
#    dynamic loader in UEFI, anything undefined would be called at address 0.
# 4. It has only R_X86_64_RELATIVE relocations, the only kind gnu-efi's
#    _relocate applies at start-up.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 BOOTX64.EFI BOOTX64.so" >&2
    exit 2
fi
efi=$1
so=$2
fail=0

wx=$(objdump -h "$efi" | awk '
    /^ *[0-9]+ / { name = $2; next }
    name != "" { if ($0 ~ /CODE/ && $0 !~ /READONLY/) print name; name = "" }')
if [ -n "$wx" ]; then
    echo "check_pe: $efi: writable and executable section(s): $wx" >&2
    fail=1
fi

align=$(objdump -p "$efi" | awk '$1 == "SectionAlignment" { print $2 }')
case "$align" in
*1000) ;;
*)
    echo "check_pe: $efi: SectionAlignment is '$align', want 00001000" >&2
    fail=1
    ;;
esac

undef=$(readelf --dyn-syms -W "$so" | awk '$7 == "UND" && $8 != "" { printf " %s", $8 }')
if [ -n "$undef" ]; then
    echo "check_pe: $so: undefined dynamic symbols:$undef" >&2
    fail=1
fi

relocs=$(readelf -r -W "$so" | awk '$3 ~ /^R_X86_64_/ && $3 != "R_X86_64_RELATIVE" { print $3 }' |
    sort -u | tr '\n' ' ')
if [ -n "$relocs" ]; then
    echo "check_pe: $so: relocations gnu-efi cannot apply: $relocs" >&2
    fail=1
fi

if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "check_pe: $efi OK (W^X sections, 4 KiB aligned, no undefined symbols, RELATIVE relocations only)"
