/*
 * mica_itypes.c — see mica_itypes.h.
 */
#include "mica_itypes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica_lines.h"

enum ident_type { ID_CATEGORY, ID_OPCODE, ID_SPECIAL };
enum { SPECIAL_MEM_READ, SPECIAL_MEM_WRITE };

struct ident {
    enum ident_type type;
    int value;          /* category or special */
    char *name;         /* opcode */
    unsigned group;
};

struct mica_itypes_spec {
    size_t n_groups;
    bool is_default;
    struct ident *ids;
    size_t n_ids;
    char names[MICA_ITYPES_MAX_GROUPS + 1][24];
};

/* [M]'s built-in groups, written in the spec grammar. */
static const char default_text[] =
    "0, 0, SPECIAL, mem_read\n"
    "1, 0, SPECIAL, mem_write\n"
    "2, 0, CATEGORY, COND_BR\n2, 1, CATEGORY, UNCOND_BR\n2, 2, OPCODE, LEAVE\n"
    "2, 3, OPCODE, RET_NEAR\n2, 4, OPCODE, CALL_NEAR\n"
    "3, 0, CATEGORY, LOGICAL\n3, 1, CATEGORY, DATAXFER\n3, 2, CATEGORY, BINARY\n"
    "3, 3, CATEGORY, FLAGOP\n3, 4, CATEGORY, BITBYTE\n"
    "4, 0, CATEGORY, X87_ALU\n4, 1, CATEGORY, FCMOV\n"
    "5, 0, CATEGORY, POP\n5, 1, CATEGORY, PUSH\n"
    "6, 0, CATEGORY, SHIFT\n"
    "7, 0, CATEGORY, STRINGOP\n"
    "8, 0, CATEGORY, MMX\n8, 1, CATEGORY, SSE\n"
    "9, 0, CATEGORY, INTERRUPT\n9, 1, CATEGORY, ROTATE\n9, 2, CATEGORY, SEMAPHORE\n"
    "9, 3, CATEGORY, CMOV\n9, 4, CATEGORY, SYSTEM\n9, 5, CATEGORY, MISC\n"
    "9, 6, CATEGORY, PREFETCH\n9, 7, CATEGORY, SYSCALL\n"
    "10, 0, CATEGORY, WIDENOP\n10, 1, CATEGORY, NOP\n";

static const char *const default_names[] = { "mem_read", "mem_write", "control", "arith",
                                             "fp",       "stack",     "shift",   "string",
                                             "sse",      "system",    "nop" };

static int fail(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, errlen, "%s:%u: ", file, line);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The next comma-separated field of [*p, end) without surrounding blanks. */
static bool field(const char **p, const char *end, char *out, size_t outlen, bool last)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    const char *e = s;
    while (e < end && *e != ',')
        e++;
    if (!last && e == end)
        return false;
    if (last && e != end)
        return false; /* a fifth field */
    const char *t = e;
    while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
        t--;
    if (t == s || (size_t)(t - s) >= outlen)
        return false;
    memcpy(out, s, (size_t)(t - s));
    out[t - s] = 0;
    *p = e < end ? e + 1 : e;
    return true;
}

static bool number(const char *s, unsigned long *v)
{
    char *e;
    if (*s < '0' || *s > '9')
        return false;
    *v = strtoul(s, &e, 10);
    return *e == 0 && *v < 1000000;
}

int mica_itypes_spec_parse(const char *text, size_t len, const char *file,
                           struct mica_itypes_spec **out, char *err, size_t errlen)
{
    struct mica_itypes_spec *spec = mica_xcalloc(1, sizeof(*spec));
    size_t cap = 0;
    unsigned line = 0;
    long group = -1;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        line++;
        const char *s = p;
        p = eol < end ? eol + 1 : end;
        while (s < eol && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == eol || *s == '#')
            continue;
        char f[4][64];
        const char *q = s;
        for (unsigned i = 0; i < 4; i++)
            if (!field(&q, eol, f[i], sizeof(f[i]), i == 3)) {
                fail(err, errlen, file, line,
                     "expected `<group>, <index>, CATEGORY|OPCODE|SPECIAL, <name>`");
                goto bad;
            }
        unsigned long g, idx;
        if (!number(f[0], &g) || !number(f[1], &idx)) {
            fail(err, errlen, file, line, "group and index must be numbers");
            goto bad;
        }
        if ((long)g != group && (long)g != group + 1) {
            fail(err, errlen, file, line, "group %lu after group %ld: groups must start at 0 "
                 "and go up one at a time", g, group);
            goto bad;
        }
        if (g >= MICA_ITYPES_MAX_GROUPS) {
            fail(err, errlen, file, line, "more than %d groups", MICA_ITYPES_MAX_GROUPS);
            goto bad;
        }
        group = (long)g;
        struct ident id = { .group = (unsigned)g };
        if (strcmp(f[2], "CATEGORY") == 0) {
            id.type = ID_CATEGORY;
            id.value = mica_category_from_name(f[3]);
            if (id.value < 0) {
                fail(err, errlen, file, line, "unknown XED category `%s`", f[3]);
                goto bad;
            }
        } else if (strcmp(f[2], "OPCODE") == 0) {
            id.type = ID_OPCODE;
            id.name = strdup(f[3]);
        } else if (strcmp(f[2], "SPECIAL") == 0) {
            id.type = ID_SPECIAL;
            if (strcmp(f[3], "mem_read") == 0)
                id.value = SPECIAL_MEM_READ;
            else if (strcmp(f[3], "mem_write") == 0)
                id.value = SPECIAL_MEM_WRITE;
            else {
                fail(err, errlen, file, line, "unknown SPECIAL `%s` (mem_read, mem_write)", f[3]);
                goto bad;
            }
        } else {
            fail(err, errlen, file, line, "type `%s` is not CATEGORY, OPCODE or SPECIAL", f[2]);
            goto bad;
        }
        if (spec->n_ids == cap) {
            cap = cap ? 2 * cap : 32;
            spec->ids = realloc(spec->ids, cap * sizeof(*spec->ids));
            if (!spec->ids)
                abort();
        }
        spec->ids[spec->n_ids++] = id;
    }
    if (group < 0) {
        fail(err, errlen, file, line, "no groups");
        goto bad;
    }
    spec->n_groups = (size_t)group + 1;
    for (size_t g = 0; g < spec->n_groups; g++)
        snprintf(spec->names[g], sizeof(spec->names[g]), "g%zu", g);
    snprintf(spec->names[spec->n_groups], sizeof(spec->names[0]), "other");
    *out = spec;
    return 0;
