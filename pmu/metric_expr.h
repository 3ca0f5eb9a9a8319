/*
 * metric_expr.h — arithmetic over measured counts, for derived metrics
 * (configs/metrics/, pmu/metric_file.h). Freestanding: the image evaluates
 * metrics after a benchmark, the host tools check the same files.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | NAME | ('min' | 'max') '(' expr (',' expr)+ ')' | '(' expr ')'
 *
 * NUMBER is decimal with an optional fraction and exponent (2.5, 1e9). NAME
 * is [A-Za-z_][A-Za-z0-9_.]* — event names as the configs spell them
 * (MEM_LOAD_RETIRED.L1_MISS), so '.' belongs to a name and '-' never does.
 * A parsed expression is a postfix program: no allocation, bounded size,
 * nesting limited (METRIC_EXPR_MAX_DEPTH) so untrusted text cannot exhaust
 * the stack.
 *
 * Values may be unknown (an event not measured, a constant this machine
 * does not know): every operation with an unknown operand is unknown, with
 * the first unknown operand's reason. Division is safe: a zero divisor gives
 * "n/a (division by zero)", never a trap or an infinity; so does a result
 * that is not finite.
 */
#ifndef METRIC_EXPR_H
#define METRIC_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define METRIC_EXPR_MAX_OPS 64
#define METRIC_EXPR_MAX_DEPTH 24

enum metric_op_kind {
    MOP_NUM, MOP_ID, MOP_ADD, MOP_SUB, MOP_MUL, MOP_DIV, MOP_NEG, MOP_MIN, MOP_MAX,
};

struct metric_op {
    uint8_t kind;
    uint16_t id; /* MOP_ID: the caller's identifier number */
    double num;  /* MOP_NUM */
};

struct metric_expr {
    unsigned n;
    struct metric_op ops[METRIC_EXPR_MAX_OPS];
};

/* A value, or why there is none (a static string or one that outlives the evaluation). */
struct metric_value {
    bool known;
    double v;
    const char *why;
};

/*
 * Turns a name into the caller's identifier number; returns -1 (and writes
 * a message to err) when it cannot be taken (table full).
 */
typedef int (*metric_ident_fn)(void *arg, const char *name, size_t len, char *err, size_t cap);

/* Parses text[0..len) into *e; false with a message in err. */
bool metric_expr_parse(const char *text, size_t len, struct metric_expr *e, metric_ident_fn ident,
                       void *arg, char *err, size_t cap);

typedef struct metric_value (*metric_lookup_fn)(void *arg, unsigned id);

struct metric_value metric_expr_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *arg);

#endif
