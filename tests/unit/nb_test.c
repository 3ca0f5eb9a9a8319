/*
 * nb_test.c — registry, checks and runner of the host unit tests (see nb_test.h).
 *
 * Output: the details of every failed check, one `FAIL name` line per
 * failing test, and last exactly `N passed, N failed`. Exit status 1 when a
 * test failed.
 */
#define _GNU_SOURCE
#include "nb_test.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TESTS 1024
#define TEST_TIMEOUT_S 120

struct test {
    const char *name;
    void (*fn)(void);
    const char *file;
};

static struct test tests[MAX_TESTS];
static size_t n_tests;
static int current_failures;
static const char *current_name;

void nb_test_register(const char *name, void (*fn)(void), const char *file)
{
    if (n_tests == MAX_TESTS) {
        fprintf(stderr, "nb_test: more than %d tests\n", MAX_TESTS);
        exit(2);
    }
    tests[n_tests++] = (struct test){ name, fn, file };
}

static void failed(const char *file, int line)
{
    current_failures++;
    printf("  %s:%d: in %s: ", file, line, current_name);
}

void nb_test_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    note: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

bool nb_check(bool ok, const char *file, int line, const char *expr)
{
    if (!ok) {
        failed(file, line);
        printf("CHECK(%s) failed\n", expr);
    }
    return ok;
}

bool nb_check_int(long long a, long long b, const char *file, int line, const char *ea,
                  const char *eb)
{
    if (a == b)
        return true;
    failed(file, line);
    printf("%s == %s failed: %lld != %lld\n", ea, eb, a, b);
    return false;
}

bool nb_check_u64(uint64_t a, uint64_t b, const char *file, int line, const char *ea,
                  const char *eb)
{
    if (a == b)
        return true;
    failed(file, line);
    printf("%s == %s failed: %llu (0x%llx) != %llu (0x%llx)\n", ea, eb, (unsigned long long)a,
           (unsigned long long)a, (unsigned long long)b, (unsigned long long)b);
    return false;
}

static void print_quoted(const char *s)
{
    if (!s) {
        printf("NULL");
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n')
            printf("\\n");
        else if (c == '\r')
            printf("\\r");
        else if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7F)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    putchar('"');
}

bool nb_check_str(const char *a, const char *b, const char *file, int line, const char *ea,
                  const char *eb)
{
    if ((a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0))
        return true;
    failed(file, line);
    printf("%s == %s failed:\n      got:      ", ea, eb);
    print_quoted(a);
    printf("\n      expected: ");
    print_quoted(b);
    printf("\n");
    return false;
}

static void print_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x%s", p[i], i + 1 < n ? " " : "");
}

bool nb_check_bytes(const void *a, const void *b, size_t n, const char *file, int line,
                    const char *ea, const char *eb)
{
    if (n == 0 || memcmp(a, b, n) == 0)
        return true;
    const uint8_t *x = a, *y = b;
    size_t first = 0;
    while (x[first] == y[first])
        first++;
    failed(file, line);
    printf("%s == %s failed (%zu bytes, first difference at %zu):\n      got:      ", ea, eb, n,
           first);
    print_hex(x, n);
    printf("\n      expected: ");
    print_hex(y, n);
    printf("\n");
    return false;
}

/* Runs one test in this process; returns true when it passed. */
static bool run_here(const struct test *t)
{
    current_failures = 0;
    current_name = t->name;
    t->fn();
    fflush(stdout);
    return current_failures == 0;
}

/* Runs one test in a child so that a crash only fails that test. */
static bool run_forked(const struct test *t)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return run_here(t);
    }
    if (pid == 0) {
        const char *timeout = getenv("NB_TEST_TIMEOUT");
        alarm(timeout ? (unsigned)atoi(timeout) : TEST_TIMEOUT_S);
        _exit(run_here(t) ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status)) {
        printf("  %s: killed by signal %d (%s)\n", t->name, WTERMSIG(status),
               strsignal(WTERMSIG(status)));
        return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    bool fork_each = getenv("NB_TEST_NOFORK") == NULL;
    int passed = 0, failed_count = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < n_tests; i++) {
        const struct test *t = &tests[i];
        if (filter && !strstr(t->name, filter))
            continue;
        bool ok = fork_each ? run_forked(t) : run_here(t);
        if (ok) {
            passed++;
        } else {
            failed_count++;
            printf("FAIL %s (%s)\n", t->name, t->file);
        }
    }
    printf("%d passed, %d failed\n", passed, failed_count);
    return failed_count ? 1 : 0;
}
