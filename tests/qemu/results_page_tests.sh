# tests/qemu/results_page_tests.sh — every run's page (docs/results.md),
# sourced by tests/qemu/run.sh. The pages themselves are tested in a browser
# by tests/results/run.sh; here: tools/nanobench writes one after a boot,
# with the run's values and -verbose measurements in it, and nothing to fetch.

test_run_gets_its_page() {
    local dir=$TMP/page page
    $NB -asm "ADD RAX, RBX; ADD RBX, RAX" -verbose -n_measurements 3 -icount 4 -results "$dir" >/dev/null 2>&1 || return 1
    page=$dir/run-0001.html
    [[ -f $page ]] || { echo "no $page"; ls "$dir"; return 1; }
    # The data: the benchmark's value and its three measurements, (64176 - 32176) / 1000 = 32 each.
    grep -qF '"events":[{"event":"RDTSC","text":"32.00","value":32.0,"min":null,"max":null}]' "$page" ||
        { echo "the value is not in the page"; return 1; }
    grep -qF '"verbose":{"RDTSC":[32.0,32.0,32.0]}' "$page" || { echo "the measurements are not in the page"; return 1; }
    # Self-contained: no script, style or image from elsewhere.
    if grep -qiE '(src|href)="(https?:)?//' "$page"; then
        echo "the page loads something from the network"; return 1
    fi
    grep -q '<meta name="generator" content="nanoBench-EFI tools/results/nb_html.py; uPlot 1.6.32 (MIT)">' "$page" ||
        { echo "no generator line naming uPlot's version"; return 1; }
}

run_test run_gets_its_page test_run_gets_its_page
