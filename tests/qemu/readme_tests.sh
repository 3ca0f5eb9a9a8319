# tests/qemu/readme_tests.sh — the README's samples, run as the README shows
# them (sourced by tests/qemu/run.sh). A sample is the fenced block after a
# line `<!-- sample: NAME -->` in README.md: either a file (my.suite, my.cfg)
# or `$ COMMAND` lines, each followed by what it prints. Every command is run
# literally in one scratch folder (`tools/X` there is this checkout's
# tools/X), and its output must be the block's text.

# readme_block NAME: the fenced block after <!-- sample: NAME --> in README.md
readme_block() {
    awk -v m="<!-- sample: $1 -->" '$0 == m { on = 1; next }
        on && /^```/ { if (++fence == 2) exit; next }
        on && fence == 1 { print }' "$ROOT/README.md"
}

# readme_run NAME: runs the block's `$ ` commands in $TMP/readme and checks
# that what each one prints (stdout and stderr, unless the command itself
# sends stderr away) is the text under it.
readme_run() {
    local block cmd expected actual
    block=$(readme_block "$1")
    [[ -n $block ]] || { echo "README.md has no sample $1"; return 1; }
    while IFS= read -r cmd; do
        expected=$(awk -v c="$cmd" '$0 == c { on = 1; next } on && /^\$ / { exit } on { print }' <<<"$block")
        actual=$(cd "$TMP/readme" && eval "${cmd#\$ }" 2>&1)
        expect_eq "$1: $cmd" "$expected" "$actual" || return 1
    done < <(grep '^\$ ' <<<"$block")
}

# readme_scratch: the scratch folder, and `tools/nanobench` run from it as
# this checkout's (each test runs in a subshell, so the function stays there).
readme_scratch() {
    mkdir -p "$TMP/readme"
    tools/nanobench() { "$ROOT/tools/nanobench" "$@"; }
}

# The first measurement, stderr included; its results folder is the default
# one (build/results/<date>-<pid>), which the README abbreviates as ...
test_readme_first_measurement() {
    readme_scratch
    local block cmd out err dir shown
    block=$(readme_block readme_first_measurement)
    cmd=$(head -1 <<<"$block")
    expect_eq "command" '$ tools/nanobench -asm "ADD RAX, RBX; ADD RBX, RAX" -icount 4' "$cmd" || return 1
    out=$(cd "$TMP/readme" && eval "${cmd#\$ }" 2>"$TMP/readme/first.err") || return 1
    err=$(cat "$TMP/readme/first.err")
    dir=$(sed -n 's/^nanobench: results in \(.*\) (run 0001)$/\1/p' <<<"$err")
    [[ $dir =~ ^$ROOT/build/results/[0-9]{8}-[0-9]{6}-[0-9]+$ ]] || { echo "results folder: $dir"; return 1; }
    rm -rf "$dir"
    grep -qE '^nanobench: results in \.\.\./build/results/[0-9]{8}-[0-9]{6}-[0-9]+ \(run 0001\)$' <<<"$block" ||
        { echo "README: no results line"; return 1; }
    expect_eq "stdout" "$(grep -v '^nanobench: ' <<<"$block" | tail -n +2)" "$out" || return 1
    shown=$(sed -n 's/^nanobench: results in \(.*\) (run 0001)$/\1/p' <<<"$block")
    expect_eq "stderr" "$(grep '^nanobench: ' <<<"$block")" "${err/"results in $dir ("/"results in $shown ("}"
}

# Its results go to a new folder in build/results (stderr, which names it,
# is discarded): that folder is removed afterwards.
test_readme_snippet() {
    readme_scratch
    local before rc
    before=$(ls "$ROOT/build/results" 2>/dev/null)
    readme_run readme_snippet
    rc=$?
    comm -13 <(sort <<<"$before") <(ls "$ROOT/build/results" | sort) | sed "s|^|$ROOT/build/results/|" | xargs -r rm -rf
    return $rc
}

# The suite and its config as the README shows them, run, planned and read.
test_readme_suite_and_results() {
    readme_scratch
    rm -rf "$TMP/readme/out"
    readme_block readme_suite > "$TMP/readme/my.suite"
    readme_block readme_config > "$TMP/readme/my.cfg"
    [[ -s $TMP/readme/my.suite && -s $TMP/readme/my.cfg ]] || { echo "no suite or config sample"; return 1; }
    readme_run readme_suite_run || return 1
    readme_run readme_plan || return 1
    readme_run readme_results
}

run_test readme_first_measurement test_readme_first_measurement
run_test readme_snippet test_readme_snippet
run_test readme_suite_and_results test_readme_suite_and_results
