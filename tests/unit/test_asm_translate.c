/*
 * test_asm_translate.c — nanoBench's assembler text as users paste it
 * (tools/compile/asm_translate.h), checked byte for byte: the translation assembled
 * with nasm against plain nasm source of the same code; and the suite's one
 * nasm run (tools/compile/nasm_batch.h), where one benchmark's macros, labels and
 * modes must not reach another.
 */
#define _GNU_SOURCE
#include "asm_translate.h"
#include "host_nasm.h"
#include "nasm_batch.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The bytes of nanoBench text as the suite compiler assembles it (scope "t"). */
static uint8_t *nb_bytes(const char *text, size_t *len)
{
    char *out = NULL, err[256] = "";
    size_t out_len = 0;
    if (asm_translate(text, "t", &out, &out_len, err, sizeof(err)) != 0) {
        nb_test_note("asm_translate(\"%s\"): %s", text, err);
        free(out);
        return NULL;
    }
    uint8_t *bytes = host_nasm(len, "default rel\n%%line 0+1 t\n%s", out);
    free(out);
    return bytes;
}

/* nanoBench text and plain nasm source must give the same bytes. */
static void check_same(const char *text, const char *nasm_source)
{
    size_t a_len = 0, b_len = 0;
    uint8_t *a = nb_bytes(text, &a_len);
    uint8_t *b = host_nasm(&b_len, "default rel\n%s", nasm_source);
    if (!(CHECK(a != NULL) && CHECK(b != NULL) && CHECK_EQ_INT(a_len, b_len) &&
          CHECK_EQ_BYTES(a, b, a_len)))
        nb_test_note("text: %s", text);
    free(a);
    free(b);
}

/* nanoBench text must give exactly these bytes. */
static void check_bytes(const char *text, const uint8_t *want, size_t want_len)
{
    size_t len = 0;
    uint8_t *got = nb_bytes(text, &len);
    if (!(CHECK(got != NULL) && CHECK_EQ_INT(len, want_len) && CHECK_EQ_BYTES(got, want, want_len)))
        nb_test_note("text: %s", text);
    free(got);
}

/* The error asm_translate reports for text ("" when it accepts it). */
static const char *translate_error(const char *text)
{
    static char err[256];
    char *out = NULL;
    size_t len = 0;
    err[0] = '\0';
    if (asm_translate(text, "t", &out, &len, err, sizeof(err)) == 0)
        err[0] = '\0';
    free(out);
    return err;
}

/* nasm's messages for the translation of text (file name "t", as the batch names parts). */
static char *nasm_messages(const char *text)
{
    char *out = NULL, err[256];
    size_t len = 0;
    if (asm_translate(text, "t", &out, &len, err, sizeof(err)) != 0) {
        free(out);
        return strdup(err);
    }
    char path[] = "/tmp/nb_asm_msg.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "bits 64\ndefault rel\n%%line 0+1 t\n%s", out);
    fclose(f);
    free(out);
    /*
     * Its own output file: nasm deletes the output after an error, and as
     * root it would delete /dev/null itself.
     */
    char cmd[192];
    snprintf(cmd, sizeof(cmd), "nasm -f bin -o %s.bin %s 2>&1", path, path);
    FILE *p = popen(cmd, "r");
    char *msg = calloc(1, 4096);
    size_t n = fread(msg, 1, 4095, p);
    msg[n] = '\0';
    pclose(p);
    unlink(path);
    char bin[sizeof(path) + 4];
    snprintf(bin, sizeof(bin), "%s.bin", path);
    unlink(bin);
    return msg;
}

#define CONTAINS(haystack, needle)                                                           \
    (strstr((haystack), (needle)) ? true                                                     \
                                  : (nb_test_note("'%s' lacks '%s'", (haystack), (needle)), false))

NB_TEST(asm_nop_extension_and_gnu_ptr_still_work)
{
    static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
    check_bytes("|5", nop5, sizeof(nop5));
    check_same("mov rax, QWORD PTR [R14]; movaps xmm0, XMMWORD PTR [rsi]",
               "mov rax, qword [r14]\nmovaps xmm0, oword [rsi]");
    CHECK(CONTAINS(translate_error("|16"), "the NOP extension is |n with 1 <= n <= 15"));
}

/* ---- 1. gas comments ---- */

NB_TEST(asm_hash_comment_runs_to_the_end_of_the_line)
{
    check_same("add rax, rbx # add them", "add rax, rbx");
    check_same("# only a comment\nnop", "nop");
    /* As in gas, a ';' after '#' is part of the comment. */
    check_same("add rax, rbx # one; add rbx, rax\nadd rcx, rdx", "add rax, rbx\nadd rcx, rdx");
    check_same("mov al, '#'; mov bl, \"#\" # but this is one", "mov al, '#'\nmov bl, '#'");
    char s[64];
    asm_statement("nop # x; y\nadd rax, rbx # z", 2, s, sizeof(s));
    CHECK_EQ_STR(s, "add rax, rbx");
}

/* ---- 2. gas data directives ---- */

