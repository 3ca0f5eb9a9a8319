/*
 * mica_ppm.c — see mica_ppm.h.
 *
 * GAg and PAg are real PPM predictors: H+1 tables of 2^i signed counters,
 * the longest non-empty (nonzero) order predicts, update exclusion from that
 * order up. GAs and PAs have one table set per static branch whose counters
 * start at -1 and never become 0, so their lookup always stops at order H and
 * only order H is ever updated (§4.2): they are kept as one 2^H table per
 * branch, which gives the same numbers with a fraction of the memory.
 */
#include "mica_ppm.h"

#include <stdlib.h>
#include <string.h>

#include "mica_lines.h"
#include "mica_map.h"

const unsigned mica_ppm_history[MICA_PPM_HISTORIES] = { 12, 8, 4 };

enum { GAG, PAG, GAS, PAS, N_KINDS };

struct ppm_shared {         /* GAg or PAg for one H */
    int8_t *table[13];      /* table i: 2^i counters; 0 = empty */
    bool last_pred;         /* kept when every order is empty */
    unsigned last_order;
};

struct branch {
    uint64_t local;         /* local history, newest outcome in bit 0 */
    bool has_prev, prev;
    uint64_t n, taken, transitions;
    int8_t *pattern[MICA_PPM_HISTORIES][2]; /* GAs, PAs: 2^H counters from -1 */
};

struct mica_ppm {
    uint64_t global;
    struct ppm_shared shared[MICA_PPM_HISTORIES][2];
    uint64_t miss[MICA_PPM_HISTORIES][N_KINDS];
    struct mica_map ids;    /* branch address -> index */
    struct branch *br;
    size_t n_br, cap_br;
};

struct mica_ppm *mica_ppm_new(void)
{
    struct mica_ppm *s = mica_xcalloc(1, sizeof(*s));
    for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++)
        for (unsigned k = 0; k < 2; k++)
            for (unsigned i = 0; i <= mica_ppm_history[h]; i++)
                s->shared[h][k].table[i] = mica_xcalloc((size_t)1 << i, 1);
    return s;
}

/* One step toward the outcome, skipping 0, saturating at +-127. */
static void step(int8_t *c, bool taken)
{
    if (taken && *c < 127) {
        if (++*c == 0)
            ++*c;
    } else if (!taken && *c > -127) {
        if (--*c == 0)
            --*c;
    }
}

static bool predict_shared(struct ppm_shared *p, unsigned H, uint64_t hist, bool taken)
{
    for (int i = (int)H; i >= 0; i--) {
        int8_t c = p->table[i][hist & (((uint64_t)1 << i) - 1)];
        if (c != 0) {
            p->last_pred = c > 0;
            p->last_order = (unsigned)i;
            break;
        }
    }
    bool miss = p->last_pred != taken;
    for (unsigned i = p->last_order; i <= H; i++)
        step(&p->table[i][hist & (((uint64_t)1 << i) - 1)], taken);
    return miss;
}

static bool predict_pattern(int8_t *table, unsigned H, uint64_t hist, bool taken)
{
    int8_t *c = &table[hist & (((uint64_t)1 << H) - 1)];
    bool miss = (*c > 0) != taken;
    step(c, taken);
    return miss;
}

static struct branch *branch_of(struct mica_ppm *s, uint64_t pc)
{
    bool fresh;
    uint32_t *v = mica_map_put(&s->ids, pc, &fresh);
    if (fresh) {
        if (s->n_br == s->cap_br) {
            s->cap_br = s->cap_br ? 2 * s->cap_br : 64;
            s->br = realloc(s->br, s->cap_br * sizeof(*s->br));
            if (!s->br)
                abort();
        }
        struct branch *b = &s->br[s->n_br];
        memset(b, 0, sizeof(*b));
        for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++)
            for (unsigned k = 0; k < 2; k++) {
                size_t n = (size_t)1 << mica_ppm_history[h];
                b->pattern[h][k] = mica_xcalloc(n, 1);
                memset(b->pattern[h][k], -1, n);
            }
        *v = (uint32_t)s->n_br++;
    }
    return &s->br[*v];
}

void mica_ppm_record(struct mica_ppm *s, const struct mica_rec *r)
{
    if (r->category != MICA_CAT_COND_BR)
        return;
    struct branch *b = branch_of(s, r->pc);
    bool t = r->taken;
    for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++) {
        unsigned H = mica_ppm_history[h];
        s->miss[h][GAG] += predict_shared(&s->shared[h][0], H, s->global, t);
        s->miss[h][PAG] += predict_shared(&s->shared[h][1], H, b->local, t);
        s->miss[h][GAS] += predict_pattern(b->pattern[h][0], H, s->global, t);
        s->miss[h][PAS] += predict_pattern(b->pattern[h][1], H, b->local, t);
    }
    s->global = (s->global << 1) | t;
    b->local = (b->local << 1) | t;
    b->n++;
    b->taken += t;
    if (b->has_prev && b->prev != t)
        b->transitions++;
    b->has_prev = true;
    b->prev = t;
}

/* MICA: "if value > n/2 use n - value", i.e. min(value, n - value). */
static uint64_t fold(uint64_t value, uint64_t n)
{
    return value > n / 2 ? n - value : value;
}

void mica_ppm_line(const struct mica_ppm *s, uint64_t first, uint64_t *v)
{
    *v++ = first;
    for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++)
        for (unsigned k = 0; k < N_KINDS; k++)
            *v++ = s->miss[h][k];
    uint64_t n = 0, x = 0, t = 0;
    for (size_t i = 0; i < s->n_br; i++) {
        const struct branch *b = &s->br[i];
        n += b->n;
        x += fold(b->transitions, b->n);
        t += fold(b->taken, b->n);
    }
    *v++ = n;
    *v++ = x;
    *v = t;
}

void mica_ppm_reset(struct mica_ppm *s)
{
    memset(s->miss, 0, sizeof(s->miss));
    for (size_t i = 0; i < s->n_br; i++)
        s->br[i].n = s->br[i].taken = s->br[i].transitions = 0;
}

void mica_ppm_free(struct mica_ppm *s)
{
    if (!s)
        return;
    for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++)
        for (unsigned k = 0; k < 2; k++)
            for (unsigned i = 0; i <= mica_ppm_history[h]; i++)
                free(s->shared[h][k].table[i]);
    for (size_t i = 0; i < s->n_br; i++)
        for (unsigned h = 0; h < MICA_PPM_HISTORIES; h++)
            for (unsigned k = 0; k < 2; k++)
                free(s->br[i].pattern[h][k]);
    free(s->br);
    mica_map_free(&s->ids);
    free(s);
}
