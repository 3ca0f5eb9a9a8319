/*
 * bench_expect.c — -expect checks and the selftest summary (see bench_expect.h).
 */
#include "bench_expect.h"
#include "nb_text.h"

#define TSC_EVENT "RDTSC"

/* Copies text[from, to) without surrounding spaces; false if empty or too long. */
static bool trimmed(const char *from, const char *to, char *out, size_t cap)
{
    while (from < to && nb_is_space(*from))
        from++;
    while (to > from && nb_is_space(to[-1]))
        to--;
    size_t n = (size_t)(to - from);
    if (n == 0 || n >= cap)
        return false;
    nb_memcpy(out, from, n);
    out[n] = '\0';
    return true;
}

/* "A|B|C" into names; false with a reason. */
static bool parse_names(const char *from, const char *to, struct expect_names *out, char *error,
                        size_t cap)
{
    out->n = 0;
    for (const char *start = from;;) {
        const char *bar = start;
        while (bar < to && *bar != '|')
            bar++;
        if (out->n == EXPECT_NAMES_MAX) {
            nb_snprintf(error, cap, "more than %d alternative event names", EXPECT_NAMES_MAX);
            return false;
        }
        if (!trimmed(start, bar, out->name[out->n], EXPECT_NAME_LEN)) {
            nb_snprintf(error, cap, "empty or too long event name (at most %d characters)",
                        EXPECT_NAME_LEN - 1);
            return false;
        }
        out->n++;
        if (bar == to)
            return true;
        start = bar + 1;
    }
}

/* A decimal with at most two decimals, in hundredths ("3", "-0.5", "16.00"). */
static bool parse_centi(const char *s, int64_t *out)
{
    bool negative = *s == '-';
    if (negative)
        s++;
    if (*s < '0' || *s > '9')
        return false;
    int64_t whole = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (whole > (INT64_MAX / 100 - 9) / 10)
            return false;
        whole = whole * 10 + (*s - '0');
    }
    int64_t frac = 0;
    if (*s == '.') {
        s++;
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++, digits++) {
            if (digits == 2)
                return false;
            frac = frac * 10 + (*s - '0');
        }
        if (digits == 0)
            return false;
        if (digits == 1)
            frac *= 10;
    }
    if (*s != '\0')
        return false;
    *out = (whole * 100 + frac) * (negative ? -1 : 1);
    return true;
}

static const char *find(const char *from, const char *to, const char *word)
{
    size_t n = nb_strlen(word);
    for (const char *c = from; c + n <= to; c++) {
        if (nb_strncmp(c, word, n) == 0)
            return c;
    }
    return NULL;
}

static bool parse_condition(const char *from, const char *to, struct expectation *e, char *error,
                            size_t cap)
{
    char text[32];
    while (from < to && nb_is_space(*from))
        from++;
    if (to - from > 6 && nb_strncmp(from, "uarch=", 6) == 0) {
        e->condition = EXPECT_IF_UARCH;
        return parse_names(from + 6, to, &e->uarch, error, cap);
    }
    if (!trimmed(from, to, text, sizeof(text))) {
        nb_snprintf(error, cap, "'if' needs a condition (icount=N, tsc_invariant or uarch=NAME)");
        return false;
    }
    if (nb_strcmp(text, "tsc_invariant") == 0) {
        e->condition = EXPECT_IF_TSC_INVARIANT;
        return true;
    }
    int64_t shift;
    if (nb_starts_with(text, "icount=") && nb_parse_i64(text + 7, &shift) && shift >= 0 &&
        shift <= 10) {
        e->condition = EXPECT_IF_ICOUNT;
        e->condition_arg = shift;
        return true;
    }
    nb_snprintf(error, cap, "unknown condition '%s' (icount=N with N 0..10, tsc_invariant or uarch=NAME)", text);
    return false;
}

