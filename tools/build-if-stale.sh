#!/usr/bin/env bash
# tools/build-if-stale.sh — `make deps all`, but only when something it
# builds from changed: a no-op `make` (parsing every rule, dpkg-query for the
# packages) cost about 0.12 s of every tools/nanobench round trip; this check
# is one `find`, about 6 ms.
#
# build/.up-to-date is touched after each successful `make deps all`. Make
# runs again when any build input (the Makefiles and the source folders; a
# folder's time also changes when a file in it is added or removed) is newer
# than it, when it is missing (a fresh clone), or when a tool the run needs
# has gone from PATH (the packages are then installed again).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAMP=$ROOT/build/.up-to-date

current() {
    [[ -f $STAMP ]] || return 1
    local tool
    for tool in nasm mcopy mkfs.fat qemu-system-x86_64; do
        command -v "$tool" >/dev/null || return 1
    done
    [[ -z $(cd "$ROOT" && find Makefile boot kernel pmu lib tools tests/*/*.mk -newer "$STAMP" -print -quit) ]]
}

current && exit 0
make -C "$ROOT" -s --no-print-directory deps all
touch "$STAMP"
