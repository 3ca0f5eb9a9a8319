#!/usr/bin/env bash
# tools/install-deps.sh — installs the Debian packages the build, `make run`
# and `make test` need, but only those that are missing (checked with
# dpkg-query, so a machine that has everything never touches apt).
#
# usage: tools/install-deps.sh [extra-package...]
set -euo pipefail

PACKAGES=(
    make gcc libc6-dev binutils     # host tools, unit tests; GNU as assembles -asm snippets (nanoBench's dialect)
    gnu-efi                         # UEFI application headers, crt0 and linker script
    nasm                            # boot/*.asm and -asm snippets with -asm_syntax nasm
    qemu-system-x86 ovmf            # boot the image at a desk and in CI
    mtools dosfstools gdisk         # FAT32 image without root or loop devices; sgdisk -v checks the GPT in tests
    libpfm4-dev                     # event tables for tools/configgen (make configs)
    clang libclang-rt-14-dev        # libFuzzer targets (make fuzz, fuzz-smoke in make test)
    libzydis-dev                    # x86 decoder for tools/mica (nb_mica)
    sbsigntool openssl              # -sign_key/-sign_cert and -secure_boot (sbsign; the snakeoil key is encrypted)
    lava-dispatcher                 # lava-run: the tests run the -lava_job jobs on a QEMU device
    python3                         # tools/configgen generators (metric files, perfmon tables) and their checks; tools/nb_html
    chromium                        # headless browser tests of the results pages (tests/results)
    python3-pytest python3-venv python3-setuptools python3-wheel  # tests/python: the Python API over serve mode; its pip install
    qemu-user                       # nb_mica -dbt: user-mode QEMU runs the program with its TCG plugin
    gdb                             # -debug_gdb: the debugger attached to the image's stub (tests/qemu/debug_tests.sh)
    "$@"
)

# One dpkg-query for all of them (it runs before every tools/nanobench: one
# call per package cost 0.13 s of the round trip, this one about 10 ms).
declare -A installed=()
while read -r pkg status; do
    [[ $status == "install ok installed" ]] && installed[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for pkg in "${PACKAGES[@]}"; do
    [[ -n ${installed[$pkg]:-} ]] || missing+=("$pkg")
done
# npm fetches the pinned charting library of the results pages
# (tools/results/uplot.lock). Any npm will do: a NodeSource nodejs brings its
# own, and Debian's npm package would conflict with it, so only a machine
# without one gets Debian's.
command -v npm >/dev/null || missing+=(npm)
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "nanobench: installing missing Debian packages: ${missing[*]}" >&2
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then
        SUDO=(sudo)
    else
        echo "nanobench: need root (or sudo) to install: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q >&2
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
