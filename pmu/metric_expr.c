/*
 * metric_expr.c — parser and evaluator of metric expressions (see metric_expr.h).
 */
#include "metric_expr.h"
#include "nb_text.h"

struct parser {
    const char *s, *end;
    struct metric_expr *e;
    metric_ident_fn ident;
    void *arg;
    char *err;
    size_t cap;
    bool failed;
    unsigned depth;
};

static bool is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static void skip_space(struct parser *p)
{
    while (p->s < p->end && nb_is_space(*p->s))
        p->s++;
}

static bool fail(struct parser *p, const char *what)
{
    if (p->failed)
        return false;
    p->failed = true;
    skip_space(p);
    if (p->s >= p->end) {
        nb_snprintf(p->err, p->cap, "%s at end of expression", what);
    } else {
        size_t n = 0;
        while (p->s + n < p->end && n < 16 && !nb_is_space(p->s[n]))
            n++;
        nb_snprintf(p->err, p->cap, "%s at '%.*s'", what, (int)n, p->s);
    }
    return false;
}

static bool emit(struct parser *p, struct metric_op op)
{
    if (p->e->n >= METRIC_EXPR_MAX_OPS) {
        if (!p->failed)
            nb_snprintf(p->err, p->cap, "expression too long (at most %u terms and operators)",
                        METRIC_EXPR_MAX_OPS);
        p->failed = true;
        return false;
    }
    p->e->ops[p->e->n++] = op;
    return true;
}

static bool peek(struct parser *p, char c)
{
    skip_space(p);
    return p->s < p->end && *p->s == c;
}

static bool expr(struct parser *p);

/* Decimal number with optional fraction and exponent; the exponent is at most 2 digits. */
static bool number(struct parser *p)
{
    double v = 0, scale = 1;
    while (p->s < p->end && is_digit(*p->s))
        v = v * 10 + (*p->s++ - '0');
    if (p->s < p->end && *p->s == '.') {
        p->s++;
        while (p->s < p->end && is_digit(*p->s)) {
            scale /= 10;
            v += (*p->s++ - '0') * scale;
        }
    }
    if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
        p->s++;
        bool neg = false;
        if (p->s < p->end && (*p->s == '-' || *p->s == '+'))
            neg = *p->s++ == '-';
        unsigned x = 0, digits = 0;
        while (p->s < p->end && is_digit(*p->s) && digits < 3) {
            x = x * 10 + (unsigned)(*p->s++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 2)
            return fail(p, "bad exponent (1 or 2 digits)");
        while (x--)
            v = neg ? v / 10 : v * 10;
    }
    if (p->s < p->end && (is_alpha(*p->s) || is_digit(*p->s) || *p->s == '.'))
        return fail(p, "bad number");
    return emit(p, (struct metric_op){ MOP_NUM, 0, v });
}

/* min(a, b, ...) / max(a, b, ...): at least two arguments, folded left. */
static bool call(struct parser *p, uint8_t kind)
{
    p->s++; /* '(' */
    if (!expr(p))
        return false;
    unsigned args = 1;
    while (peek(p, ',')) {
        p->s++;
        if (!expr(p) || !emit(p, (struct metric_op){ kind, 0, 0 }))
            return false;
        args++;
    }
    if (!peek(p, ')'))
        return fail(p, "expected ',' or ')'");
    p->s++;
    if (args < 2) {
        if (!p->failed)
            nb_snprintf(p->err, p->cap, "%s needs at least two arguments",
                        kind == MOP_MIN ? "min" : "max");
        p->failed = true;
        return false;
    }
    return true;
}

static bool primary(struct parser *p)
{
    skip_space(p);
    if (p->s >= p->end)
        return fail(p, "expected a number, name or '('");
    char c = *p->s;
    if (c == '(') {
        p->s++;
        if (!expr(p))
            return false;
        if (!peek(p, ')'))
            return fail(p, "expected ')'");
        p->s++;
        return true;
    }
    if (is_digit(c) || (c == '.' && p->s + 1 < p->end && is_digit(p->s[1])))
        return number(p);
    if (is_alpha(c)) {
        const char *name = p->s;
        while (p->s < p->end && (is_alpha(*p->s) || is_digit(*p->s) || *p->s == '.'))
            p->s++;
        size_t len = (size_t)(p->s - name);
        if (peek(p, '(')) {
            if (len == 3 && nb_strncmp(name, "min", 3) == 0)
                return call(p, MOP_MIN);
            if (len == 3 && nb_strncmp(name, "max", 3) == 0)
                return call(p, MOP_MAX);
            if (!p->failed)
                nb_snprintf(p->err, p->cap, "unknown function '%.*s' (min and max exist)",
                            (int)(len > 40 ? 40 : len), name);
            p->failed = true;
            return false;
        }
        int id = p->ident(p->arg, name, len, p->err, p->cap);
        if (id < 0) {
            p->failed = true;
            return false;
        }
        return emit(p, (struct metric_op){ MOP_ID, (uint16_t)id, 0 });
    }
    if (c == ')' || c == '+' || c == '*' || c == '/' || c == ',')
        return fail(p, "expected a number, name or '('");
    if (!p->failed)
        nb_snprintf(p->err, p->cap, "unexpected character '%c'", c >= 0x20 && c < 0x7F ? c : '?');
    p->failed = true;
    return false;
}