NB_TEST(asm_gas_data_directives)
{
    static const uint8_t magic[] = { 0x04, 0x3f, 0x81, 0xc2, 0xb1, 0x13, 0xb5, 0xf0 };
    check_bytes(".quad 0xF0B513B1C2813F04", magic, sizeof(magic));
    static const uint8_t bytes[] = { 0x01, 0x02, 0xff, 0x08, 0x0a };
    check_bytes(".byte 1, 0x2, -1, 010, 10", bytes, sizeof(bytes)); /* 010: octal, as in gas */
    check_same(".word 0x1234; .short 5; .long 0xdeadbeef; .int -2; .quad 1, 0x2",
               "dw 0x1234\ndw 5\ndd 0xdeadbeef\ndd -2\ndq 1, 2");
    check_same(".QUAD 7; nop", "dq 7\nnop");
}

/* ---- 3. RIP-relative operands ---- */

NB_TEST(asm_rip_displacement_counts_from_the_end_of_the_instruction)
{
    static const uint8_t lea0[] = { 0x48, 0x8d, 0x05, 0x00, 0x00, 0x00, 0x00 };
    check_bytes("lea rax,[rip+0]", lea0, sizeof(lea0));
    check_bytes("lea rax, [rip]", lea0, sizeof(lea0));
    static const uint8_t lea16[] = { 0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00, 0x90 };
    check_bytes("LEA RAX, [RIP + 16]; nop", lea16, sizeof(lea16));
    static const uint8_t load[] = { 0x48, 0x8b, 0x05, 0xf8, 0xff, 0xff, 0xff };
    check_bytes("mov rax, QWORD PTR [Rip - 8]", load, sizeof(load));
    /* An immediate after the memory operand: still N, not N minus its size. */
    static const uint8_t cmp[] = { 0x80, 0x3d, 0x01, 0x00, 0x00, 0x00, 0x05 };
    check_bytes("cmp byte ptr [rip+0x1], 5", cmp, sizeof(cmp));
    /* A label (gas: the label's address relative to the next instruction). */
    static const uint8_t to_label[] = { 0x48, 0x8d, 0x05, 0x01, 0x00, 0x00, 0x00, 0x90, 0x90 };
    check_bytes("lea rax, [rip + l]; nop; l: nop", to_label, sizeof(to_label));
    check_bytes("lea rax, [rip + 1f]; nop; 1: nop", to_label, sizeof(to_label));
    CHECK(CONTAINS(translate_error("lea rax, [rbx + rip]"), "[rip + N]"));
}

/* Statements that became several nasm lines keep the statement numbers of the rest. */
NB_TEST(asm_statement_numbers_survive_multi_line_statements)
{
    char *msg = nasm_messages("lea rax, [rip+4]; 3*|nop; nop|; addx rax, rbx");
    CHECK_EQ_STR(msg, "t:3: error: parser: instruction expected\n");
    free(msg);
}

/* ---- 4. gas local numeric labels ---- */

NB_TEST(asm_numeric_labels_refer_to_the_nearest_definition)
{
    check_same("mov rcx, 3; 1: dec rcx; jnz 1b", "mov rcx, 3\na: dec rcx\njnz a");
    check_same("jmp 1f; nop; 1: nop; 1: jmp 1b; jmp 1f; 1: nop; 2: jmp 2b",
               "jmp a\nnop\na: nop\nb: jmp b\njmp c\nc: nop\nd: jmp d");
    check_same("2: .quad 2b", "a: dq a");
    check_same("mov eax, 101b", "mov eax, 101b"); /* nasm's binary number: no label 101 */
    CHECK(CONTAINS(translate_error("jmp 1f; 1: nop; jmp 1f"), "statement 3 'jmp 1f'"));
}

/* ---- 5. nanoBench's repeat syntax ---- */

NB_TEST(asm_repeat_syntax)
{
    check_same("4*|ADD RAX, RBX|", "add rax, rbx\nadd rax, rbx\nadd rax, rbx\nadd rax, rbx");
    check_same("nop; 2*|add rax, rbx; add rbx, rax| ; int3",
               "nop\nadd rax, rbx\nadd rbx, rax\nadd rax, rbx\nadd rbx, rax\nint3");
    check_same("3*||5|", "db 0x0f, 0x1f, 0x44, 0x00, 0x00\ndb 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
                         "db 0x0f, 0x1f, 0x44, 0x00, 0x00");
    check_same("2*|mov eax, 1|2|", "mov eax, 3\nmov eax, 3"); /* '|' inside is nasm's OR */
    check_same("2*|1: dec rcx; jnz 1b|", "a: dec rcx\njnz a\nb: dec rcx\njnz b");
    check_same("0*|nop|; int3", "int3");
    char s[64];
    asm_statement("nop; 2*|a; b|; c", 2, s, sizeof(s));
    CHECK_EQ_STR(s, "2*|a; b|");
    asm_statement("nop; 2*|a; b|; c", 3, s, sizeof(s));
    CHECK_EQ_STR(s, "c");
    CHECK(CONTAINS(translate_error("nop; 2*|nop"), "statement 2 '2*|nop'"));
}

/* ---- 6. sections belong to the harness ---- */

