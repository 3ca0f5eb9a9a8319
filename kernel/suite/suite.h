/*
 * suite.h — parser for suite files: one benchmark per line.
 *
 *   # comment
 *   defaults: -unroll_count 100 -n_measurements 20
 *   add: -asm "ADD RAX, RBX; ADD RBX, RAX"
 *   load: -asm_init "MOV RAX, R14" \
 *         -asm "MOV RAX, [RAX]"
 *
 * `name: options`; names are [A-Za-z0-9_.-]+. A `defaults:` line applies to
 * the benchmark lines after it (a later `defaults:` replaces it). `#` outside
 * quotes starts a comment; double quotes group words (\" and \\ escape
 * inside them); single quotes group words literally, as in a shell ('a "b"'
 * is the word a "b"); a trailing backslash continues the line. A UTF-8 byte
 * order mark at the start of the text is skipped.
 *
 * A comment `#line N` makes the next line count as line N: tools/nanobench
 * writes one before each benchmark of the suite.nb it compiles, so errors
 * the image reports name the line of the user's suite file.
 *
 * A malformed line does not stop the parse: it becomes an entry with `error`
 * set, so the runner reports it under its name and goes on.
 */
#ifndef SUITE_H
#define SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_arena.h"
#include "nb_platform.h" /* NB_* status codes */

#define SUITE_NAME_MAX 64

struct suite_entry {
    bool is_defaults;    /* a `defaults:` line (not run) */
    const char *name;    /* benchmark name, or "defaults" */
    unsigned line;       /* 1-based line number where the entry starts */
    int argc;            /* defaults in effect, then the line's own words */
    char **argv;
    int own_argc;        /* the line's own words: argv + (argc - own_argc) */
    unsigned defaults_line; /* line of the defaults in effect, 0 if none */
    const char *error;   /* syntax error on this line, or NULL */
};

struct suite {
    struct suite_entry *entries;
    size_t count;
};

/*
 * Parses `text` (not necessarily NUL-terminated; it is copied into the arena).
 * Returns NB_OK, or NB_ENOMEM when the arena is too small.
 */
int suite_parse(const char *text, size_t len, struct nb_arena *arena, struct suite *out);

/*
 * A first arena size for parsing `len` bytes: callers double it and parse
 * again while suite_parse returns NB_ENOMEM (each entry copies the words of
 * the defaults in effect, so the need depends on the text, not just its size).
 */
size_t suite_arena_estimate(const char *text, size_t len);

/* True when `name` is a valid benchmark name. */
bool suite_name_valid(const char *name);

#endif