bad:
    mica_itypes_spec_free(spec);
    return -1;
}

const struct mica_itypes_spec *mica_itypes_default_spec(void)
{
    static struct mica_itypes_spec *spec;
    if (!spec) {
        char err[128];
        if (mica_itypes_spec_parse(default_text, sizeof(default_text) - 1, "(default)", &spec,
                                   err, sizeof(err)) != 0)
            abort();
        spec->is_default = true;
        for (size_t g = 0; g < spec->n_groups; g++)
            snprintf(spec->names[g], sizeof(spec->names[g]), "%s", default_names[g]);
    }
    return spec;
}

size_t mica_itypes_spec_groups(const struct mica_itypes_spec *spec)
{
    return spec->n_groups;
}

const char *mica_itypes_group_name(const struct mica_itypes_spec *spec, size_t g)
{
    return g <= spec->n_groups ? spec->names[g] : NULL;
}

void mica_itypes_spec_free(struct mica_itypes_spec *spec)
{
    if (!spec || spec->is_default)
        return;
    for (size_t i = 0; i < spec->n_ids; i++)
        free(spec->ids[i].name);
    free(spec->ids);
    free(spec);
}

struct mica_itypes {
    const struct mica_itypes_spec *spec;
    /* Groups matched by each category / special, as bit masks, so a record
     * costs a few ORs; only OPCODE identifiers need a string compare. */
    uint64_t by_category[MICA_N_CATEGORIES];
    uint64_t by_special[2];
    /* Groups matched by OPCODE identifiers, per iclass string (by address:
     * the decoder hands out one string per iclass), direct-mapped. */
    struct {
        const char *iclass;
        uint64_t mask;
    } by_iclass[256];
    bool has_opcodes;
    uint64_t count[MICA_ITYPES_MAX_GROUPS + 1];
    bool other_seen[MICA_N_CATEGORIES];
    uint8_t other_order[MICA_N_CATEGORIES];
    size_t n_other;
};

struct mica_itypes *mica_itypes_new(const struct mica_itypes_spec *spec)
{
    struct mica_itypes *s = mica_xcalloc(1, sizeof(*s));
    s->spec = spec ? spec : mica_itypes_default_spec();
    for (size_t i = 0; i < s->spec->n_ids; i++) {
        const struct ident *id = &s->spec->ids[i];
        if (id->type == ID_CATEGORY)
            s->by_category[id->value] |= 1ull << id->group;
        else if (id->type == ID_SPECIAL)
            s->by_special[id->value] |= 1ull << id->group;
        else if (id->type == ID_OPCODE)
            s->has_opcodes = true;
    }
    return s;
}

void mica_itypes_record(struct mica_itypes *s, const struct mica_rec *r)
{
    uint64_t m = r->category < MICA_N_CATEGORIES ? s->by_category[r->category] : 0;
    if (r->mem_read)
        m |= s->by_special[SPECIAL_MEM_READ];
    if (r->mem_write)
        m |= s->by_special[SPECIAL_MEM_WRITE];
    if (s->has_opcodes && r->iclass) {
        unsigned h = (unsigned)(((uintptr_t)r->iclass * 0x9E3779B97F4A7C15ull) >> 56);
        if (s->by_iclass[h].iclass != r->iclass) {
            uint64_t om = 0;
            for (size_t i = 0; i < s->spec->n_ids; i++) {
                const struct ident *id = &s->spec->ids[i];
                if (id->type == ID_OPCODE && strcmp(id->name, r->iclass) == 0)
                    om |= 1ull << id->group;
            }
            s->by_iclass[h].iclass = r->iclass;
            s->by_iclass[h].mask = om;
        }
        m |= s->by_iclass[h].mask;
    }
    if (m == 0) {
        /* Nothing matched, not even mem_read/mem_write (Q9). */
        s->count[s->spec->n_groups]++;
        if (r->category < MICA_N_CATEGORIES && !s->other_seen[r->category]) {
            s->other_seen[r->category] = true;
            s->other_order[s->n_other++] = r->category;
        }
        return;
    }
    while (m) {
        s->count[__builtin_ctzll(m)]++;
        m &= m - 1;
    }
}

void mica_itypes_line(const struct mica_itypes *s, uint64_t first, uint64_t *v)
{
    v[0] = first;
    memcpy(v + 1, s->count, (s->spec->n_groups + 1) * sizeof(uint64_t));
}

void mica_itypes_reset(struct mica_itypes *s)
{
    memset(s->count, 0, sizeof(s->count));
}

size_t mica_itypes_other(const struct mica_itypes *s, const char **names, size_t max)
{
    size_t n = s->n_other < max ? s->n_other : max;
    for (size_t i = 0; i < n; i++)
        names[i] = mica_category_name(s->other_order[i]);
    return n;
}

void mica_itypes_free(struct mica_itypes *s)
{
    free(s);
}
