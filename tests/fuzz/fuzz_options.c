/*
 * fuzz_options.c — libFuzzer target for the option parser
 * (kernel/suite/bench_options.h), fed an argv made by splitting the input at NUL
 * bytes ("-unroll_count\0100" is two arguments).
 *
 * Every argument is its own heap block and argv has exactly argc slots, so a
 * read past an argument or past argv[argc-1] is an AddressSanitizer report.
 * The parse runs in the target scope, the host scope and both.
 *
 * Invariants (a failure traps):
 *   - NB_OK: every number is inside the bounds bench_options.h documents
 *     (the *_MAX macros and the option table minimums), enums are in range,
 *     and every string option is a non-empty argument borrowed from argv;
 *     bench_options_validate() then succeeds or fails with a message;
 *   - NB_EINVAL: the message is non-empty and NUL-terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_options.h"
#include "fuzz_util.h"
#include "nb_platform.h"

#define FUZZ_MAX_ARGS 4096

static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
    return v >= lo && v <= hi;
}

/* A string option is unset, or one of the arguments (borrowed, not copied) and non-empty. */
static void check_borrowed(const char *s, char *const *argv, int argc)
{
    if (!s)
        return;
    bool found = false;
    for (int i = 0; i < argc && !found; i++)
        found = (s == argv[i]);
    FUZZ_CHECK(found);
}

static void check_nonempty_borrowed(const char *s, char *const *argv, int argc)
{
    check_borrowed(s, argv, argc);
    FUZZ_CHECK(!s || s[0] != '\0');
}

static void check_ok(const struct bench_options *o, char *const *argv, int argc, unsigned scope)
{
    FUZZ_CHECK(in_range(o->n_measurements, 1, OPT_MEASUREMENTS_MAX));
    FUZZ_CHECK(in_range(o->unroll_count, 1, OPT_COUNT_MAX));
    FUZZ_CHECK(in_range(o->loop_count, 0, OPT_COUNT_MAX));
    FUZZ_CHECK(in_range(o->warm_up_count, 0, OPT_COUNT_MAX));
    FUZZ_CHECK(in_range(o->initial_warm_up_count, 0, OPT_COUNT_MAX));
    FUZZ_CHECK(in_range(o->alignment_offset, 0, OPT_ALIGNMENT_OFFSET_MAX));
    FUZZ_CHECK(o->cpu == -1 || in_range(o->cpu, 0, OPT_CPU_MAX));
    FUZZ_CHECK(o->icount == -1 || in_range(o->icount, 0, OPT_ICOUNT_MAX));
    FUZZ_CHECK((unsigned)o->aggregate <= AGG_MAX);
    FUZZ_CHECK((unsigned)o->finish <= NB_FINISH_EXIT);
    FUZZ_CHECK(o->finish_set || o->finish == NB_FINISH_SHUTDOWN);

    for (int p = 0; p < PART_COUNT; p++) {
        check_nonempty_borrowed(o->asm_text[p], argv, argc);
        check_nonempty_borrowed(o->code_path[p], argv, argc);
        /* -asm* exist only on the host. */
        FUZZ_CHECK((scope & SCOPE_HOST) || !o->asm_text[p]);
    }
    check_nonempty_borrowed(o->config_path, argv, argc);
    check_nonempty_borrowed(o->msr_config_path, argv, argc);
    check_nonempty_borrowed(o->suite_path, argv, argc);
    check_nonempty_borrowed(o->image_path, argv, argc);
    check_nonempty_borrowed(o->results_dir, argv, argc);
    check_nonempty_borrowed(o->plan_cpu, argv, argc);
    if (!(scope & SCOPE_HOST)) {
        FUZZ_CHECK(!o->suite_path && !o->image_path && !o->results_dir && !o->plan_cpu);
        FUZZ_CHECK(!o->plan && o->icount == -1);
    }
}

static void run(char *const *argv, int argc, unsigned scope)
{
    struct bench_options o;
    struct option_error err;
    bench_options_init(&o);
    memset(err.message, FUZZ_POISON_BYTE, sizeof(err.message));
    int rc = bench_options_parse(&o, argc, argv, scope, &err);
    FUZZ_CHECK(rc == NB_OK || rc == NB_EINVAL);
    if (rc != NB_OK) {
        FUZZ_CHECK(fuzz_message_ok(err.message, sizeof(err.message)));
        return;
    }
    check_ok(&o, argv, argc, scope);
    memset(err.message, FUZZ_POISON_BYTE, sizeof(err.message));
    rc = bench_options_validate(&o, &err);
    FUZZ_CHECK(rc == NB_OK || rc == NB_EINVAL);
    if (rc != NB_OK)
        FUZZ_CHECK(fuzz_message_ok(err.message, sizeof(err.message)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int argc = 1;
    for (size_t i = 0; i < size; i++)
        argc += (data[i] == '\0');
    if (argc > FUZZ_MAX_ARGS)
        return 0;

    char **argv = malloc(sizeof(char *) * (size_t)argc);
    if (!argv)
        return 0;
    size_t start = 0;
    for (int a = 0; a < argc; a++) {
        const uint8_t *nul = memchr(data + start, '\0', size - start);
        size_t end = nul ? (size_t)(nul - data) : size;
        argv[a] = malloc(end - start + 1);
        if (!argv[a])
            abort();
        memcpy(argv[a], data + start, end - start);
        argv[a][end - start] = '\0';
        start = end + 1;
    }

    run(argv, argc, SCOPE_TARGET);
    run(argv, argc, SCOPE_HOST);
    run(argv, argc, SCOPE_HOST | SCOPE_TARGET);

    for (int a = 0; a < argc; a++)
        free(argv[a]);
    free(argv);
    return 0;
}
