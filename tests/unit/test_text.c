/*
 * test_text.c — nb_text: the printf subset, integer parsing, centi formatting.
 */
#include "nb_test.h"
#include "nb_text.h"

#include <limits.h>
#include <string.h>

/* Formats into a roomy buffer; checks the text and the returned length. */
#define FMT(expected, ...)                                                                   \
    do {                                                                                     \
        char buf_[128];                                                                      \
        memset(buf_, 'X', sizeof(buf_));                                                     \
        size_t n_ = nb_snprintf(buf_, sizeof(buf_), __VA_ARGS__);                            \
        CHECK_EQ_STR(buf_, expected);                                                        \
        CHECK_EQ_INT(n_, strlen(expected));                                                  \
    } while (0)

NB_TEST(text_snprintf_strings)
{
    FMT("abc", "%s", "abc");
    FMT("[   ab]", "[%5s]", "ab");
    FMT("[abcdef]", "[%3s]", "abcdef");
    FMT("abc", "%.*s", 3, "abcdef");
    FMT("ab", "%.*s", 10, "ab");
    FMT("", "%.*s", 0, "abc");
    /* Through variables: the compiler rightly warns about these as constants. */
    const char *fmt_q = "%q";
    const char *volatile null_string = NULL;
    FMT("(null)", "%s", null_string);
    FMT("x=y", "%c=%c", 'x', 'y');
    FMT("100%", "100%%");
    FMT("%q", fmt_q);
}

NB_TEST(text_snprintf_signed)
{
    FMT("0", "%d", 0);
    FMT("-42", "%d", -42);
    FMT("-2147483648", "%d", INT_MIN);
    FMT("2147483647", "%d", INT_MAX);
    FMT("  -42", "%5d", -42);
    FMT("-0042", "%05d", -42);
    FMT("00042", "%05d", 42);
    FMT("    42", "%*d", 6, 42);
    FMT("-9223372036854775808", "%lld", (long long)LLONG_MIN);
    FMT("-7", "%ld", -7L);
    FMT("-3", "%zd", (ptrdiff_t)-3);
}

NB_TEST(text_snprintf_unsigned)
{
    FMT("4294967295", "%u", 4294967295u);
    FMT("18446744073709551615", "%llu", (unsigned long long)ULLONG_MAX);
    FMT("123456", "%zu", (size_t)123456);
    FMT("deadbeef", "%x", 0xdeadbeefu);
    FMT("DEADBEEF", "%X", 0xdeadbeefu);
    FMT("0000001f", "%08x", 0x1fu);
    FMT("123456789abcdef0", "%llx", 0x123456789abcdef0ull);
    FMT("0", "%x", 0u);
    FMT("run-0007.txt", "run-%04u.txt", 7u);
    FMT("run-12345.txt", "run-%04u.txt", 12345u);
}

NB_TEST(text_snprintf_truncation_returns_wanted_length)
{
    char buf[8];
    memset(buf, 'X', sizeof(buf));
    CHECK_EQ_INT(nb_snprintf(buf, 5, "%s", "hello world"), 11);
    CHECK_EQ_STR(buf, "hell");
    CHECK_EQ_INT(buf[5], 'X'); /* nothing written past cap */

    CHECK_EQ_INT(nb_snprintf(buf, 6, "%s", "hello"), 5);
    CHECK_EQ_STR(buf, "hello");

    CHECK_EQ_INT(nb_snprintf(buf, 1, "%d", 12345), 5);
    CHECK_EQ_STR(buf, "");

    memset(buf, 'X', sizeof(buf));
    CHECK_EQ_INT(nb_snprintf(buf, 0, "%d", -1), 2);
    CHECK_EQ_INT(buf[0], 'X');

    CHECK_EQ_INT(nb_snprintf(buf, 4, "%05d", 7), 5);
    CHECK_EQ_STR(buf, "000");
}

NB_TEST(text_parse_i64)
{
    static const struct {
        const char *text;
        bool ok;
        int64_t value;
    } cases[] = {
        { "0", true, 0 },
        { "42", true, 42 },
        { "007", true, 7 },
        { "-42", true, -42 },
        { "0x10", true, 16 },
        { "0X1f", true, 31 },
        { "0xFFff", true, 65535 },
        { "-0x10", true, -16 },
        { "9223372036854775807", true, INT64_MAX },
        { "-9223372036854775808", true, INT64_MIN },
        { "0x7fffffffffffffff", true, INT64_MAX },
        { "-0x8000000000000000", true, INT64_MIN },
        { "9223372036854775808", false, 0 },
        { "-9223372036854775809", false, 0 },
        { "0x8000000000000000", false, 0 },
        { "18446744073709551616", false, 0 },
        { "99999999999999999999999", false, 0 },
        { "", false, 0 },
        { "-", false, 0 },
        { "0x", false, 0 },
        { "-0x", false, 0 },
        { "12a", false, 0 },
        { "0x1g", false, 0 },
        { " 1", false, 0 },
        { "1 ", false, 0 },
        { "--1", false, 0 },
        { "1e3", false, 0 },
        { "1.5", false, 0 },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        int64_t v = 12345;
        bool ok = nb_parse_i64(cases[i].text, &v);
        if (!CHECK_EQ_INT(ok, cases[i].ok))
            nb_test_note("input \"%s\"", cases[i].text);
        if (ok && cases[i].ok && !CHECK_EQ_INT(v, cases[i].value))
            nb_test_note("input \"%s\"", cases[i].text);
    }
}