bool expect_parse(const char *text, struct expectation *out, char *error, size_t cap)
{
    nb_memset(out, 0, sizeof(*out));
    const char *end = text + nb_strlen(text);
    const char *eq = text;
    while (eq < end && *eq != '=')
        eq++;
    if (eq == end) {
        nb_snprintf(error, cap, "'%s' has no '=' (EVENT=VALUE[~TOLERANCE][ if CONDITION])", text);
        return false;
    }
    if (!parse_names(text, eq, &out->event, error, cap))
        return false;
    const char *value_end = find(eq + 1, end, " if ");
    if (value_end) {
        if (!parse_condition(value_end + 4, end, out, error, cap))
            return false;
    } else {
        value_end = end;
    }
    const char *tilde = eq + 1;
    while (tilde < value_end && *tilde != '~')
        tilde++;
    char number[EXPECT_NAME_LEN];
    if (tilde < value_end) {
        if (!trimmed(tilde + 1, value_end, number, sizeof(number)) ||
            !parse_centi(number, &out->tolerance) || out->tolerance < 0) {
            nb_snprintf(error, cap, "bad tolerance after '~' (a number >= 0 with at most 2 decimals)");
            return false;
        }
    }
    bool have_value = trimmed(eq + 1, tilde, number, sizeof(number));
    if (have_value && parse_centi(number, &out->value))
        return true;
    /* Something that starts like a number is a bad number, not an event name. */
    if (have_value && ((number[0] >= '0' && number[0] <= '9') || number[0] == '-' || number[0] == '.')) {
        nb_snprintf(error, cap, "bad value '%s' (a number with at most 2 decimals, or event names)",
                    number);
        return false;
    }
    out->value_is_event = true;
    return parse_names(eq + 1, tilde, &out->value_event, error, cap);
}

void expect_values_reset(struct expect_values *v)
{
    v->n = 0;
    v->has_error = false;
    v->error[0] = '\0';
}

void expect_values_add(struct expect_values *v, const char *event, const char *text)
{
    int64_t centi;
    if (v->n == EXPECT_VALUES_MAX || !parse_centi(text, &centi))
        return;
    /* -no_normalization prints whole numbers: parse_centi reads "3200" as 3200.00. */
    size_t n = nb_strlen(event);
    if (n >= EXPECT_NAME_LEN)
        return;
    nb_memcpy(v->name[v->n], event, n + 1);
    v->value[v->n] = centi;
    v->n++;
}

void expect_values_error(struct expect_values *v, const char *message)
{
    if (v->has_error)
        return;
    v->has_error = true;
    nb_snprintf(v->error, sizeof(v->error), "%s", message);
}

/* The first alternative that was measured; its index in v, or -1. */
static long lookup(const struct expect_values *v, const struct expect_names *names)
{
    for (unsigned k = 0; k < names->n; k++) {
        for (size_t i = 0; i < v->n; i++) {
            if (nb_strcmp(v->name[i], names->name[k]) == 0)
                return (long)i;
        }
    }
    return -1;
}

static bool needs_pmu(const struct expect_names *names)
{
    for (unsigned k = 0; k < names->n; k++) {
        if (nb_strcmp(names->name[k], TSC_EVENT) == 0)
            return false;
    }
    return true;
}

/* "A|B|C" for messages. */
static void names_text(const struct expect_names *names, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned k = 0; k < names->n && n < cap; k++)
        n += nb_snprintf(out + n, cap - n, "%s%s", k ? "|" : "", names->name[k]);
}

static void expected_text(const struct expectation *e, const struct expect_values *v, long rhs,
                          char *out, size_t cap)
{
    char number[32], tol[32] = "";
    if (e->tolerance) {
        tol[0] = '~';
        nb_format_centi(tol + 1, sizeof(tol) - 1, e->tolerance);
    }
    if (e->value_is_event) {
        nb_format_centi(number, sizeof(number), v->value[rhs]);
        nb_snprintf(out, cap, "%s = %s%s", v->name[rhs], number, tol);
    } else {
        nb_format_centi(number, sizeof(number), e->value);
        nb_snprintf(out, cap, "%s%s", number, tol);
    }
}

