#!/usr/bin/env bash
# tests/check_layers.sh — the dependency rules of ../shared/DESIGN.md, checked
# on every #include: lib/ depends on nothing of ours; pmu/ only on lib/;
# kernel/ on lib/ and pmu/; nothing but boot/ includes <efi.h>; target code
# never includes tools/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0

# includes DIR: "file: header" for every quoted include in DIR
includes() { grep -Ho '#include "[^"]*"' "$1"/*.[ch] 2>/dev/null | sed 's/#include "\(.*\)"/\1/'; }

check() { # LAYER ALLOWED_DIRS...
    local layer=$1
    shift
    while IFS=: read -r file header; do
        [[ -f $layer/$header ]] && continue
        local ok=0
        for dir in "$@"; do [[ -f $dir/$header ]] && ok=1; done
        if [[ $ok -eq 0 ]]; then
            echo "layers: $file includes \"$header\", which is not in $layer/${*:+ or }$*"
            status=1
        fi
    done < <(includes "$layer")
}

check lib
check pmu lib
check kernel lib pmu
if grep -ln '#include <efi' lib/*.[ch] kernel/*.[ch] pmu/*.[ch] 2>/dev/null; then
    echo "layers: only boot/ may include <efi.h>"
    status=1
fi
[[ $status -eq 0 ]] && echo "layers: lib <- pmu <- kernel <- boot: 4 passed, 0 failed" ||
    echo "layers: 0 passed, 1 failed"
exit $status
