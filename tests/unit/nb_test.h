/*
 * nb_test.h — the host unit-test harness.
 *
 *   NB_TEST(stats_median_odd) { CHECK_EQ_INT(median, 3); }
 *
 * Tests register themselves before main() (a constructor per test). The
 * runner (nb_test.c) runs each test in a forked child so that a crash or a
 * sanitizer abort fails that one test and the rest still run; set
 * NB_TEST_NOFORK=1 to run in-process (for gdb); a forked test that runs longer
 * than NB_TEST_TIMEOUT seconds (default 120) is killed. `unit_tests WORD` runs only
 * the tests whose name contains WORD. CHECK_* failures are not fatal: the test
 * goes on and reports every mismatch. REQUIRE returns from the test.
 */
#ifndef NB_TEST_H
#define NB_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void nb_test_register(const char *name, void (*fn)(void), const char *file);

/* Each returns true when the check passed; on failure prints file:line and both sides. */
bool nb_check(bool ok, const char *file, int line, const char *expr);
bool nb_check_int(long long a, long long b, const char *file, int line, const char *ea,
                  const char *eb);
bool nb_check_u64(uint64_t a, uint64_t b, const char *file, int line, const char *ea,
                  const char *eb);
bool nb_check_str(const char *a, const char *b, const char *file, int line, const char *ea,
                  const char *eb);
bool nb_check_bytes(const void *a, const void *b, size_t n, const char *file, int line,
                    const char *ea, const char *eb);
/* Adds a line of context to the current test's failure output (printf-style). */
void nb_test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define NB_TEST(name)                                                                        \
    static void nb_test_fn_##name(void);                                                     \
    __attribute__((constructor)) static void nb_test_reg_##name(void)                        \
    {                                                                                        \
        nb_test_register(#name, nb_test_fn_##name, __FILE__);                                \
    }                                                                                        \
    static void nb_test_fn_##name(void)

#define CHECK(cond) nb_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ_INT(a, b) nb_check_int((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_U64(a, b) nb_check_u64((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) nb_check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_BYTES(a, b, n) nb_check_bytes((a), (b), (n), __FILE__, __LINE__, #a, #b)
/* Stops the test when the condition fails (use where going on would crash). */
#define REQUIRE(cond)                                                                        \
    do {                                                                                     \
        if (!CHECK(cond))                                                                    \
            return;                                                                          \
    } while (0)

#define NB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
