# tests/qemu/mica_dbt_tests.sh — sourced by tests/qemu/run.sh: nb_mica's
# DBT capture (qemu-x86_64 with the TCG plugin) against its ptrace capture on
# five small programs, and its error paths (tests/mica_dbt_test.sh; a few
# seconds, no image boot).

test_mica_dbt() {
    make -s build/host/nb_mica build/host/mica_dbt.so \
        $(for f in tests/mica/progs/*.asm; do f=${f##*/}; echo "build/host/mica_progs/${f%.asm}"; done) >/dev/null ||
        return 1
    local out
    out=$(tests/mica_dbt_test.sh build/host/nb_mica build/host/mica_progs 2>&1) || { grep -v '^ok' <<<"$out"; return 1; }
}

run_test mica_dbt test_mica_dbt
