#!/usr/bin/env bash
# tests/check_layers.sh — the dependency rules of ../shared/DESIGN.md, checked
# on every #include: lib/ depends on nothing of ours; pmu/ only on lib/;
# kernel/ on lib/ and pmu/; nothing but boot/ includes <efi.h>; target code
# never includes tools/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0

# sources DIR: every .c/.h of DIR and of its folders (kernel/'s rooms: kernel/rooms.txt)
sources() { find "$@" -name '*.[ch]' | sort; }
# has DIR HEADER: DIR or one of its folders holds HEADER (every room is on the include path)
has() { [[ -n $(find "$1" -name "$2" -print -quit) ]]; }
# includes DIR: "file: header" for every quoted include in DIR
includes() { sources "$1" | xargs grep -Ho '#include "[^"]*"' | sed 's/#include "\(.*\)"/\1/'; }

check() { # LAYER ALLOWED_DIRS...
    local layer=$1
    shift
    while IFS=: read -r file header; do
        has "$layer" "$header" && continue
        local ok=0
        for dir in "$@"; do has "$dir" "$header" && ok=1; done
        if [[ $ok -eq 0 ]]; then
            echo "layers: $file includes \"$header\", which is not in $layer/${*:+ or }$*"
            status=1
        fi
    done < <(includes "$layer")
}

check lib
check pmu lib
check kernel lib pmu
if sources lib kernel pmu | xargs grep -ln '#include <efi'; then
    echo "layers: only boot/ may include <efi.h>"
    status=1
fi
[[ $status -eq 0 ]] && echo "layers: lib <- pmu <- kernel <- boot: 4 passed, 0 failed" ||
    echo "layers: 0 passed, 1 failed"
exit $status