NB_TEST(asm_section_directives_are_refused)
{
    static const char *const texts[] = { "nop; section .data", "SEGMENT .text",
                                         "[section .bss]", ".section .data", ".data",
                                         "absolute 0" };
    for (size_t i = 0; i < NB_ARRAY_SIZE(texts); i++) {
        const char *err = translate_error(texts[i]);
        CHECK(CONTAINS(err, "statement"));
        CHECK(CONTAINS(err, "the harness places the code"));
        CHECK(CONTAINS(err, "db"));
    }
    CHECK(CONTAINS(translate_error("nop; section .data"), "statement 2 'section .data'"));
}

/* ---- 7. one nasm run, benchmarks that cannot see each other ---- */

struct batch {
    char dir[32];
    struct asm_job jobs[8];
    size_t n;
};

static void job(struct batch *b, size_t bench, enum code_part part, const char *text)
{
    b->jobs[b->n++] = (struct asm_job){ bench, "b", NULL, part, text, NULL, 0 };
}

/*
 * Assembles the jobs; fails unless the one nasm run of the whole suite
 * succeeded (a fallback run per benchmark would leave a source without
 * benchmark 0 in the work folder).
 */
static int assemble(struct batch *b)
{
    strcpy(b->dir, "/tmp/nb_batch.XXXXXX");
    if (!mkdtemp(b->dir))
        return -1;
    int failed = nasm_assemble(b->jobs, b->n, b->dir);
    char path[64], first[32], last[32];
    snprintf(path, sizeof(path), "%s/suite.asm", b->dir);
    snprintf(first, sizeof(first), "__nb_start_0:");
    snprintf(last, sizeof(last), "__nb_start_%zu:", b->n - 1);
    FILE *f = fopen(path, "r");
    char *src = calloc(1, 1 << 16);
    if (f) {
        size_t got = fread(src, 1, (1 << 16) - 1, f);
        src[got] = '\0';
        fclose(f);
    }
    if (!CHECK(strstr(src, first) && strstr(src, last)))
        nb_test_note("not assembled in one nasm run:\n%s", src);
    free(src);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", b->dir);
    if (system(cmd) != 0)
        return -1;
    return failed;
}

static void check_job(const struct asm_job *j, const uint8_t *want, size_t want_len)
{
    if (!(CHECK(j->bytes != NULL) && CHECK_EQ_INT(j->len, want_len) &&
          CHECK_EQ_BYTES(j->bytes, want, want_len)))
        nb_test_note("job text: %s", j->text);
}

NB_TEST(asm_batch_macros_do_not_leak_into_the_next_benchmark)
{
    struct batch b = { .n = 0 };
    job(&b, 0, PART_MAIN, "%define RBX RCX; ADD RAX, RBX");
    job(&b, 1, PART_MAIN, "ADD RAX, RBX");
    job(&b, 2, PART_MAIN, "%macro nop 0; int3; %endmacro; nop; %assign X 1; %idefine Y 2");
    job(&b, 3, PART_MAIN, "nop; %ifdef X; int3; %endif; %ifdef y; int3; %endif");
    job(&b, 4, PART_MAIN, "bits 16; add eax, ebx");
    job(&b, 5, PART_MAIN, "add eax, ebx");
    REQUIRE(assemble(&b) == 0);
    static const uint8_t add_rcx[] = { 0x48, 0x01, 0xc8 }, add_rbx[] = { 0x48, 0x01, 0xd8 };
    static const uint8_t int3[] = { 0xcc }, nop[] = { 0x90 };
    static const uint8_t add16[] = { 0x66, 0x01, 0xd8 }, add32[] = { 0x01, 0xd8 };
    check_job(&b.jobs[0], add_rcx, sizeof(add_rcx));
    check_job(&b.jobs[1], add_rbx, sizeof(add_rbx));
    check_job(&b.jobs[2], int3, sizeof(int3));
    check_job(&b.jobs[3], nop, sizeof(nop));
    check_job(&b.jobs[4], add16, sizeof(add16));
    check_job(&b.jobs[5], add32, sizeof(add32));
}

NB_TEST(asm_batch_labels_belong_to_their_part)
{
    struct batch b = { .n = 0 };
    job(&b, 0, PART_INIT, "l: nop; jmp l");
    job(&b, 0, PART_MAIN, "l: jmp l; N equ 3; mov eax, N");
    job(&b, 1, PART_MAIN, "jmp l; l: nop; 1: jmp 1b; N equ 4; mov eax, N");
    REQUIRE(assemble(&b) == 0);
    static const uint8_t init[] = { 0x90, 0xeb, 0xfd };
    static const uint8_t main0[] = { 0xeb, 0xfe, 0xb8, 0x03, 0x00, 0x00, 0x00 };
    static const uint8_t main1[] = { 0xeb, 0x00, 0x90, 0xeb, 0xfe, 0xb8, 0x04, 0x00, 0x00, 0x00 };
    check_job(&b.jobs[0], init, sizeof(init));
    check_job(&b.jobs[1], main0, sizeof(main0));
    check_job(&b.jobs[2], main1, sizeof(main1));
}
