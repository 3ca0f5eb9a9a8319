/*
 * test_gas_batch.c — -asm* text assembled by GNU as (tools/compile/gas_source.h,
 * tools/compile/gas_batch.h): one as run for several parts, each as if alone (the
 * same label in two parts, .align from the part's own start), |n, the
 * nasm-only constructs refused, and what is not refused. The corpus of
 * tests/gas/corpus.tsv goes through the whole pipeline in tests/qemu/gas_tests.sh.
 */
#define _GNU_SOURCE
#include "gas_batch.h"
#include "gas_source.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *hex(const uint8_t *b, size_t n)
{
    char *s = calloc(2 * n + 1, 1);
    for (size_t i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", b[i]);
    return s;
}

/* Assembles jobs in a fresh folder; returns the count of failed benchmarks. */
static int assemble(struct asm_job *jobs, size_t n)
{
    char dir[] = "/tmp/nb-gas-test.XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    int failed = gas_assemble(jobs, n, dir);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        nb_test_note("cannot remove %s", dir);
    return failed;
}

NB_TEST(gas_parts_are_assembled_as_if_alone)
{
    /* The same label in -asm_init and -asm of one benchmark and in another benchmark;
     * .align 8 pads from the part's own start (the second part starts mid-section otherwise). */
    struct asm_job jobs[] = {
        { 0, "a", NULL, PART_INIT, "l: nop", NULL, 0 },
        { 0, "a", NULL, PART_MAIN, "l: jmp l", NULL, 0 },
        { 1, "b", NULL, PART_MAIN, "nop; .align 8; l: dec ecx; jnz l; |3", NULL, 0 },
        { 2, "c", NULL, PART_MAIN, "x = 5; mov eax, x; 2*|mov rax, 1|", NULL, 0 },
    };
    REQUIRE(CHECK_EQ_INT(assemble(jobs, 4), 0));
    const char *want[] = { "90", "ebfe", "90" "0f1f8000000000" "ffc9" "75fc" "0f1f00",
                           "b805000000" "48c7c001000000" "48c7c001000000" };
    for (int i = 0; i < 4; i++) {
        char *got = hex(jobs[i].bytes, jobs[i].len);
        CHECK_EQ_STR(got, want[i]);
        free(got);
        free(jobs[i].bytes);
    }
}

NB_TEST(gas_refuses_nasm_constructs_naming_asm_syntax)
{
    static const struct {
        const char *stmt, *what;
    } nasm[] = {
        { "%define X rax", "nasm's %define" },
        { "inc qword [r14]", "nasm's qword [x]" },
        { "mov eax, dword[rax]", "nasm's dword [x]" },
        { "dq 0xF0B513B1C2813F04", "nasm's dq" },
        { "times 3 nop", "nasm's times" },
        { "lea rax, [rel x]", "nasm's [rel x]" },
        { "x equ 5", "nasm's NAME equ VALUE" },
        { "l: bits 64", "nasm's bits" },
    };
    for (size_t i = 0; i < sizeof(nasm) / sizeof(nasm[0]); i++) {
        const char *got = gas_nasm_construct(nasm[i].stmt, strlen(nasm[i].stmt));
        if (!CHECK(got != NULL && strncmp(got, nasm[i].what, strlen(nasm[i].what)) == 0))
            nb_test_note("'%s': %s", nasm[i].stmt, got ? got : "(accepted)");
    }
    static const char *const gas[] = {
        "inc QWORD PTR [r14]", "movzx eax, byte ptr [rax]", "lea rax, [rip + rel_x]",
        ".byte 1, 2", "mov rax, OFFSET 1f", "fadd st(0), st(1)", "vaddps zmm0{k1}, zmm1, [rax]{1to16}",
        "mov al, 'q'", "dword_label: nop",
    };
    for (size_t i = 0; i < sizeof(gas) / sizeof(gas[0]); i++) {
        const char *got = gas_nasm_construct(gas[i], strlen(gas[i]));
        if (!CHECK(got == NULL))
            nb_test_note("'%s' refused: %s", gas[i], got);
    }
    /* The message names the statement and -asm_syntax nasm. */
    char *out = NULL, err[400] = "";
    size_t len = 0;
    CHECK_EQ_INT(gas_source("nop; times 3 nop", "p0", "nb0.3", &out, &len, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "statement 2 'times 3 nop': nasm's times: -asm* is GNU as's .intel_syntax "
                      "noprefix, as in nanoBench; rewrite it, or give -asm_syntax nasm");
    free(out);
}

NB_TEST(gas_source_renames_the_parts_names_only)
{
    /* Labels and symbols get the part's prefix; the mnemonic `loop` and a macro argument do not. */
    char *out = NULL, err[400] = "";
    size_t len = 0;
    REQUIRE(CHECK_EQ_INT(gas_source("loop: dec ecx; loop loop; .set n, 2; add eax, n # c", "p7",
                                    "nb7.3", &out, &len, err, sizeof(err)), 0));
    CHECK_EQ_STR(out, "# 1 \"nb7.3\"\n__nb_p7_loop: dec ecx\n"
                      "# 2 \"nb7.3\"\nloop __nb_p7_loop\n"
                      "# 3 \"nb7.3\"\n.set __nb_p7_n, 2\n"
                      "# 4 \"nb7.3\"\nadd eax, __nb_p7_n\n");
    free(out);
}

NB_TEST(gas_errors_fail_only_their_benchmark)
{
    struct asm_job jobs[] = {
        { 0, "good", NULL, PART_MAIN, "add rax, rbx", NULL, 0 },
        { 1, "bad", NULL, PART_MAIN, "nop; addx rax, rbx", NULL, 0 },
        { 2, "undefined", NULL, PART_MAIN, "jmp nowhere", NULL, 0 },
    };
    CHECK_EQ_INT(assemble(jobs, 3), 2);
    REQUIRE(CHECK(jobs[0].bytes != NULL));
    char *got = hex(jobs[0].bytes, jobs[0].len);
    CHECK_EQ_STR(got, "4801d8");
    free(got);
    CHECK(jobs[1].bytes == NULL);
    CHECK(jobs[2].bytes == NULL);
    for (int i = 0; i < 3; i++)
        free(jobs[i].bytes);
}

NB_TEST(gas_source_refuses_what_would_reach_the_next_part)
{
    static const struct {
        const char *text, *err;
    } bad[] = {
        { "nop; .rept 3; nop", "statement 2 '.rept 3': not closed by .endr in this part (each -asm* "
                               "option is assembled alone, as in nanoBench)" },
        { ".ifdef x; nop", "statement 1 '.ifdef x': not closed by .endif in this part (each -asm* "
                           "option is assembled alone, as in nanoBench)" },
        { ".macro m; nop", "statement 1 '.macro m': not closed by .endm in this part (each -asm* "
                           "option is assembled alone, as in nanoBench)" },
        { "nop; .end", "statement 2 '.end': .end would end the assembly of the whole suite; leave it out" },
        { ".pushsection .data", "statement 1 '.pushsection .data': the harness places the code, so "
                                ".pushsection cannot be used; put data inline (.byte/.quad, jumped "
                                "over) or store it through R14 in -asm_init" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = NULL, err[400] = "";
        size_t len = 0;
        CHECK_EQ_INT(gas_source(bad[i].text, "p0", "nb0.3", &out, &len, err, sizeof(err)), -1);
        CHECK_EQ_STR(err, bad[i].err);
        free(out);
    }
    char *out = NULL, err[400] = "";
    size_t len = 0;
    CHECK_EQ_INT(gas_source(".rept 2; .irp r, rax, rbx; inc \\r; .endr; .endr; .if 1; nop; .endif",
                            "p0", "nb0.3", &out, &len, err, sizeof(err)), 0);
    free(out);
}
