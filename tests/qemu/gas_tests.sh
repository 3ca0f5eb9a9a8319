# tests/qemu/gas_tests.sh — -asm* in nanoBench's dialect: GNU as assembles it
# (tools/compile/gas_batch.h). Sourced by tests/qemu/run.sh (its helpers: $NB, $TMP,
# expect_eq, expect_cli_error).

# The corpus (tests/gas/corpus.tsv: 3,000+ statements of every mnemonic class,
# bytes produced once by GNU as) through the whole pipeline: each case is a
# benchmark of one suite (statement splitting, comments, |n, N*|..|, one as
# run), written to an image; the bytes of each benchmark's slice of the code
# blob ON THE IMAGE must be the corpus's, every one.
test_gas_corpus() {
    local corpus=tests/gas/corpus.tsv suite=$TMP/corpus.suite
    local n
    n=$(awk -F '\t' '!/^#/ && $2 !~ /\\n/ { n++ } END { print n }' "$corpus")
    [[ $n -gt 800 ]] || { echo "corpus too small: $n cases"; return 1; }
    # Double-quoted suite words: \ and " escaped. A case with a newline is checked below.
    awk -F '\t' '!/^#/ && $2 !~ /\\n/ {
        t = $2; gsub(/\\/, "\\\\", t); gsub(/"/, "\\\"", t)
        printf "%s: -asm \"%s\"\n", $1, t }' "$corpus" >"$suite"
    local err
    err=$($NB -suite "$suite" -image "$TMP/corpus.img" 2>&1 >/dev/null) || { echo "$err" | head -20; return 1; }
    MTOOLS_SKIP_CHECK=1 mcopy -n -i "$TMP/corpus.img@@1M" ::/nanobench/code/code.bin "$TMP/corpus.bin" &&
        MTOOLS_SKIP_CHECK=1 mcopy -n -i "$TMP/corpus.img@@1M" ::/nanobench/suite.nb "$TMP/corpus.nb" || return 1
    local hex bad
    hex=$(xxd -p "$TMP/corpus.bin" | tr -d '\n')
    # Every benchmark of suite.nb: NAME: -code code/code.bin:OFFSET:LENGTH ...
    bad=$(tr -d '\r' <"$TMP/corpus.nb" | awk -v hex="$hex" -v corpus="$corpus" '
        BEGIN { FS = "\t"; while ((getline line < corpus) > 0) if (line !~ /^#/) {
                    split(line, f, "\t"); want[f[1]] = f[3] } FS = " " }
        /^[A-Za-z0-9_.-]+: -code code\/code\.bin:/ {
            name = substr($1, 1, length($1) - 1); split($3, s, ":")
            got = substr(hex, 2 * s[2] + 1, 2 * s[3]); seen++
            if (!(name in want)) { print "unknown benchmark " name; next }
            if (got != want[name]) print name ": image " got ", GNU as " want[name]
        }
        END { if (seen < 800) print "only " seen " benchmarks on the image" }')
    [[ -z $bad ]] || { echo "$bad" | head -20; echo "($(wc -l <<<"$bad") cases differ)"; return 1; }
    # Cases with a newline inside the text: from the command line.
    local name text want got
    while IFS=$'\t' read -r name text want; do
        text=${text//\\n/$'\n'}
        build/host/nb_compile "$TMP/corpus-nl" -asm "$text" 2>/dev/null || { echo "$name: not compiled"; return 1; }
        got=$(xxd -p "$TMP/corpus-nl/nanobench/code/code.bin" | tr -d '\n')
        expect_eq "$name" "$want" "$got" || return 1
    done < <(awk -F '\t' '!/^#/ && $2 ~ /\\n/' "$corpus")
}

# nasm-only constructs name -asm_syntax nasm; as's own errors name the statement
# the user wrote (after a repeat and a comment); a name the part does not define
# and a label of another part are errors; section directives are refused.
test_gas_errors() {
    local tail="-asm* is GNU as's .intel_syntax noprefix, as in nanoBench; rewrite it, or give -asm_syntax nasm"
    expect_cli_error define "nanobench: -asm statement 1 '%define X 1': nasm's %define: $tail" \
        -asm "%define X 1; nop" &&
    expect_cli_error qword "nanobench: -asm statement 2 'inc qword [r14]': nasm's qword [x] (as reads it as a number + [x]; gas: qword PTR [x]): $tail" \
        -asm "nop; inc qword [r14]" &&
    expect_cli_error dq "nanobench: -asm_init statement 1 'dq 5': nasm's dq: $tail" -asm_init "dq 5" -asm nop &&
    expect_cli_error rel "nanobench: -asm statement 1 'lea rax, [rel x]': nasm's [rel x] (gas: [rip + x]): $tail" \
        -asm "lea rax, [rel x]" &&
    expect_cli_error numbering "nanobench: -asm statement 3 'addx rax, rbx': error: no such instruction: \`addx rax,rbx'" \
        -asm "lea rax, [rip+4]; 3*|nop; nop| # six NOPs; addx is in the comment
addx rax, rbx" &&
    expect_cli_error undefined "nanobench: -asm statement 2 'jmp lopp': 'lopp' is not defined in this part (each -asm* option is assembled alone, as in nanoBench)" \
        -asm "loop: dec ecx; jmp lopp" &&
    expect_cli_error other_part "nanobench: -asm statement 1 'jmp init_label': 'init_label' is not defined in this part" \
        -asm_init "init_label: nop" -asm "jmp init_label" &&
    expect_cli_error section "nanobench: -asm statement 2 '.data': the harness places the code, so .data cannot be used" \
        -asm "nop; .data" &&
    expect_eq "a repeat's error once" 1 "$($NB -asm "2*|addx eax, 2|" 2>&1 | grep -c 'no such instruction')" &&
    expect_cli_error syntax "nanobench: option -asm_syntax: 'intel' is not gas (GNU as, nanoBench's) or nasm" \
        -asm nop -asm_syntax intel || return 1
    # In a suite: each benchmark named with its line; the same label in two
    # benchmarks and in -asm_init and -asm of one is fine (one as run); a
    # defaults line gives -asm_syntax nasm to the lines after it.
    cat >"$TMP/gas.suite" <<'SUITE'
one: -asm_init "l: nop" -asm "l: jmp l"
two: -asm "l: jmp l; .rept 2; nop; .endr"
bad: -asm "nop; jmp 1f"
defaults: -asm_syntax nasm
nasm: -asm "inc qword [r14]; %define X rax; mov X, 1"
SUITE
    local err rc
    err=$($NB -suite "$TMP/gas.suite" -image "$TMP/gas.img" 2>&1 >/dev/null)
    rc=$?
    expect_eq "gas.suite exit status" 2 "$rc" || return 1
    expect_eq "gas.suite messages" "nanobench: benchmark 'bad' ($TMP/gas.suite:3): as: Error: local label \`\"1\" (instance number 1 of a fb label)' is not defined
nanobench: 1 error; nothing was run" "$err" || return 1
    sed -i '/^bad:/d' "$TMP/gas.suite"
    err=$($NB -suite "$TMP/gas.suite" -image "$TMP/gas.img" 2>&1 >/dev/null) || { echo "$err"; return 1; }
    MTOOLS_SKIP_CHECK=1 mcopy -n -i "$TMP/gas.img@@1M" ::/nanobench/code/code.bin "$TMP/gas.bin" || return 1
    # one: 90 (init), eb fe; two: eb fe 90 90; nasm: 49 ff 06, b8 01 00 00 00 (nasm's short mov).
    expect_eq "gas.suite code" "90ebfeebfe909049ff06b801000000" "$(xxd -p "$TMP/gas.bin" | tr -d '\n')"
}

# The bytes GNU as chooses are the bytes measured: `mov rax, 1` is 7 bytes for
# as (5 for nasm), and .rept, movabs and x87 registers run as written. Under
# -icount 4 each instruction is 16 TSC ticks: 2 instructions per copy = 32.
test_gas_run() {
    local out
    out=$($NB -asm ".rept 2; add rax, rbx; .endr" -icount 4 -results "$TMP/gas-run" 2>/dev/null) || { echo "$out"; return 1; }
    grep -qx 'RDTSC: 32.00' <<<"$out" || { echo "rept: $out"; return 1; }
    out=$($NB -asm "movabs rax, 0x1122334455667788; fxch st(1)" -asm_init "fninit; fld1; fldz" -icount 4 \
        -results "$TMP/gas-run" 2>/dev/null) || { echo "$out"; return 1; }
    grep -qx 'RDTSC: 32.00' <<<"$out" || { echo "movabs/fxch: $out"; return 1; }
}

run_test gas_corpus test_gas_corpus
run_test gas_errors test_gas_errors
run_test gas_run test_gas_run
