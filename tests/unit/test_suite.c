/*
 * test_suite.c — suite file parsing: comments, quotes, continuations,
 * defaults and malformed lines.
 */
#include "nb_platform.h" /* suite.h returns NB_* codes but does not include it */
#include "nb_test.h"
#include "suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nb_arena arena;
static void *arena_memory;

/* Parses text into *s with a fresh 1 MiB arena (released at the next call). */
static int parse(const char *text, struct suite *s)
{
    free(arena_memory);
    arena_memory = malloc(1 << 20);
    nb_arena_init(&arena, arena_memory, 1 << 20);
    return suite_parse(text, strlen(text), &arena, s);
}

/* argv[first..argc-1] joined with '|' so a whole line is one comparison. */
static const char *join(const struct suite_entry *e, int first)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = 0;
    for (int i = first; i < e->argc; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i > first ? "|" : "", e->argv[i]);
    return buf;
}

static const char *words(const struct suite_entry *e) { return join(e, 0); }
static const char *own_words(const struct suite_entry *e) { return join(e, e->argc - e->own_argc); }

NB_TEST(suite_simple_line_and_comments)
{
    struct suite s;
    REQUIRE(parse("# a comment\n"
                  "\n"
                  "   # indented comment\n"
                  "add: -code add.bin -unroll_count 10   # trailing comment\n"
                  "sub:-code sub.bin#no space before it\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 2);
    const struct suite_entry *e = &s.entries[0];
    CHECK_EQ_STR(e->name, "add");
    CHECK_EQ_INT(e->line, 4);
    CHECK_EQ_INT(e->argc, 4);
    CHECK_EQ_INT(e->own_argc, 4);
    CHECK_EQ_STR(words(e), "-code|add.bin|-unroll_count|10");
    CHECK(e->error == NULL && !e->is_defaults);
    CHECK_EQ_INT(e->defaults_line, 0);
    CHECK(e->argv[e->argc] == NULL);
    CHECK_EQ_STR(s.entries[1].name, "sub");
    CHECK_EQ_INT(s.entries[1].line, 5);
    CHECK_EQ_STR(words(&s.entries[1]), "-code|sub.bin");
}

/* tools/nanobench writes "#line N" so the image's errors name the user's line. */
NB_TEST(suite_line_directive_sets_the_next_line_number)
{
    struct suite s;
    REQUIRE(parse("# compiled\n"
                  "defaults: -finish shutdown\n"
                  "#line 12\n"
                  "a: -code a.bin\n"
                  "b: -code b.bin\n"
                  "#line 40\n"
                  "c: -code c.bin \\\n"
                  "   -unroll_count 2\n"
                  "#line nonsense\n"
                  "d: -code d.bin\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 5);
    CHECK_EQ_INT(s.entries[0].line, 2);
    CHECK_EQ_INT(s.entries[1].line, 12);
    CHECK_EQ_INT(s.entries[2].line, 13);
    CHECK_EQ_INT(s.entries[3].line, 40);
    CHECK_EQ_INT(s.entries[4].line, 43); /* a bad directive is only a comment */
}

NB_TEST(suite_quotes_and_escapes)
{
    struct suite s;
    REQUIRE(parse("a: -asm \"ADD RAX, RBX; ADD RBX, RAX\" -n_measurements 5\n"
                  "b: -asm \"mov rax, 1 # not a comment\" # a comment\n"
                  "c: \"say \\\"hi\\\" \\\\ ok\"\n"
                  "d: ab\"c d\"e \"\" x\\y\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 4);
    CHECK_EQ_STR(words(&s.entries[0]), "-asm|ADD RAX, RBX; ADD RBX, RAX|-n_measurements|5");
    CHECK_EQ_STR(words(&s.entries[1]), "-asm|mov rax, 1 # not a comment");
    CHECK_EQ_STR(words(&s.entries[2]), "say \"hi\" \\ ok");
    /* Quotes join into the surrounding word; "" is an empty word; \ outside quotes is literal. */
    CHECK_EQ_INT(s.entries[3].argc, 3);
    CHECK_EQ_STR(words(&s.entries[3]), "abc de||x\\y");
}

/* Single quotes as in a shell: everything up to the next ' is literal. */
NB_TEST(suite_single_quotes_are_literal)
{
    struct suite s;
    REQUIRE(parse("a: -expect 'a \"b\"' x\n"
                  "b: 'no \\ escape # or comment' \"it's\"\n"
                  "c: ab'c d'\"e f\"g '' 'x'\n"
                  "d: -asm 'nop' # a comment\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 4);
    CHECK_EQ_STR(words(&s.entries[0]), "-expect|a \"b\"|x");
    CHECK_EQ_STR(words(&s.entries[1]), "no \\ escape # or comment|it's");
    CHECK_EQ_INT(s.entries[2].argc, 3);
    CHECK_EQ_STR(words(&s.entries[2]), "abc de fg||x");
    CHECK_EQ_STR(words(&s.entries[3]), "-asm|nop");
    for (size_t i = 0; i < s.count; i++)
        CHECK(s.entries[i].error == NULL);
    REQUIRE(parse("bad: -asm 'nop\n", &s) == NB_OK);
    REQUIRE(s.count == 1);
    CHECK_EQ_STR(s.entries[0].error, "unterminated single quote");
}

/* Editors on Windows start a UTF-8 file with a byte order mark. */
NB_TEST(suite_utf8_bom_is_skipped)
{
    struct suite s;
    REQUIRE(parse("\xEF\xBB\xBF" "add: -x 1\nsub: -y\n", &s) == NB_OK);
    REQUIRE(s.count == 2);
    CHECK_EQ_STR(s.entries[0].name, "add");
    CHECK(s.entries[0].error == NULL);
    CHECK_EQ_INT(s.entries[0].line, 1);
    CHECK_EQ_STR(words(&s.entries[0]), "-x|1");
    REQUIRE(parse("\xEF\xBB\xBF" "# comment first\nadd: -x\n", &s) == NB_OK);
    REQUIRE(s.count == 1);
    CHECK_EQ_INT(s.entries[0].line, 2);
    /* Only at the very start: elsewhere the bytes are part of the text. */
    REQUIRE(parse("a: -x\n\xEF\xBB\xBF" "b: -y\n", &s) == NB_OK);
    REQUIRE(s.count == 2);
    CHECK(s.entries[1].error != NULL);
}

NB_TEST(suite_continuation_lines)
{
    struct suite s;
    REQUIRE(parse("load: -code_init i.bin \\\n"
                  "      -code m.bin \\   \n"
                  "      -unroll_count 3\n"
                  "next: -df\n"
                  "\n"
                  "last: -code \"x y\" \\\n"
                  "  # the continuation can end in a comment\n"
                  "after: -v\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 4);
    CHECK_EQ_STR(s.entries[0].name, "load");
    CHECK_EQ_INT(s.entries[0].line, 1);
    CHECK_EQ_STR(words(&s.entries[0]), "-code_init|i.bin|-code|m.bin|-unroll_count|3");
    CHECK_EQ_STR(s.entries[1].name, "next");
    CHECK_EQ_INT(s.entries[1].line, 4);
    CHECK_EQ_STR(s.entries[2].name, "last");
    CHECK_EQ_INT(s.entries[2].line, 6);
    CHECK_EQ_STR(words(&s.entries[2]), "-code|x y");
    CHECK_EQ_STR(s.entries[3].name, "after");
    CHECK_EQ_INT(s.entries[3].line, 8);
}

NB_TEST(suite_defaults_apply_to_later_lines_and_are_replaced)
{
    struct suite s;
    REQUIRE(parse("first: -a\n"
                  "defaults: -unroll_count 100 -finish reboot\n"
                  "second: -unroll_count 5\n"
                  "defaults: -n_measurements 2\n"
                  "third: -b\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 5);
    const struct suite_entry *e = s.entries;
    CHECK_EQ_STR(words(&e[0]), "-a");
    CHECK_EQ_INT(e[0].defaults_line, 0);

    CHECK(e[1].is_defaults);
    CHECK_EQ_STR(e[1].name, "defaults");
    CHECK_EQ_INT(e[1].line, 2);
    CHECK_EQ_STR(words(&e[1]), "-unroll_count|100|-finish|reboot");

    CHECK(!e[2].is_defaults);
    CHECK_EQ_INT(e[2].argc, 6);
    CHECK_EQ_INT(e[2].own_argc, 2);
    CHECK_EQ_STR(words(&e[2]), "-unroll_count|100|-finish|reboot|-unroll_count|5");
    CHECK_EQ_STR(own_words(&e[2]), "-unroll_count|5");
    CHECK_EQ_INT(e[2].defaults_line, 2);

    /* A later defaults line replaces the earlier one instead of adding to it. */
    CHECK(e[3].is_defaults);
    CHECK_EQ_STR(words(&e[3]), "-n_measurements|2");
    CHECK_EQ_STR(words(&e[4]), "-n_measurements|2|-b");
    CHECK_EQ_STR(own_words(&e[4]), "-b");
    CHECK_EQ_INT(e[4].defaults_line, 4);
}

NB_TEST(suite_malformed_lines_become_error_entries)
{
    struct suite s;
    REQUIRE(parse("no colon here\n"
                  "bad!: -x\n"
                  "q: -asm \"unterminated\n"
                  "name with space: -x\n"
                  "ok: -y\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 5);
    const struct suite_entry *e = s.entries;
    CHECK_EQ_STR(e[0].name, "no");
    CHECK_EQ_INT(e[0].line, 1);
    CHECK_EQ_STR(e[0].error, "expected 'name: options' (a benchmark name followed by a colon)");
    CHECK_EQ_STR(e[1].name, "bad!");
    CHECK_EQ_INT(e[1].line, 2);
    CHECK_EQ_STR(e[1].error, "invalid benchmark name (use letters, digits, '_', '.', '-'; at most 64)");
    CHECK_EQ_STR(e[2].name, "q");
    CHECK_EQ_INT(e[2].line, 3);
    CHECK_EQ_STR(e[2].error, "unterminated double quote");
    CHECK_EQ_STR(e[3].name, "name");
    CHECK_EQ_STR(e[3].error, "expected 'name: options' (a benchmark name followed by a colon)");
    /* The parse went on. */
    CHECK_EQ_STR(e[4].name, "ok");
    CHECK_EQ_INT(e[4].line, 5);
    CHECK(e[4].error == NULL);
    CHECK_EQ_STR(words(&e[4]), "-y");
}

NB_TEST(suite_crlf_input)
{
    struct suite s;
    REQUIRE(parse("# windows\r\n"
                  "a: -x 1\r\n"
                  "b: -asm \"nop\" \\\r\n"
                  "   -z\r\n"
                  "\r\n"
                  "c:\r\n",
                  &s) == NB_OK);
    REQUIRE(s.count == 3);
    CHECK_EQ_STR(words(&s.entries[0]), "-x|1");
    CHECK_EQ_INT(s.entries[0].line, 2);
    CHECK_EQ_STR(words(&s.entries[1]), "-asm|nop|-z");
    CHECK_EQ_INT(s.entries[1].line, 3);
    CHECK_EQ_STR(s.entries[2].name, "c");
    CHECK_EQ_INT(s.entries[2].argc, 0);
    CHECK_EQ_INT(s.entries[2].line, 6);
    for (size_t i = 0; i < s.count; i++)
        CHECK(s.entries[i].error == NULL);
}

NB_TEST(suite_edge_inputs)
{
    struct suite s;
    REQUIRE(parse("", &s) == NB_OK);
    CHECK_EQ_INT(s.count, 0);
    REQUIRE(parse("# only\n\n   \n", &s) == NB_OK);
    CHECK_EQ_INT(s.count, 0);
    REQUIRE(parse("a: -x", &s) == NB_OK); /* no final newline */
    REQUIRE(s.count == 1);
    CHECK_EQ_STR(words(&s.entries[0]), "-x");
    REQUIRE(parse("  indented:\t-x\t2  \n", &s) == NB_OK);
    REQUIRE(s.count == 1);
    CHECK_EQ_STR(s.entries[0].name, "indented");
    CHECK_EQ_STR(words(&s.entries[0]), "-x|2");

    /* suite_parse copies the text: it need not be NUL-terminated. */
    const char text[] = "a: -x\nb: -y\nIGNORED";
    free(arena_memory);
    arena_memory = malloc(1 << 16);
    nb_arena_init(&arena, arena_memory, 1 << 16);
    REQUIRE(suite_parse(text, 11, &arena, &s) == NB_OK);
    REQUIRE(s.count == 2);
    CHECK_EQ_STR(words(&s.entries[1]), "-y");
}

NB_TEST(suite_arena_too_small)
{
    char small[64];
    struct nb_arena a;
    struct suite s;
    nb_arena_init(&a, small, sizeof(small));
    const char *text = "a: -x\nb: -y\nc: -z\n";
    CHECK_EQ_INT(suite_parse(text, strlen(text), &a, &s), NB_ENOMEM);
}

NB_TEST(suite_name_rules)
{
    char longest[66];
    memset(longest, 'n', 64);
    longest[64] = 0;
    CHECK(suite_name_valid(longest));
    longest[64] = 'n';
    longest[65] = 0;
    CHECK(!suite_name_valid(longest));
    CHECK(suite_name_valid("a"));
    CHECK(suite_name_valid("Add_64.v-2"));
    CHECK(!suite_name_valid(""));
    CHECK(!suite_name_valid("a b"));
    CHECK(!suite_name_valid("a:b"));
    CHECK(!suite_name_valid("a/b"));
    CHECK(!suite_name_valid("ä"));
}

NB_TEST(suite_comment_ending_in_backslash_does_not_continue)
{
    /* A shell-style comment never swallows the next line, even with a trailing backslash. */
    const char *text = "# disabled: -asm \"nop\" \\\n"
                       "kept: -unroll_count 3\n";
    struct nb_arena arena;
    static uint8_t memory[65536];
    nb_arena_init(&arena, memory, sizeof(memory));
    struct suite suite;
    REQUIRE(suite_parse(text, strlen(text), &arena, &suite) == NB_OK);
    REQUIRE(suite.count == 1);
    CHECK_EQ_STR(suite.entries[0].name, "kept");
    CHECK_EQ_INT(suite.entries[0].line, 2);
    CHECK_EQ_INT(suite.entries[0].argc, 2);
}
