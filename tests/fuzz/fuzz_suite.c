/*
 * fuzz_suite.c — libFuzzer target for the suite file parser (kernel/suite/suite.h)
 * and, on every benchmark line it yields, the option parser
 * (kernel/suite/bench_options.h) in the target scope and in the host+target scope.
 *
 * The arena is sized the way kernel/nb_main.c sizes it: start from
 * suite_arena_estimate() and double while suite_parse() returns NB_ENOMEM.
 * After the parse the unused tail of the arena is poisoned, so a string that
 * runs past what the parser allocated is an AddressSanitizer report.
 *
 * Invariants (a failure traps):
 *   - names are valid (suite_name_valid) unless the entry has an error;
 *   - argc >= own_argc >= 0, argv[argc] == NULL, and every argv string starts
 *     inside the arena's used part and is NUL-terminated before its end;
 *   - entries appear in line order; a `defaults:` line has no inherited words;
 *     a benchmark line inherits exactly the argv of the defaults in effect;
 *   - option parsing either succeeds or fails with a non-empty, terminated message.
 */
#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_options.h"
#include "fuzz_util.h"
#include "nb_platform.h"
#include "suite.h"

/* Like SUITE_ARENA_MAX in kernel/nb_main.c, but smaller: the fuzzer's inputs are small. */
#define FUZZ_ARENA_MAX (64u * 1024u * 1024u)

/*
 * Words handed to the option parser per input. Every benchmark line repeats
 * the defaults' words, so a few KiB of suite can mean 100 000 words to parse
 * (fine on the target, 100 ms an input here; tests/qemu/engine.suite has
 * 155). Past this budget only the suite invariants are checked.
 */
#define FUZZ_OPTION_WORDS_MAX 512

static unsigned count_physical_lines(const uint8_t *data, size_t size)
{
    unsigned n = 1;
    for (size_t i = 0; i < size; i++)
        n += (data[i] == '\n');
    return n;
}

static void check_string_in_arena(const struct nb_arena *arena, const char *s)
{
    const char *lo = (const char *)arena->base;
    const char *hi = lo + arena->used;
    FUZZ_CHECK(s != NULL);
    FUZZ_CHECK(s >= lo && s < hi);
    FUZZ_CHECK(memchr(s, '\0', (size_t)(hi - s)) != NULL);
}

static void check_error(int rc, const struct option_error *err)
{
    FUZZ_CHECK(rc == NB_OK || rc == NB_EINVAL);
    if (rc != NB_OK)
        FUZZ_CHECK(fuzz_message_ok(err->message, sizeof(err->message)));
}

/* Parses and validates argv in `scope`, as nb_main.c and tools/nanobench do. */
static void run_options(const struct suite_entry *e, unsigned scope)
{
    struct bench_options o;
    struct option_error err;
    bench_options_init(&o);
    memset(err.message, FUZZ_POISON_BYTE, sizeof(err.message));
    int rc = bench_options_parse(&o, e->argc, e->argv, scope, &err);
    check_error(rc, &err);
    if (rc != NB_OK)
        return;
    memset(err.message, FUZZ_POISON_BYTE, sizeof(err.message));
    check_error(bench_options_validate(&o, &err), &err);
}

static void check_entries(const struct suite *s, const struct nb_arena *arena, unsigned n_lines)
{
    const struct suite_entry *defaults = NULL; /* the defaults in effect */
    unsigned last_line = 0;
    size_t option_words = 0;
    for (size_t i = 0; i < s->count; i++) {
        const struct suite_entry *e = &s->entries[i];
        FUZZ_CHECK(e->name != NULL);
        FUZZ_CHECK(e->line > last_line && e->line <= n_lines);
        last_line = e->line;
        if (e->error) {
            FUZZ_CHECK(e->error[0] != '\0');
            continue;
        }
        FUZZ_CHECK(suite_name_valid(e->name));
        FUZZ_CHECK(e->own_argc >= 0 && e->argc >= e->own_argc);
        FUZZ_CHECK(e->argv != NULL);
        FUZZ_CHECK(e->argv[e->argc] == NULL);
        for (int k = 0; k < e->argc; k++)
            check_string_in_arena(arena, e->argv[k]);

        int inherited = e->argc - e->own_argc;
        if (e->is_defaults) {
            FUZZ_CHECK(strcmp(e->name, "defaults") == 0);
            FUZZ_CHECK(inherited == 0 && e->defaults_line == 0);
            defaults = e;
        } else if (!defaults) {
            FUZZ_CHECK(inherited == 0 && e->defaults_line == 0);
        } else {
            FUZZ_CHECK(e->defaults_line == defaults->line);
            FUZZ_CHECK(inherited == defaults->argc);
            for (int k = 0; k < inherited; k++)
                FUZZ_CHECK(e->argv[k] == defaults->argv[k]);
        }

        option_words += (size_t)e->argc;
        if (option_words <= FUZZ_OPTION_WORDS_MAX) {
            run_options(e, SCOPE_TARGET);
            run_options(e, SCOPE_HOST | SCOPE_TARGET);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct nb_arena arena;
    struct suite s;
    void *memory = NULL;
    size_t arena_size = suite_arena_estimate(text, size);
    FUZZ_CHECK(arena_size > size);
    int rc = NB_ENOMEM;
    for (; arena_size <= FUZZ_ARENA_MAX; arena_size *= 2) {
        memory = malloc(arena_size);
        if (!memory)
            return 0;
        nb_arena_init(&arena, memory, arena_size);
        rc = suite_parse(text, size, &arena, &s);
        if (rc == NB_OK)
            break;
        FUZZ_CHECK(rc == NB_ENOMEM);
        free(memory);
        memory = NULL;
    }
    if (rc != NB_OK)
        return 0; /* needs more than FUZZ_ARENA_MAX: nb_main reports out of memory */

    FUZZ_CHECK(arena.used <= arena.cap);
    FUZZ_CHECK(s.count == 0 || s.entries != NULL);
    ASAN_POISON_MEMORY_REGION((uint8_t *)memory + arena.used, arena.cap - arena.used);
    check_entries(&s, &arena, count_physical_lines(data, size));
    ASAN_UNPOISON_MEMORY_REGION(memory, arena.cap);
    free(memory);
    return 0;
}
