#!/usr/bin/env bash
# tools/results/fetch_uplot.sh — brings the pinned uPlot (tools/results/uplot.lock)
# into build/vendor/ for the results pages: `npm pack` of that exact version
# (npm checks the registry's integrity hash), then the tarball's sha256 against
# the lock file; a mismatch is an error and nothing is unpacked. Only
# dist/uPlot.iife.min.js, dist/uPlot.min.css and LICENSE are kept. Once there,
# the pages are built offline.
#
# usage: tools/results/fetch_uplot.sh OUT_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: fetch_uplot.sh OUT_DIR}
lock=$ROOT/tools/results/uplot.lock
name=$(awk '$1 == "name" { print $2 }' "$lock")
version=$(awk '$1 == "version" { print $2 }' "$lock")
sum=$(awk '$1 == "sha256" { print $2 }' "$lock")
command -v npm >/dev/null || { echo "fetch_uplot: npm not found (Debian package npm)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nb-uplot.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$name@$version" >/dev/null) ||
    { echo "fetch_uplot: npm pack $name@$version failed (is the npm registry reachable?)" >&2; exit 1; }
tarball=$work/$name-$version.tgz
got=$(sha256sum "$tarball" | cut -d' ' -f1)
if [[ $got != "$sum" ]]; then
    echo "fetch_uplot: $name-$version.tgz: sha256 $got, expected $sum (tools/results/uplot.lock)" >&2
    exit 1
fi
tar -xzf "$tarball" -C "$work" package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE
mkdir -p "$out"
cp "$work/package/dist/uPlot.iife.min.js" "$work/package/dist/uPlot.min.css" "$out/"
cp "$work/package/LICENSE" "$out/uPlot.LICENSE"
echo "$name $version $sum" >"$out/uPlot.version"
