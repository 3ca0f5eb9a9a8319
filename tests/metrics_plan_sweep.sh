#!/bin/bash
# tests/metrics_plan_sweep.sh — every group of every metric file through -plan.
#
# For each configs/metrics/*.txt (found at run time, so new files and groups
# are covered without editing this) it picks a processor that uses the file:
# the first configs/cpu_map.txt line naming the prefix (":p" / ":e" on a
# hybrid line, by the prefix's place), or for arch_intel / arch_amd a family
# cpu_map.txt does not have. Then for each `group NAME:` of the file it runs
# `-plan -metrics NAME` with an empty -config and checks that the plan
# succeeds without a message, names that metric file, and schedules every
# event it added (each appears in a `group N:` line: the scheduler leaves out
# an event none of whose counters exists). Failures name file, group and why.
#
# Usage: tests/metrics_plan_sweep.sh   (build/host/nb_compile must be built: make host-tools)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMPILER=$ROOT/build/host/nb_compile
[[ -x $COMPILER ]] || { echo "metrics_plan_sweep: $COMPILER is not built (make host-tools)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nb_plan_sweep.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
: > "$TMP/empty.cfg"

# -plan_cpu for the processor that uses metric file PREFIX.txt.
cpu_for() {
    case $1 in
        arch_intel) echo intel:0x13:0x1:8; return ;; # an Intel family cpu_map.txt lacks
        arch_amd) echo amd:0x1b:0x0:6; return ;;     # an AMD family cpu_map.txt lacks
    esac
    # stepping=FIRST-LAST / native=ID qualifiers: a processor they are for (the first
    # stepping); a native= line names the config of the E-cores with that native model ID.
    awk -v p="$1" '!/^#/ && NF >= 4 {
        v = $1 ":" $2 ":" $3; q = ""; e = ""; native = 0
        for (i = 5; i <= NF; i++) {
            if ($i ~ /^stepping=/) { s = substr($i, 10); sub(/-.*/, "", s); q = q ":stepping=" s }
            else if ($i ~ /^native=/) { q = q ":" $i; native = 1 }
            else if (i == 5) e = $5
        }
        if ($4 == p) { print v (e != "" ? ":p" : native ? ":e" : "") q; exit }
        if (e != "" && e == p) { print v ":e" q; exit }
    }' "$ROOT/configs/cpu_map.txt"
}

failed=0 checked=0
fail() {
    echo "metrics_plan_sweep: $1" >&2
    failed=$((failed + 1))
}

for file in "$ROOT"/configs/metrics/*.txt; do
    prefix=$(basename "$file" .txt)
    rel=configs/metrics/$prefix.txt
    cpu=$(cpu_for "$prefix")
    if [[ -z $cpu ]]; then
        fail "$rel: no configs/cpu_map.txt line names $prefix"
        continue
    fi
    groups=$(sed -n 's/^group \([A-Za-z0-9_]*\):.*/\1/p' "$file")
    [[ -n $groups ]] || fail "$rel: no group"
    for g in $groups; do
        checked=$((checked + 1))
        where="$rel group $g (-plan_cpu $cpu)"
        if ! NB_ROOT=$ROOT "$COMPILER" "$TMP/stage" -plan -plan_cpu "$cpu" -config "$TMP/empty.cfg" \
            -metrics "$g" > "$TMP/out" 2> "$TMP/err"; then
            fail "$where: -plan failed: $(head -c 300 "$TMP/err")"
            continue
        fi
        if [[ -s $TMP/err ]]; then
            fail "$where: -plan said: $(head -c 300 "$TMP/err")"
            continue
        fi
        header=$(grep '^# metrics ' "$TMP/out")
        if [[ $header != "# metrics $g from $rel: "* ]]; then
            fail "$where: expected '# metrics $g from $rel: ...', got '$header'"
            continue
        fi
        added=$(sed -n 's/^# metrics .*: \([0-9]*\) events\{0,1\} added.*/\1/p' <<<"$header")
        scheduled=$(grep '^group [0-9]*:' "$TMP/out" | sed 's/^group [0-9]*://' | wc -w)
        if [[ $added != "$scheduled" ]]; then
            fail "$where: $added events added, $scheduled scheduled: $(grep '^group' "$TMP/out" | tr '\n' ' ')"
        fi
    done
done
echo "metrics_plan_sweep: $checked groups checked, $failed failed"
[[ $failed -eq 0 ]]
