/*
 * test_mica_parts.c — pieces of tools/mica/ the worked examples do not pin
 * down: the Fenwick-tree stack distance against a naive LRU stack on random
 * references, and the itypes spec-file parser (MICA's grammar, file:line
 * errors, custom groups counted).
 */
#include "nb_test.h"

#include "mica_itypes.h"
#include "mica_stackdist.h"

#include <stdlib.h>
#include <string.h>

/* Naive LRU stack: depth of b (distinct blocks since), then b to the top. */
static int64_t naive(uint64_t *stack, size_t *n, uint64_t b)
{
    for (size_t i = 0; i < *n; i++) {
        if (stack[*n - 1 - i] != b)
            continue;
        memmove(&stack[*n - 1 - i], &stack[*n - i], i * sizeof(*stack));
        stack[*n - 1] = b;
        return (int64_t)i;
    }
    stack[(*n)++] = b;
    return -1;
}

NB_TEST(mica_stackdist_matches_naive_lru)
{
    /* Enough references to renumber the times several times (capacity 1024). */
    struct mica_stackdist *s = mica_stackdist_new(6, true);
    uint64_t *stack = calloc(4096, sizeof(*stack));
    size_t n = 0;
    srand(12345);
    int bad = 0;
    for (unsigned i = 0; i < 200000 && bad < 5; i++) {
        /* Mostly a small hot set, sometimes a wide one, sometimes a repeat. */
        uint64_t b = (rand() % 4 == 0) ? (uint64_t)(rand() % 3000) : (uint64_t)(rand() % 40);
        int64_t want = naive(stack, &n, b), got = mica_stackdist_reference(s, b);
        if (!CHECK_EQ_INT(got, want)) {
            nb_test_note("reference %u to block %llu", i, (unsigned long long)b);
            bad++;
        }
    }
    free(stack);
    mica_stackdist_free(s);
}

static const char *parse_error(const char *text)
{
    static char err[256];
    struct mica_itypes_spec *spec = NULL;
    if (mica_itypes_spec_parse(text, strlen(text), "my.spec", &spec, err, sizeof(err)) == 0) {
        mica_itypes_spec_free(spec);
        return "(accepted)";
    }
    return err;
}

NB_TEST(mica_itypes_spec_errors)
{
    CHECK_EQ_STR(parse_error("0, 0, SPECIAL, mem_read\n1, 0, CATEGORY, NOPE\n"),
                 "my.spec:2: unknown XED category `NOPE`");
    CHECK_EQ_STR(parse_error("0, 0, SPECIAL, mem_read\n2, 0, CATEGORY, NOP\n"),
                 "my.spec:2: group 2 after group 0: groups must start at 0 and go up one at a time");
    CHECK_EQ_STR(parse_error("1, 0, CATEGORY, NOP\n"),
                 "my.spec:1: group 1 after group -1: groups must start at 0 and go up one at a time");
    CHECK_EQ_STR(parse_error("# c\n\n0, 0, THING, NOP\n"),
                 "my.spec:3: type `THING` is not CATEGORY, OPCODE or SPECIAL");
    CHECK_EQ_STR(parse_error("0, 0, SPECIAL, mem_both\n"),
                 "my.spec:1: unknown SPECIAL `mem_both` (mem_read, mem_write)");
    CHECK_EQ_STR(parse_error("0, 0, CATEGORY\n"),
                 "my.spec:1: expected `<group>, <index>, CATEGORY|OPCODE|SPECIAL, <name>`");
    CHECK_EQ_STR(parse_error("0, x, CATEGORY, NOP\n"), "my.spec:1: group and index must be numbers");
    CHECK_EQ_STR(parse_error("# nothing\n"), "my.spec:1: no groups");
    /* CRLF line ends are fine (MICA would keep the \r in the name, Q11). */
    CHECK_EQ_STR(parse_error("0, 0, CATEGORY, NOP\r\n1, 0, OPCODE, RET_NEAR\r\n"), "(accepted)");
}

NB_TEST(mica_itypes_custom_groups)
{
    const char *text = "0, 0, CATEGORY, COND_BR\n0, 1, OPCODE, RET_NEAR\n1, 0, SPECIAL, mem_write\n";
    struct mica_itypes_spec *spec;
    char err[200];
    REQUIRE(mica_itypes_spec_parse(text, strlen(text), "c.spec", &spec, err, sizeof(err)) == 0);
    CHECK_EQ_INT(mica_itypes_spec_groups(spec), 2);
    CHECK_EQ_STR(mica_itypes_group_name(spec, 0), "g0");
    CHECK_EQ_STR(mica_itypes_group_name(spec, 2), "other");
    struct mica_itypes *s = mica_itypes_new(spec);
    struct mica_rec r;
    memset(&r, 0, sizeof(r));
    r.iclass = "RET_NEAR";
    r.category = MICA_CAT_RET;
    r.mem_read = true;
    mica_itypes_record(s, &r); /* g0 by opcode */
    r.iclass = "CALL_NEAR";
    r.category = MICA_CAT_CALL;
    r.mem_read = false;
    r.mem_write = true;
    mica_itypes_record(s, &r); /* g1 */
    r.iclass = "SETZ";
    r.category = MICA_CAT_SETCC;
    r.mem_write = false;
    mica_itypes_record(s, &r); /* other */
    uint64_t v[4];
    mica_itypes_line(s, 3, v);
    CHECK_EQ_U64(v[0], 3);
    CHECK_EQ_U64(v[1], 1);
    CHECK_EQ_U64(v[2], 1);
    CHECK_EQ_U64(v[3], 1);
    const char *names[4];
    REQUIRE(mica_itypes_other(s, names, 4) == 1);
    CHECK_EQ_STR(names[0], "SETCC");
    mica_itypes_free(s);
    mica_itypes_spec_free(spec);
}