NB_TEST(text_parse_hex_u64)
{
    uint64_t v = 0;
    CHECK(nb_parse_hex_u64("ff", &v) && v == 255);
    CHECK(nb_parse_hex_u64("0x1A2b", &v) && v == 0x1a2b);
    CHECK(nb_parse_hex_u64("0xFFFFFFFFFFFFFFFF", &v) && v == UINT64_MAX);
    CHECK(!nb_parse_hex_u64("0x10000000000000000", &v));
    CHECK(!nb_parse_hex_u64("", &v));
    CHECK(!nb_parse_hex_u64("0x", &v));
    CHECK(!nb_parse_hex_u64("-1", &v));
    CHECK(!nb_parse_hex_u64("fg", &v));
}

NB_TEST(text_format_centi)
{
    static const struct {
        int64_t centi;
        const char *text;
    } cases[] = {
        { 3200, "32.00" },
        { -5, "-0.05" },
        { 0, "0.00" },
        { 1, "0.01" },
        { 99, "0.99" },
        { -100, "-1.00" },
        { 123456, "1234.56" },
        { -123456, "-1234.56" },
        { INT64_MIN, "-92233720368547758.08" },
        { INT64_MAX, "92233720368547758.07" },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        char buf[32];
        size_t n = nb_format_centi(buf, sizeof(buf), cases[i].centi);
        CHECK_EQ_STR(buf, cases[i].text);
        CHECK_EQ_INT(n, strlen(cases[i].text));
    }
    char small[4];
    CHECK_EQ_INT(nb_format_centi(small, sizeof(small), 3200), 5);
    CHECK_EQ_STR(small, "32.");
}

NB_TEST(text_string_helpers)
{
    CHECK_EQ_INT(nb_strlen(""), 0);
    CHECK_EQ_INT(nb_strlen("abc"), 3);
    CHECK(nb_strcmp("abc", "abc") == 0);
    CHECK(nb_strcmp("abc", "abd") < 0);
    CHECK(nb_strcmp("abd", "abc") > 0);
    CHECK(nb_strcmp("ab", "abc") < 0);
    CHECK(nb_strcmp("\xff", "a") > 0); /* compares as unsigned char */
    CHECK(nb_strncmp("abcX", "abcY", 3) == 0);
    CHECK(nb_strncmp("ab", "abc", 3) < 0);
    CHECK(nb_starts_with("unroll_count", "unr"));
    CHECK(nb_starts_with("abc", ""));
    CHECK(!nb_starts_with("un", "unr"));
    uint8_t a[4] = { 1, 2, 3, 4 }, b[4];
    nb_memset(b, 0xAB, sizeof(b));
    CHECK_EQ_INT(b[3], 0xAB);
    nb_memcpy(b, a, 4);
    CHECK_EQ_BYTES(b, a, 4);
    CHECK(nb_memcmp(a, b, 4) == 0);
    b[2] = 0xFF;
    CHECK(nb_memcmp(a, b, 4) < 0);
    CHECK(nb_is_space(' ') && nb_is_space('\t') && nb_is_space('\r') && !nb_is_space('x'));
    CHECK_EQ_INT(nb_to_lower('Q'), 'q');
    CHECK_EQ_INT(nb_to_lower('q'), 'q');
    CHECK_EQ_INT(nb_to_lower('1'), '1');
}

/* nb_memset stores words where it can: every alignment and length still fills exactly. */
NB_TEST(text_memset_fills_exactly_at_every_alignment)
{
    static uint8_t buf[300];
    for (size_t start = 0; start < 16; start++) {
        for (size_t len = 0; len < 200; len += 7) {
            memset(buf, 0xAA, sizeof(buf));
            nb_memset(buf + start, 0x5C, len);
            size_t bad = sizeof(buf);
            for (size_t i = 0; i < sizeof(buf); i++) {
                uint8_t want = (i >= start && i < start + len) ? 0x5C : 0xAA;
                if (buf[i] != want) {
                    bad = i;
                    break;
                }
            }
            CHECK_EQ_INT(bad, sizeof(buf));
        }
    }
}