enum check_status expect_evaluate(const struct expectation *e, const struct expect_facts *f,
                                  const char *benchmark, char *line, size_t cap,
                                  char *event_out, size_t event_cap)
{
    const struct expect_values *v = f->values;
    long lhs = lookup(v, &e->event);
    long rhs = e->value_is_event ? lookup(v, &e->value_event) : -1;
    const char *event = lhs >= 0 ? v->name[lhs] : e->event.name[0];
    nb_snprintf(event_out, event_cap, "%s", event);

    if (f->cpu >= 0 && (uint64_t)f->cpu >= f->n_cpus) {
        nb_snprintf(line, cap, "SKIPPED %s: %s: %s (-cpu %lld needs %lld processors)", benchmark,
                    event, f->n_cpus == 1 ? "one processor only" : "too few processors",
                    (long long)f->cpu, (long long)f->cpu + 1);
        return CHECK_SKIPPED;
    }
    if (e->condition == EXPECT_IF_TSC_INVARIANT && !f->tsc_invariant) {
        nb_snprintf(line, cap, "SKIPPED %s: %s: TSC not invariant (CPUID.80000007H:EDX[8])",
                    benchmark, event);
        return CHECK_SKIPPED;
    }
    if (e->condition == EXPECT_IF_ICOUNT && f->icount != e->condition_arg) {
        if (f->icount < 0)
            nb_snprintf(line, cap, "SKIPPED %s: %s: not under QEMU -icount %lld (real hardware)",
                        benchmark, event, (long long)e->condition_arg);
        else
            nb_snprintf(line, cap, "SKIPPED %s: %s: under QEMU -icount %lld, not %lld", benchmark,
                        event, (long long)f->icount, (long long)e->condition_arg);
        return CHECK_SKIPPED;
    }
    bool pmu = needs_pmu(&e->event) || (e->value_is_event && needs_pmu(&e->value_event));
    if (pmu && !f->pmu_usable) {
        nb_snprintf(line, cap, "SKIPPED %s: %s: no PMU (%s)", benchmark, event,
                    f->no_pmu_why && f->no_pmu_why[0] ? f->no_pmu_why : "none usable");
        return CHECK_SKIPPED;
    }
    if (e->condition == EXPECT_IF_UARCH) {
        bool match = false;
        for (unsigned k = 0; k < e->uarch.n && f->uarch; k++)
            match |= nb_strcmp(e->uarch.name[k], f->uarch) == 0;
        if (!match) {
            char names[EXPECT_NAMES_MAX * EXPECT_NAME_LEN];
            names_text(&e->uarch, names, sizeof(names));
            if (!f->uarch || !f->uarch[0])
                nb_snprintf(line, cap, "SKIPPED %s: %s: microarchitecture not in cpu_map.txt "
                                       "(value given for %s)", benchmark, event, names);
            else
                nb_snprintf(line, cap, "SKIPPED %s: %s: value given for %s, this is %s", benchmark,
                            event, names, f->uarch);
            return CHECK_SKIPPED;
        }
    }
    if (v->has_error) {
        nb_snprintf(line, cap, "FAIL %s: %s: the benchmark reported an error: %s", benchmark, event,
                    v->error);
        return CHECK_FAIL;
    }
    if (lhs < 0 || (e->value_is_event && rhs < 0)) {
        char names[EXPECT_NAMES_MAX * EXPECT_NAME_LEN];
        names_text(lhs < 0 ? &e->event : &e->value_event, names, sizeof(names));
        nb_snprintf(line, cap, "SKIPPED %s: %s: event not measured on this CPU (%s)", benchmark,
                    event, names);
        return CHECK_SKIPPED;
    }
    int64_t measured = v->value[lhs];
    int64_t expected = e->value_is_event ? v->value[rhs] : e->value;
    int64_t diff = measured > expected ? measured - expected : expected - measured;
    char got[32], want[EXPECT_NAME_LEN + 64];
    nb_format_centi(got, sizeof(got), measured);
    expected_text(e, v, rhs, want, sizeof(want));
    if (diff <= e->tolerance) {
        nb_snprintf(line, cap, "PASS %s: %s = %s (expected %s)", benchmark, event, got, want);
        return CHECK_PASS;
    }
    nb_snprintf(line, cap, "FAIL %s: %s = %s, expected %s", benchmark, event, got, want);
    return CHECK_FAIL;
}

const char *check_status_name(enum check_status s)
{
    switch (s) {
    case CHECK_PASS: return "PASS";
    case CHECK_FAIL: return "FAIL";
    default: return "SKIPPED";
    }
}

void selftest_add(struct selftest *t, enum check_status status, const char *benchmark,
                  const char *event)
{
    if (status == CHECK_PASS) {
        t->n_pass++;
        return;
    }
    if (status == CHECK_SKIPPED) {
        t->n_skip++;
        return;
    }
    t->n_fail++;
    size_t room = sizeof(t->failed) - t->failed_len;
    if (room <= 4)
        return;
    size_t n = nb_snprintf(t->failed + t->failed_len, room, "%s%s: %s", t->failed_len ? ", " : "",
                           benchmark, event);
    if (n >= room) {
        /* Out of room: end the list with "..." so a cut name is never mistaken for a whole one. */
        nb_memcpy(t->failed + sizeof(t->failed) - 4, "...", 4);
        t->failed_len = sizeof(t->failed) - 1;
        return;
    }
    t->failed_len += n;
}

size_t selftest_summary(const struct selftest *t, char *buf, size_t cap)
{
    unsigned total = t->n_pass + t->n_fail + t->n_skip;
    size_t n = nb_snprintf(buf, cap, "selftest: PASS %u/%u, %u failed", t->n_pass, total, t->n_fail);
    if (t->n_fail && n < cap)
        n += nb_snprintf(buf + n, cap - n, " (%s)", t->failed);
    if (n < cap)
        n += nb_snprintf(buf + n, cap - n, ", %u skipped", t->n_skip);
    return n;
}
