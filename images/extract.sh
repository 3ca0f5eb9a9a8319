#!/bin/sh
# extract.sh — copy the results files out of a nanoBench-EFI disk image.
#
# usage: images/extract.sh IMG DEST
#
# Copies nanobench/results/* from the image's first partition into DEST
# (created if needed). The partition offset is read from the GPT, so images
# written back from a USB stick work too. An empty results folder is not an
# error.
set -eu

die() {
    echo "extract: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: $0 IMG DEST"
img=$1
dest=$2
[ -f "$img" ] || die "$img: no such image"
export MTOOLS_SKIP_CHECK=1

first=$("${NB_GPT:-$(dirname "$0")/../build/host/nb_gpt}" first-lba "$img") || die "$img: no GPT partition 1"
part="$img@@$((first * 512))"

# One mdir answers both questions (each mtools call costs about 10 ms).
listing=$(mdir -i "$part" -b ::/nanobench/results 2>/dev/null) || die "$img: no nanobench/results folder"
mkdir -p "$dest"
if [ -z "$listing" ]; then
    echo "extract: $img: nanobench/results is empty" >&2
    exit 0
fi
mcopy -s -n -m -i "$part" '::/nanobench/results/*' "$dest/"
