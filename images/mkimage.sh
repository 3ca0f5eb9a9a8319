#!/bin/sh
# mkimage.sh — build a bootable GPT disk image with one EFI System Partition.
#
# usage: images/mkimage.sh OUT.img STAGING_DIR
#
# STAGING_DIR is the tree to put on the ESP (EFI/BOOT/BOOTX64.EFI,
# nanobench/...). Layout: GPT, 1 MiB aligned, partition 1 = ESP (type EF00,
# name NANOBENCH) of 64 MiB, FAT32 labelled NANOBENCH, with an empty
# nanobench/results/ folder added when the staging tree has none.
# No root, no loop devices: the FAT is built in a plain file with mtools,
# then copied into the disk image at the partition offset.
set -eu

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
gpt_pid=
disk=$out.partial
trap '[ -z "$gpt_pid" ] || kill "$gpt_pid" 2>/dev/null; rm -rf "$tmp" "$disk"' EXIT INT TERM
fat=$tmp/esp.fat
export MTOOLS_SKIP_CHECK=1

# ESP plus 1 MiB in front (protective MBR, primary GPT, alignment) and 1 MiB
# behind (backup GPT). sgdisk always sleeps 1 s after writing (it asks the
# kernel to re-read the partition table, even for a plain file), so the GPT
# is written in the background while the FAT is being built.
rm -f "$disk"
truncate -s $(((ESP_START_MIB + ESP_SIZE_MIB + 1) * 1024 * 1024)) "$disk"
sgdisk --clear \
    --new=1:$((ESP_START_MIB * 1024 * 1024 / SECTOR)):+${ESP_SIZE_MIB}M \
    --typecode=1:EF00 --change-name=1:NANOBENCH "$disk" >"$tmp/sgdisk.log" 2>&1 &
gpt_pid=$!

# -h: hidden sectors = partition start, as firmware reading the BPB expects.
mkfs.fat -F 32 -S $SECTOR -n NANOBENCH -h $((ESP_START_MIB * 1024 * 1024 / SECTOR)) \
    -C "$fat" $((ESP_SIZE_MIB * 1024)) >/dev/null

for entry in "$staging"/*; do
    [ -e "$entry" ] || continue
    mcopy -s -i "$fat" "$entry" ::/
done
for dir in ::/nanobench ::/nanobench/results; do
    mdir -i "$fat" "$dir" >/dev/null 2>&1 || mmd -i "$fat" "$dir"
done

if ! wait "$gpt_pid"; then
    cat "$tmp/sgdisk.log" >&2
    gpt_pid=
    die "sgdisk failed"
fi
gpt_pid=
dd if="$fat" of="$disk" bs=1M seek=$ESP_START_MIB conv=notrunc,sparse status=none
mv -f "$disk" "$out"
