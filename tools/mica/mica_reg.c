/*
 * mica_reg.c — see mica_reg.h.
 */
#include "mica_reg.h"

#include <stdlib.h>
#include <string.h>

#include "mica_lines.h"

#define OP_SLOTS 7      /* MICA's opCount[7] */
#define DIST_MAX 128    /* useDist/ageDist clamp at 127 */

struct mica_reg {
    uint64_t last_write[MICA_MAX_REG_ID]; /* P: N_all of the last writer */
    uint64_t uses[MICA_MAX_REG_ID];       /* U: reads since that write */
    bool referenced[MICA_MAX_REG_ID];
    uint64_t op_count[OP_SLOTS];
    uint64_t use_dist[DIST_MAX];
    uint64_t age_dist[DIST_MAX];
};

struct mica_reg *mica_reg_new(void)
{
    return mica_xcalloc(1, sizeof(struct mica_reg));
}

void mica_reg_record(struct mica_reg *s, const struct mica_rec *r, uint64_t n_all)
{
    /* Reads first, so `add rax, rbx` counts its own read as a use of the old RAX. */
    for (unsigned i = 0; i < r->n_regs_read; i++) {
        unsigned id = r->regs_read[i];
        uint64_t age = n_all - s->last_write[id];
        s->age_dist[age < DIST_MAX ? age : DIST_MAX - 1]++;
        s->uses[id]++;
        s->referenced[id] = true;
    }
    for (unsigned i = 0; i < r->n_regs_written; i++) {
        unsigned id = r->regs_written[i];
        /* The old value dies; a first write of a fresh register records nothing. */
        if (s->referenced[id])
            s->use_dist[s->uses[id] < DIST_MAX ? s->uses[id] : DIST_MAX - 1]++;
        s->last_write[id] = n_all;
        s->uses[id] = 0;
        s->referenced[id] = true;
    }
    /* 7 or more operands overflow MICA's array (Q4): counted as 0 operands. */
    if (r->n_reg_operands < OP_SLOTS)
        s->op_count[r->n_reg_operands]++;
}

void mica_reg_line(const struct mica_reg *s, uint64_t first, uint64_t *v)
{
    uint64_t operands = 0, values = 0, uses = 0, reads = 0;
    for (unsigned i = 1; i < OP_SLOTS; i++)
        operands += i * s->op_count[i];
    for (unsigned i = 0; i < DIST_MAX; i++) {
        values += s->use_dist[i];
        uses += i * s->use_dist[i];
        reads += s->age_dist[i];
    }
    v[0] = first;
    v[1] = operands;
    v[2] = values;
    v[3] = uses;
    v[4] = reads;
    /* cum(D) for D = 1, 2, 4, ..., 64; age 0 included although it cannot occur. */
    uint64_t cum = 0;
    unsigned age = 0;
    for (unsigned k = 0, d = 1; k < 7; k++, d *= 2) {
        for (; age <= d; age++)
            cum += s->age_dist[age];
        v[5 + k] = cum;
    }
}

void mica_reg_reset(struct mica_reg *s)
{
    memset(s->op_count, 0, sizeof(s->op_count));
    memset(s->use_dist, 0, sizeof(s->use_dist));
    memset(s->age_dist, 0, sizeof(s->age_dist));
}

void mica_reg_free(struct mica_reg *s)
{
    free(s);
}
