#!/usr/bin/env bash
# tests/fuzz/run_fuzzers.sh — runs libFuzzer targets side by side and sums up.
#
# usage: tests/fuzz/run_fuzzers.sh SECONDS JOBS TARGET...
#   Runs build/fuzz/TARGET for SECONDS each, at most JOBS at a time, on a copy
#   of tests/fuzz/corpus/TARGET in build/fuzz/corpus/TARGET (the repository's
#   seeds are never modified; inputs found earlier are kept there), with
#   tests/fuzz/TARGET.dict. Logs: build/fuzz/log/TARGET.log; crash, leak and
#   timeout inputs: build/fuzz/artifacts/TARGET/.
#   Prints one line per target with libFuzzer's final cov/ft/corp numbers and
#   then `fuzz: N passed, N failed`; exits 1 when any target failed.
# Environment: FUZZ_BUILD (build/fuzz), FUZZ_FLAGS (extra libFuzzer flags).
set -uo pipefail

if [[ $# -lt 3 ]]; then
    echo "usage: $0 SECONDS JOBS TARGET..." >&2
    exit 2
fi
seconds=$1
jobs=$2
shift 2
build=${FUZZ_BUILD:-build/fuzz}
here=tests/fuzz

mkdir -p "$build/log" "$build/status"

run_one() {
    local t=$1
    local corpus="$build/corpus/$t" artifacts="$build/artifacts/$t/"
    local log="$build/log/$t.log" status="$build/status/$t"
    rm -f "$status"
    mkdir -p "$corpus" "$artifacts"
    if [[ -d "$here/corpus/$t" ]]; then
        cp -r "$here/corpus/$t/." "$corpus/"
    fi
    local dict=()
    [[ -f "$here/$t.dict" ]] && dict=("-dict=$here/$t.dict")
    # Leaks and UB end the run (UBSan also halts via -fno-sanitize-recover).
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        "$build/$t" "$corpus" "${dict[@]}" \
        -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts" -print_final_stats=1 ${FUZZ_FLAGS:-} \
        >"$log" 2>&1
    echo $? >"$status"
}

# At most $jobs runs at a time.
running=0
for t in "$@"; do
    if [[ ! -x "$build/$t" ]]; then
        echo "fuzz: $build/$t is not built" >&2
        echo 127 >"$build/status/$t"
        continue
    fi
    run_one "$t" &
    running=$((running + 1))
    if [[ $running -ge $jobs ]]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

passed=0
failed=0
for t in "$@"; do
    rc=$(cat "$build/status/$t" 2>/dev/null || echo 1)
    log="$build/log/$t.log"
    # libFuzzer's last progress line: "#N DONE cov: C ft: F corp: X/Yb ..."
    stats=$(grep -E '^#[0-9]+[[:space:]]+[A-Z]+[[:space:]]+cov:' "$log" 2>/dev/null | tail -n 1 |
            sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/runs: \1 /; s/ +(lim|exec\/s|rss):.*//')
    if [[ "$rc" == 0 ]]; then
        passed=$((passed + 1))
        echo "fuzz: $t: ok (${stats:-no stats}) log $log"
    else
        failed=$((failed + 1))
        echo "fuzz: $t: FAILED (exit $rc, ${stats:-no stats}) log $log"
        grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant failed|SUMMARY:|Test unit written to' \
            "$log" 2>/dev/null | head -n 8 | sed 's/^/    /'
    fi
done
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
