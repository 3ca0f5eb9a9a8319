#!/usr/bin/env bash
# tests/configgen/nanobench_common_test.sh — our configs against nanoBench's, as data:
#  - every config file nanoBench ships (nanobench_common_names/FILES) exists in configs/;
#  - every configs/cfg_<NAME>_common.txt nanoBench also has, and cfg_Zen_all.txt (AMD's
#    PPR names), starts with nanoBench's names in nanoBench's order
#    (nanobench_common_names/cfg_*.txt, taken from nanoBench's repository at the commit
#    named in each file).
# Run by make test.
set -u
cd "$(dirname "$0")/../.."
data=tests/configgen/nanobench_common_names
fail=0

names() { grep -v '^[[:space:]]*#' "$1" | awk 'NF >= 2 { print $2 }'; }

while read -r f; do
    case $f in '#'*|'') continue ;; esac
    if [ ! -e "configs/$f" ]; then
        echo "nanobench_common_test: configs/$f missing (nanoBench has it)"
        fail=1
    fi
done < "$data/FILES"

for want in "$data"/cfg_*.txt; do
    f=configs/${want##*/}
    [ -e "$f" ] || continue # reported above
    expect=$(grep -v '^#' "$want")
    n=$(printf '%s\n' "$expect" | grep -c .)
    got=$(names "$f" | head -n "$n")
    if [ "$got" != "$expect" ]; then
        echo "nanobench_common_test: $f does not start with nanoBench's $n names (line: ours | nanoBench's):"
        diff <(printf '%s\n' "$got") <(printf '%s\n' "$expect") | grep '^[<>]' | head -n 12 | sed 's/^/    /'
        fail=1
    fi
done
if [ $fail -eq 0 ]; then
    echo "nanobench_common_test: $(grep -vc '^#' "$data/FILES") nanoBench files present," \
         "$(ls "$data"/cfg_*.txt | wc -l) files (the _common ones, Zen_all) start with nanoBench's names in order"
fi
exit $fail
