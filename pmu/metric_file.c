/*
 * metric_file.c — metric files: parsing, groups, evaluation (see metric_file.h).
 */
#include "metric_file.h"
#include "nb_text.h"

const char *const metric_const_names[METRIC_CONST_COUNT] = {
    "tsc_hz", "issue_width", "peak_flop_per_cycle", "N1", "N2", "N3", "N4",
};

struct parse_state {
    struct metric_file *f;
    const char *path;
    metric_error_fn on_error;
    void *arg;
    unsigned line;
    bool ok;
};

static void error(struct parse_state *s, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error(struct parse_state *s, unsigned line, const char *fmt, ...)
{
    char message[240];
    size_t n = nb_snprintf(message, sizeof(message), "%s:%u: ", s->path, line);
    va_list ap;
    va_start(ap, fmt);
    if (n < sizeof(message))
        nb_vsnprintf(message + n, sizeof(message) - n, fmt, ap);
    va_end(ap);
    s->ok = false;
    if (s->on_error)
        s->on_error(s->arg, message);
}

static bool name_char(char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.'));
}

static bool same(const char *name, const char *s, size_t len)
{
    return nb_strlen(name) == len && nb_strncmp(name, s, len) == 0;
}

static int const_index(const char *s, size_t len)
{
    for (int i = 0; i < METRIC_CONST_COUNT; i++)
        if (same(metric_const_names[i], s, len))
            return i;
    return -1;
}

/* Identifier table entry for a name (kinds are settled after the whole file is read). */
static int ident(void *arg, const char *name, size_t len, char *err, size_t cap)
{
    struct metric_file *f = arg;
    for (unsigned i = 0; i < f->n_idents; i++)
        if (same(f->idents[i].name, name, len))
            return (int)i;
    if (len >= METRIC_NAME_MAX) {
        nb_snprintf(err, cap, "name '%.40s...' too long (at most %u characters)", name,
                    METRIC_NAME_MAX - 1);
        return -1;
    }
    if (f->n_idents >= METRIC_IDENT_MAX) {
        nb_snprintf(err, cap, "too many different names (at most %u per file)", METRIC_IDENT_MAX);
        return -1;
    }
    struct metric_ident *id = &f->idents[f->n_idents];
    nb_memcpy(id->name, name, len);
    id->name[len] = '\0';
    id->kind = METRIC_ID_EVENT;
    id->index = 0;
    return (int)f->n_idents++;
}

int metric_file_find(const struct metric_file *f, const char *name)
{
    for (unsigned i = 0; i < f->n_metrics; i++)
        if (nb_strcmp(f->metrics[i].name, name) == 0)
            return (int)i;
    return -1;
}

int metric_file_group(const struct metric_file *f, const char *name)
{
    for (unsigned i = 0; i < f->n_groups; i++)
        if (nb_strcmp(f->groups[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Reads a name at *p; returns its length (0: none). */
static size_t take_name(const char **p, const char *end)
{
    const char *s = *p;
    if (s >= end || !name_char(*s, true))
        return 0;
    while (s < end && name_char(*s, false))
        s++;
    size_t n = (size_t)(s - *p);
    *p = s;
    return n;
}

static void skip_blank(const char **p, const char *end)
{
    while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r'))
        (*p)++;
}

static void parse_config(struct parse_state *s, const char *p, const char *end)
{
    struct metric_file *f = s->f;
    for (;;) {
        skip_blank(&p, end);
        if (p >= end)
            break;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        size_t n = (size_t)(p - w);
        if (f->n_configs >= METRIC_CONFIG_MAX) {
            error(s, s->line, "too many configs (at most %u)", METRIC_CONFIG_MAX);
            return;
        }
        if (n >= METRIC_CONFIG_NAME_MAX) {
            error(s, s->line, "config name too long (at most %u characters)", METRIC_CONFIG_NAME_MAX - 1);
            return;
        }
        nb_memcpy(f->configs[f->n_configs], w, n);
        f->configs[f->n_configs++][n] = '\0';
    }
    if (f->n_configs == 0)
        error(s, s->line, "config: name at least one event config");
}

/* "const NAME = NUMBER" (p after "const"). */
static void parse_const(struct parse_state *s, const char *p, const char *end)
{
    struct metric_file *f = s->f;
    skip_blank(&p, end);
    const char *name = p;
    size_t n = take_name(&p, end);
    int c = const_index(name, n);
    if (c < 0) {
        error(s, s->line, "const: '%.*s' is not a machine constant (tsc_hz, issue_width, "
                          "peak_flop_per_cycle, N1..N4)", (int)(n > 40 ? 40 : n), name);
        return;
    }
    skip_blank(&p, end);
    if (p >= end || *p != '=') {
        error(s, s->line, "const: expected '=' after %s", metric_const_names[c]);
        return;
    }
    p++;
    /* A number is an expression of one term; reuse the parser. */
    struct metric_expr e;
    char err[160];
    if (!metric_expr_parse(p, (size_t)(end - p), &e, ident, f, err, sizeof(err))) {
        error(s, s->line, "%s", err);
        return;
    }
    bool negative = e.n == 2 && e.ops[1].kind == MOP_NEG;
    if (e.ops[0].kind != MOP_NUM || !(e.n == 1 || negative)) {
        error(s, s->line, "const: %s must be a number", metric_const_names[c]);
        return;
    }
    if (f->const_set[c]) {
        error(s, s->line, "const %s is already set (line %u)", metric_const_names[c], f->const_line[c]);
        return;
    }
    f->const_set[c] = true;
    f->const_value[c] = negative ? -e.ops[0].num : e.ops[0].num;
    f->const_line[c] = s->line;
}

/* "group NAME: METRIC..." (p after "group"); members are checked once every metric is known. */
static void parse_group(struct parse_state *s, const char *p, const char *end)
{
    struct metric_file *f = s->f;
    skip_blank(&p, end);
    const char *name = p;
    size_t n = take_name(&p, end);
    skip_blank(&p, end);
    if (n == 0 || n >= METRIC_NAME_MAX || p >= end || *p != ':') {
        error(s, s->line, "expected group NAME: METRIC...");
        return;
    }
    p++;
    for (unsigned i = 0; i < f->n_groups; i++)
        if (same(f->groups[i].name, name, n)) {
            error(s, s->line, "group %s is already defined (line %u)", f->groups[i].name,
                  f->groups[i].line);
            return;
        }
    if (f->n_groups >= METRIC_GROUP_MAX) {
        error(s, s->line, "too many groups (at most %u)", METRIC_GROUP_MAX);
        return;
    }
    struct metric_group *g = &f->groups[f->n_groups];
    nb_memcpy(g->name, name, n);
    g->name[n] = '\0';
    g->line = s->line;
    g->n = 0;
    for (;;) {
        skip_blank(&p, end);
        if (p >= end)
            break;
        const char *m = p;
        size_t len = take_name(&p, end);
        if (len == 0 || (p < end && *p != ' ' && *p != '\t' && *p != '\r')) {
            error(s, s->line, "group %s: bad metric name", g->name);
            return;
        }
        char err[8];
        int id = ident(f, m, len, err, sizeof(err));
        if (id < 0 || g->n >= METRIC_GROUP_MEMBERS) {
            error(s, s->line, "group %s: too many metrics (at most %u)", g->name, METRIC_GROUP_MEMBERS);
            return;
        }
        g->member[g->n++] = (uint8_t)id; /* an identifier for now: a metric index after the file */
    }
    if (g->n == 0) {
        error(s, s->line, "group %s has no metrics", g->name);
        return;
    }
    f->n_groups++;
}

/* The next free metric slot for `name`, or NULL after an error (bad, taken or built-in name, file full). */
static struct metric_def *new_metric(struct parse_state *s, const char *name, size_t n)
{
    struct metric_file *f = s->f;
    if (n >= METRIC_NAME_MAX) {
        error(s, s->line, "metric name too long (at most %u characters)", METRIC_NAME_MAX - 1);
        return NULL;
    }
    for (unsigned i = 0; i < f->n_metrics; i++)
        if (same(f->metrics[i].name, name, n)) {
            error(s, s->line, "metric %s is already defined (line %u)", f->metrics[i].name,
                  f->metrics[i].line);
            return NULL;
        }
    if (same("RDTSC", name, n) || const_index(name, n) >= 0) {
        error(s, s->line, "%.*s is a built-in name, not a metric (use const for constants)", (int)n, name);
        return NULL;
    }
    if (f->n_metrics >= METRIC_MAX) {
        error(s, s->line, "too many metrics (at most %u)", METRIC_MAX);
        return NULL;
    }
    struct metric_def *m = &f->metrics[f->n_metrics];
    nb_memset(m, 0, sizeof(*m));
    return m;
}

/*
 * "na NAME: REASON" (p after "na"): a metric whose inputs this CPU lacks. It
 * prints n/a with REASON instead of a guessed number (an empty expression,
 * so it needs no events).
 */
static void parse_na(struct parse_state *s, const char *p, const char *end)
{
    skip_blank(&p, end);
    const char *name = p;
    size_t n = take_name(&p, end);
    skip_blank(&p, end);
    if (n == 0 || p >= end || *p != ':') {
        error(s, s->line, "expected na NAME: REASON");
        return;
    }
    p++;
    skip_blank(&p, end);
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    size_t len = (size_t)(end - p);
    if (len == 0) {
        error(s, s->line, "na %.*s: the reason is missing", (int)(n > 40 ? 40 : n), name);
        return;
    }
    if (len >= METRIC_WHY_MAX) {
        error(s, s->line, "na %.*s: reason too long (at most %u characters)", (int)(n > 40 ? 40 : n), name,
              METRIC_WHY_MAX - 1);
        return;
    }
    struct metric_def *m = new_metric(s, name, n);
    if (!m)
        return;
    nb_memcpy(m->name, name, n);
    m->name[n] = '\0';
    nb_memcpy(m->na_why, p, len);
    m->na_why[len] = '\0';
    m->line = s->line;
    s->f->n_metrics++;
}

static void parse_metric(struct parse_state *s, const char *name, size_t n, const char *p, const char *end)
{
    struct metric_file *f = s->f;
    struct metric_def *m = new_metric(s, name, n);
    if (!m)
        return;
    char err[160];
    if (!metric_expr_parse(p, (size_t)(end - p), &m->expr, ident, f, err, sizeof(err))) {
        error(s, s->line, "%s", err);
        return;
    }
    nb_memcpy(m->name, name, n);
    m->name[n] = '\0';
    m->line = s->line;
    f->n_metrics++;
}

static void parse_line(struct parse_state *s, const char *p, const char *end)
{
    skip_blank(&p, end);
    if (p >= end)
        return;
    const char *word = p;
    size_t n = take_name(&p, end);
    bool spaced = p < end && (*p == ' ' || *p == '\t');
    if (n == 6 && nb_strncmp(word, "config", 6) == 0 && spaced)
        return parse_config(s, p, end);
    if (n == 5 && nb_strncmp(word, "const", 5) == 0 && spaced)
        return parse_const(s, p, end);
    if (n == 5 && nb_strncmp(word, "group", 5) == 0 && spaced)
        return parse_group(s, p, end);
    if (n == 2 && nb_strncmp(word, "na", 2) == 0 && spaced)
        return parse_na(s, p, end);
    const char *after = p;
    skip_blank(&after, end);
    if (n > 0 && after < end && *after == '=')
        return parse_metric(s, word, n, after + 1, end);
    error(s, s->line, "expected NAME = EXPR, na NAME: REASON, group NAME: METRIC..., const NAME = NUMBER "
                      "or config FILE...");
}

/* Depth-first search for a metric that reaches itself; writes the path when found. */
static bool cyclic(const struct metric_file *f, unsigned m, uint8_t *state, uint8_t *path,
                   unsigned depth, unsigned *cycle_len)
{
    if (state[m] == 2)
        return false;
    path[depth] = (uint8_t)m;
    if (state[m] == 1) {
        *cycle_len = depth + 1;
        return true;
    }
    state[m] = 1;
    const struct metric_expr *e = &f->metrics[m].expr;
    for (unsigned i = 0; i < e->n; i++) {
        const struct metric_ident *id = &f->idents[e->ops[i].id];
        if (e->ops[i].kind == MOP_ID && id->kind == METRIC_ID_METRIC &&
            depth + 1 < METRIC_MAX + 1 && cyclic(f, id->index, state, path, depth + 1, cycle_len))
            return true;
    }
    state[m] = 2;
    return false;
}

/* After the whole file: kinds of names, group members, cycles. */
static void settle(struct parse_state *s)
{
    struct metric_file *f = s->f;
    for (unsigned i = 0; i < f->n_idents; i++) {
        struct metric_ident *id = &f->idents[i];
        int m = metric_file_find(f, id->name);
        int c = const_index(id->name, nb_strlen(id->name));
        if (m >= 0)
            *id = (struct metric_ident){ .kind = METRIC_ID_METRIC, .index = (uint8_t)m };
        else if (nb_strcmp(id->name, "RDTSC") == 0)
            id->kind = METRIC_ID_TSC;
        else if (c >= 0)
            *id = (struct metric_ident){ .kind = METRIC_ID_CONST, .index = (uint8_t)c };
        if (m >= 0 || c >= 0)
            nb_snprintf(id->name, sizeof(id->name), "%s", m >= 0 ? f->metrics[m].name : metric_const_names[c]);
    }
    for (unsigned g = 0; g < f->n_groups; g++) {
        struct metric_group *grp = &f->groups[g];
        for (unsigned k = 0; k < grp->n; k++) {
            const struct metric_ident *id = &f->idents[grp->member[k]];
            if (id->kind != METRIC_ID_METRIC) {
                error(s, grp->line, "group %s: no metric %s", grp->name, id->name);
                grp->member[k] = 0;
                continue;
            }
            grp->member[k] = id->index;
        }
    }
    uint8_t state[METRIC_MAX] = { 0 }, path[METRIC_MAX + 1];
    for (unsigned m = 0; m < f->n_metrics; m++) {
        unsigned len = 0;
        if (state[m] != 0 || !cyclic(f, m, state, path, 0, &len))
            continue;
        /* path[len-1] repeats an earlier entry: print from that entry. */
        unsigned from = 0;
        while (path[from] != path[len - 1])
            from++;
        char text[200];
        size_t n = 0;
        for (unsigned i = from; i < len && n < sizeof(text); i++)
            n += nb_snprintf(text + n, sizeof(text) - n, "%s%s", i > from ? " -> " : "",
                             f->metrics[path[i]].name);
        error(s, f->metrics[path[from]].line, "metric %s depends on itself (%s)",
              f->metrics[path[from]].name, text);
        /* Break the cycle so evaluation can never recurse forever. */
        f->metrics[path[from]].expr.n = 0;
        nb_memset(state, 0, sizeof(state));
        m = (unsigned)-1;
    }
}

bool metric_file_parse(const char *text, size_t len, const char *path, struct metric_file *f,
                       metric_error_fn on_error, void *arg)
{
    nb_memset(f, 0, sizeof(*f));
    struct parse_state s = { f, path, on_error, arg, 0, true };
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = p, *stop;
        while (eol < end && *eol != '\n')
            eol++;
        for (stop = p; stop < eol && *stop != '#'; stop++)
            ;
        s.line++;
        bool nul = false;
        for (const char *q = p; q < eol; q++)
            nul |= *q == '\0';
        if (nul)
            error(&s, s.line, "NUL byte in line");
        else
            parse_line(&s, p, stop);
        p = eol < end ? eol + 1 : eol;
    }
    settle(&s);
    return s.ok;
}

static void mark_inputs(const struct metric_file *f, unsigned m, bool *need, unsigned depth)
{
    const struct metric_expr *e = &f->metrics[m].expr;
    for (unsigned i = 0; i < e->n; i++) {
        if (e->ops[i].kind != MOP_ID)
            continue;
        const struct metric_ident *id = &f->idents[e->ops[i].id];
        need[e->ops[i].id] = true;
        if (id->kind == METRIC_ID_METRIC && depth < METRIC_MAX)
            mark_inputs(f, id->index, need, depth + 1);
    }
}

void metric_file_group_inputs(const struct metric_file *f, unsigned g, bool need[METRIC_IDENT_MAX])
{
    const struct metric_group *grp = &f->groups[g];
    for (unsigned k = 0; k < grp->n; k++)
        mark_inputs(f, grp->member[k], need, 0);
}

struct eval {
    const struct metric_file *f;
    metric_input_fn input;
    void *arg;
    unsigned depth;
};

static struct metric_value eval_metric(struct eval *ev, unsigned m);

static struct metric_value lookup(void *arg, unsigned id_index)
{
    struct eval *ev = arg;
    const struct metric_ident *id = &ev->f->idents[id_index];
    if (id->kind == METRIC_ID_METRIC)
        return eval_metric(ev, id->index);
    if (id->kind == METRIC_ID_CONST && ev->f->const_set[id->index])
        return (struct metric_value){ true, ev->f->const_value[id->index], NULL };
    return ev->input(ev->arg, id);
}

static struct metric_value eval_metric(struct eval *ev, unsigned m)
{
    if (ev->depth > METRIC_MAX)
        return (struct metric_value){ false, 0, "metrics nested too deeply" };
    if (ev->f->metrics[m].na_why[0])
        return (struct metric_value){ false, 0, ev->f->metrics[m].na_why };
    ev->depth++;
    struct metric_value v = metric_expr_eval(&ev->f->metrics[m].expr, lookup, ev);
    ev->depth--;
    return v;
}

struct metric_value metric_file_eval(const struct metric_file *f, unsigned metric,
                                     metric_input_fn input, void *arg)
{
    struct eval ev = { f, input, arg, 0 };
    return eval_metric(&ev, metric);
}

int metric_fixed_counter(enum cpu_vendor vendor, const char *name)
{
    static const char *const intel[] = { "INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
                                         "CPU_CLK_UNHALTED.REF_TSC" };
    static const char *const amd[] = { "MPERF", "APERF" }; /* the order of amd_fixed_reads */
    const char *const *names = vendor == VENDOR_INTEL ? intel : vendor == VENDOR_AMD ? amd : NULL;
    size_t n = vendor == VENDOR_INTEL ? 3 : vendor == VENDOR_AMD ? 2 : 0;
    for (size_t i = 0; i < n; i++)
        if (nb_strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

size_t metric_format(char *buf, size_t cap, struct metric_value v)
{
    if (!v.known || v.v > 9e16 || v.v < -9e16)
        return nb_snprintf(buf, cap, "n/a");
    double scaled = v.v * 100;
    int64_t centi = (int64_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
    return nb_format_centi(buf, cap, centi);
}
