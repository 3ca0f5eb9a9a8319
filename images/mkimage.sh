#!/bin/sh
# mkimage.sh — build a bootable GPT disk image with one EFI System Partition.
#
# usage: images/mkimage.sh OUT.img STAGING_DIR
#
# STAGING_DIR is the tree to put on the ESP (EFI/BOOT/BOOTX64.EFI,
# nanobench/...). Layout: GPT, 1 MiB aligned, partition 1 = ESP (type EF00,
# name NANOBENCH) of 64 MiB, FAT32 labelled NANOBENCH, with an empty
# nanobench/results/ folder added when the staging tree has none.
# No root, no loop devices: build/host/nb_gpt writes the GPT, mkfs.fat and
# mtools make and fill the FAT inside the image file at the partition offset.
set -eu

NB_GPT=${NB_GPT:-$(dirname "$0")/../build/host/nb_gpt}
ESP_START_MIB=1
ESP_SIZE_MIB=64
SECTOR=512

die() {
    echo "mkimage: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: $0 OUT.img STAGING_DIR"
out=$1
staging=$2
[ -f "$staging/EFI/BOOT/BOOTX64.EFI" ] || die "$staging/EFI/BOOT/BOOTX64.EFI is missing"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nb-mkimage.XXXXXX")
disk=$out.partial
trap 'rm -rf "$tmp" "$disk"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export MTOOLS_SKIP_CHECK=1

# ESP plus 1 MiB in front (protective MBR, primary GPT, alignment) and 1 MiB
# behind (backup GPT), written by build/host/nb_gpt (sgdisk would sleep 1 s).
rm -f "$disk"
truncate -s $(((ESP_START_MIB + ESP_SIZE_MIB + 1) * 1024 * 1024)) "$disk"
"$NB_GPT" write "$disk" $((ESP_START_MIB * 1024 * 1024 / SECTOR)) \
    $((ESP_SIZE_MIB * 1024 * 1024 / SECTOR)) NANOBENCH || die "cannot write the partition table"

# The FAT is made in place, at the partition's offset (no 64 MiB copy);
# -h: hidden sectors = partition start, as firmware reading the BPB expects.
first_lba=$((ESP_START_MIB * 1024 * 1024 / SECTOR))
mkfs.fat -F 32 -S $SECTOR -n NANOBENCH -h $first_lba --offset $first_lba \
    "$disk" $((ESP_SIZE_MIB * 1024)) >"$tmp/mkfs.log" 2>&1 || { cat "$tmp/mkfs.log" >&2; die "mkfs.fat failed"; }
fat="$disk@@$((first_lba * SECTOR))"

# One mcopy for the whole tree and one mmd for what it lacks (each mtools
# call costs about 10 ms of every round trip).
set -- "$staging"/*
[ -e "$1" ] && mcopy -s -i "$fat" "$@" ::/
missing=
[ -d "$staging/nanobench" ] || missing=::/nanobench
[ -d "$staging/nanobench/results" ] || missing="$missing ::/nanobench/results"
# shellcheck disable=SC2086 # $missing is a word list
[ -z "$missing" ] || mmd -i "$fat" $missing

mv -f "$disk" "$out"