static bool unary(struct parser *p)
{
    if (peek(p, '-')) {
        p->s++;
        if (++p->depth > METRIC_EXPR_MAX_DEPTH)
            return fail(p, "nested too deeply");
        bool ok = unary(p) && emit(p, (struct metric_op){ MOP_NEG, 0, 0 });
        p->depth--;
        return ok;
    }
    return primary(p);
}

static bool term(struct parser *p)
{
    if (!unary(p))
        return false;
    while (peek(p, '*') || peek(p, '/')) {
        uint8_t kind = *p->s++ == '*' ? MOP_MUL : MOP_DIV;
        if (!unary(p) || !emit(p, (struct metric_op){ kind, 0, 0 }))
            return false;
    }
    return true;
}

static bool expr(struct parser *p)
{
    if (++p->depth > METRIC_EXPR_MAX_DEPTH)
        return fail(p, "nested too deeply");
    bool ok = term(p);
    while (ok && (peek(p, '+') || peek(p, '-'))) {
        uint8_t kind = *p->s++ == '+' ? MOP_ADD : MOP_SUB;
        ok = term(p) && emit(p, (struct metric_op){ kind, 0, 0 });
    }
    p->depth--;
    return ok;
}

bool metric_expr_parse(const char *text, size_t len, struct metric_expr *e, metric_ident_fn ident,
                       void *arg, char *err, size_t cap)
{
    struct parser p = { text, text + len, e, ident, arg, err, cap, false, 0 };
    e->n = 0;
    if (!expr(&p))
        return false;
    skip_space(&p);
    if (p.s < p.end) {
        char c = *p.s;
        if (is_alpha(c) || is_digit(c) || c == '(' || c == ')' || c == '.' || c == ',')
            return fail(&p, "expected an operator");
        nb_snprintf(err, cap, "unexpected character '%c'", c >= 0x20 && c < 0x7F ? c : '?');
        return false;
    }
    return true;
}

static bool is_finite(double x)
{
    return x - x == 0; /* false for infinities and NaN */
}

struct metric_value metric_expr_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *arg)
{
    struct metric_value stack[METRIC_EXPR_MAX_OPS];
    unsigned sp = 0;
    for (unsigned i = 0; i < e->n; i++) {
        const struct metric_op *op = &e->ops[i];
        if (op->kind == MOP_NUM) {
            stack[sp++] = (struct metric_value){ true, op->num, NULL };
            continue;
        }
        if (op->kind == MOP_ID) {
            stack[sp++] = lookup(arg, op->id);
            continue;
        }
        if (op->kind == MOP_NEG) {
            stack[sp - 1].v = -stack[sp - 1].v;
            continue;
        }
        struct metric_value b = stack[--sp], *a = &stack[sp - 1];
        if (!a->known)
            continue;
        if (!b.known) {
            *a = b;
            continue;
        }
        switch (op->kind) {
        case MOP_ADD: a->v += b.v; break;
        case MOP_SUB: a->v -= b.v; break;
        case MOP_MUL: a->v *= b.v; break;
        case MOP_MIN: a->v = b.v < a->v ? b.v : a->v; break;
        case MOP_MAX: a->v = b.v > a->v ? b.v : a->v; break;
        case MOP_DIV:
            if (b.v == 0) {
                *a = (struct metric_value){ false, 0, "division by zero" };
                continue;
            }
            a->v /= b.v;
            break;
        }
        if (!is_finite(a->v))
            *a = (struct metric_value){ false, 0, "value out of range" };
    }
    if (sp != 1)
        return (struct metric_value){ false, 0, "empty expression" };
    return stack[0];
}
