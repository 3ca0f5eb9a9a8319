# tests/qemu/serve_tests.sh — -serve on the host side (sourced by run.sh): where
# the compiled suite says it, and the QEMU command line that serve mode boots.
# The requests themselves are tested by make python-test (tests/python/).

# -serve on a suite's defaults line or the command line reaches the compiled
# suite's defaults line; -serve with no code compiles to no benchmark at all.
test_serve_compiled_suite() {
    local out=$TMP/serve_compile
    rm -rf "$out"
    printf 'defaults: -serve\nadd: -asm "ADD RAX, RBX"\n' >"$TMP/serve.suite"
    "$ROOT/build/host/nb_compile" "$out/a" -suite "$TMP/serve.suite" || return 1
    expect_eq "suite defaults" "defaults: -finish shutdown -serve" "$(sed -n 2p "$out/a/nanobench/suite.nb")" || return 1
    expect_eq "suite env" "NB_SERVE='1'" "$(grep NB_SERVE "$out/a/cli.env")" || return 1
    "$ROOT/build/host/nb_compile" "$out/b" -serve -finish exit || return 1
    expect_eq "no code" "# compiled by tools/nanobench $(sed -n 's/.*NB_VERSION "\(.*\)"/\1/p' "$ROOT/kernel/nb_version.h") from the command line
defaults: -finish exit -serve" "$(cat "$out/b/nanobench/suite.nb")" || return 1
    expect_eq "no benchmark" "NB_BENCHMARKS=0" "$(grep NB_BENCHMARKS "$out/b/cli.env")" || return 1
    "$ROOT/build/host/nb_compile" "$out/c" -asm "NOP" || return 1
    expect_eq "without -serve" "defaults: -finish shutdown" "$(sed -n 2p "$out/c/nanobench/suite.nb")"
}

# The chardev serve mode gives QEMU: a unix socket it waits on, or a pty; the
# serial log still gets what the guest sends. (QEMU=echo prints the command line.)
test_serve_qemu_chardev() {
    : >"$TMP/serve.img"
    local line
    line=$(QEMU="echo" "$ROOT/images/qemu-run.sh" "$TMP/serve.img" "$TMP/serve.log" --icount 4 \
           --serial-socket "$TMP/com1.sock")
    [[ $line == *"-chardev socket,id=com1,path=$TMP/com1.sock,server=on,wait=on,logfile=$TMP/serve.log -serial chardev:com1"* ]] ||
        { echo "socket: $line"; return 1; }
    line=$(QEMU="echo" "$ROOT/images/qemu-run.sh" "$TMP/serve.img" "$TMP/serve.log" --icount 4 --serial-pty)
    [[ $line == *"-chardev pty,id=com1,logfile=$TMP/serve.log -serial chardev:com1"* ]] || { echo "pty: $line"; return 1; }
}

run_test serve_compiled_suite test_serve_compiled_suite
run_test serve_qemu_chardev test_serve_qemu_chardev
