/*
 * mica_run.c — see mica_run.h. The record order of MICA's calls (§1.2): the
 * counters first, then every analysis, then the common interval check (§10).
 */
#include "mica_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica_ilp.h"
#include "mica_itypes.h"
#include "mica_lines.h"
#include "mica_memfootprint.h"
#include "mica_ppm.h"
#include "mica_reg.h"
#include "mica_stackdist.h"
#include "mica_stride.h"

static const char *const analysis_names[MICA_N_ANALYSES] = {
    "itypes", "ilp", "ilp_one", "reg", "stride", "memfootprint", "memstackdist",
    "fullmemstackdist", "ppm",
};

/* MICA's ILP batch (§2.4): intervals must be a multiple of it. */
#define ILP_BATCH 200

const char *mica_analysis_name(enum mica_analysis a)
{
    return (unsigned)a < MICA_N_ANALYSES ? analysis_names[a] : "?";
}

void mica_options_default(struct mica_options *o)
{
    memset(o, 0, sizeof(*o));
    o->block_bits = 6;
    o->page_bits = 12;
    o->nop_mem = true;
}

int mica_options_set_list(struct mica_options *o, const char *list, char *err, size_t errlen)
{
    unsigned mask = 0;
    bool all = false;
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        unsigned a;
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            all = true;
        } else {
            for (a = 0; a < MICA_N_ANALYSES; a++)
                if (strlen(analysis_names[a]) == n && strncmp(p, analysis_names[a], n) == 0)
                    break;
            if (a == MICA_N_ANALYSES) {
                snprintf(err, errlen, "unknown MICA analysis `%.*s` (all, itypes, ilp, ilp_one, "
                         "reg, stride, memfootprint, memstackdist, fullmemstackdist, ppm)",
                         (int)n, p);
                return -1;
            }
            mask |= 1u << a;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (all) {
        /* MICA's mode `all` runs everything but ilp_one (it has no window size). */
        mask |= ((1u << MICA_N_ANALYSES) - 1) & ~(1u << MICA_ILP_ONE);
    }
    if (mask == 0) {
        snprintf(err, errlen, "no MICA analysis given");
        return -1;
    }
    o->mask = mask;
    o->all_mode = all;
    return 0;
}

int mica_options_check(const struct mica_options *o, char *err, size_t errlen)
{
    if (o->block_bits < 1 || o->block_bits > 30) {
        snprintf(err, errlen, "MICA block size 2^%u: must be 2^1 ... 2^30", o->block_bits);
        return -1;
    }
    if (o->page_bits < 1 || o->page_bits > 40) {
        snprintf(err, errlen, "MICA page size 2^%u: must be 2^1 ... 2^40", o->page_bits);
        return -1;
    }
    if ((o->mask & (1u << MICA_ILP_ONE)) && (o->ilp_size < 1 || o->ilp_size > 65536)) {
        snprintf(err, errlen, "ilp_one needs a window size (-mica_ilp_size 1 ... 65536)");
        return -1;
    }
    if ((o->all_mode || (o->mask & (1u << MICA_ILP | 1u << MICA_ILP_ONE))) && o->interval &&
        o->interval % ILP_BATCH != 0) {
        snprintf(err, errlen, "MICA interval %llu: ilp needs a multiple of %d",
                 (unsigned long long)o->interval, ILP_BATCH);
        return -1;
    }
    return 0;
}

struct mica_run {
    struct mica_options opt;
    uint64_t n_all, n_hpc, int_all, int_hpc;
    struct mica_itypes *itypes;
    struct mica_ilp *ilp, *ilp_one;
    struct mica_reg *reg;
    struct mica_stride *stride;
    struct mica_memfootprint *memfootprint;
    struct mica_stackdist *stackdist;
    struct mica_ppm *ppm;
    struct mica_lines lines[MICA_N_ANALYSES];
};

static bool on(const struct mica_run *r, enum mica_analysis a)
{
    return r->opt.mask & (1u << a);
}

struct mica_run *mica_run_new(const struct mica_options *o)
{
    static const unsigned ilp_windows[] = { 32, 64, 128, 256 };
    struct mica_run *r = mica_xcalloc(1, sizeof(*r));
    r->opt = *o;
    if (on(r, MICA_ITYPES))
        r->itypes = mica_itypes_new(o->itypes);
    if (on(r, MICA_ILP))
        r->ilp = mica_ilp_new(ilp_windows, 4, o->block_bits, o->interval, false);
    if (on(r, MICA_ILP_ONE))
        r->ilp_one = mica_ilp_new(&o->ilp_size, 1, o->block_bits, o->interval, true);
    if (on(r, MICA_REG))
        r->reg = mica_reg_new();
    if (on(r, MICA_STRIDE))
        r->stride = mica_stride_new();
    if (on(r, MICA_MEMFOOTPRINT))
        r->memfootprint = mica_memfootprint_new(o->block_bits, o->page_bits);
    if (on(r, MICA_MEMSTACKDIST) || on(r, MICA_FULLMEMSTACKDIST))
        r->stackdist = mica_stackdist_new(o->block_bits, !o->all_mode);
    if (on(r, MICA_PPM))
        r->ppm = mica_ppm_new();
    return r;
}

/* Lines of every analysis but ILP; first = the count itypes, ppm and reg print. */
static void emit(struct mica_run *r, uint64_t first)
{
    uint64_t v[MICA_FULLMEMSTACKDIST_FIELDS];
    if (r->itypes) {
        mica_itypes_line(r->itypes, first, v);
        mica_lines_push(&r->lines[MICA_ITYPES], v,
                        mica_itypes_spec_groups(r->opt.itypes ? r->opt.itypes
                                                              : mica_itypes_default_spec()) + 2);
    }
    if (r->reg) {
        mica_reg_line(r->reg, first, v);
        mica_lines_push(&r->lines[MICA_REG], v, MICA_REG_FIELDS);
    }
    if (r->stride) {
        mica_stride_line(r->stride, v);
        mica_lines_push(&r->lines[MICA_STRIDE], v, MICA_STRIDE_FIELDS);
    }
    if (r->memfootprint) {
        mica_memfootprint_line(r->memfootprint, v);
        mica_lines_push(&r->lines[MICA_MEMFOOTPRINT], v, MICA_MEMFOOTPRINT_FIELDS);
    }
    if (on(r, MICA_MEMSTACKDIST)) {
        mica_stackdist_line(r->stackdist, v);
        mica_lines_push(&r->lines[MICA_MEMSTACKDIST], v, MICA_MEMSTACKDIST_FIELDS);
    }
    if (on(r, MICA_FULLMEMSTACKDIST)) {
        mica_stackdist_full_line(r->stackdist, v);
        mica_lines_push(&r->lines[MICA_FULLMEMSTACKDIST], v, MICA_FULLMEMSTACKDIST_FIELDS);
    }
    if (r->ppm) {
        mica_ppm_line(r->ppm, first, v);
        mica_lines_push(&r->lines[MICA_PPM], v, MICA_PPM_FIELDS);
    }
}

static void reset(struct mica_run *r)
{
    if (r->itypes)
        mica_itypes_reset(r->itypes);
    if (r->reg)
        mica_reg_reset(r->reg);
    if (r->stride)
        mica_stride_reset(r->stride);
    if (r->memfootprint)
        mica_memfootprint_reset(r->memfootprint);
    if (r->stackdist)
        mica_stackdist_reset(r->stackdist);
    if (r->ppm)
        mica_ppm_reset(r->ppm);
}

void mica_run_record(struct mica_run *r, const struct mica_rec *rec)
{
    r->n_all++;
    r->int_all++;
    r->n_hpc += rec->counts_hpc;
    r->int_hpc += rec->counts_hpc;
    if (r->itypes)
        mica_itypes_record(r->itypes, rec);
    if (r->ilp)
        mica_ilp_record(r->ilp, rec, &r->lines[MICA_ILP]);
    if (r->ilp_one)
        mica_ilp_record(r->ilp_one, rec, &r->lines[MICA_ILP_ONE]);
    if (r->reg)
        mica_reg_record(r->reg, rec, r->n_all);
    if (r->stride)
        mica_stride_record(r->stride, rec);
    if (r->memfootprint)
        mica_memfootprint_record(r->memfootprint, rec);
    if (r->stackdist)
        mica_stackdist_record(r->stackdist, rec);
    if (r->ppm)
        mica_ppm_record(r->ppm, rec);
    if (r->opt.interval && r->int_hpc == r->opt.interval) {
        /* Completed intervals print S, not the record count (Q8). */
        emit(r, r->opt.interval);
        reset(r);
        r->int_all = r->int_hpc = 0;
    }
}

void mica_run_finish(struct mica_run *r)
{
    /* The last (partial, possibly empty) interval prints its real count. */
    emit(r, r->int_all);
    if (r->ilp)
        mica_ilp_finish(r->ilp, &r->lines[MICA_ILP]);
    if (r->ilp_one)
        mica_ilp_finish(r->ilp_one, &r->lines[MICA_ILP_ONE]);
}

struct mica_run *mica_run_new_part(const struct mica_options *o, unsigned mask)
{
    struct mica_options p = *o;
    p.mask = o->mask & mask;
    return mica_run_new(&p);
}

#define ADOPT(field)                  \
    do {                              \
        void *tmp_ = r->field;        \
        r->field = part->field;       \
        part->field = tmp_;           \
    } while (0)

void mica_run_adopt(struct mica_run *r, struct mica_run *part)
{
    unsigned m = part->opt.mask;
    if (m & (1u << MICA_ITYPES))
        ADOPT(itypes);
    if (m & (1u << MICA_ILP))
        ADOPT(ilp);
    if (m & (1u << MICA_ILP_ONE))
        ADOPT(ilp_one);
    if (m & (1u << MICA_REG))
        ADOPT(reg);
    if (m & (1u << MICA_STRIDE))
        ADOPT(stride);
    if (m & (1u << MICA_MEMFOOTPRINT))
        ADOPT(memfootprint);
    if (m & (1u << MICA_MEMSTACKDIST | 1u << MICA_FULLMEMSTACKDIST))
        ADOPT(stackdist);
    if (m & (1u << MICA_PPM))
        ADOPT(ppm);
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++) {
        if (!(m & (1u << a)))
            continue;
        struct mica_lines tmp = r->lines[a];
        r->lines[a] = part->lines[a];
        part->lines[a] = tmp;
    }
    r->n_all = part->n_all;
    r->n_hpc = part->n_hpc;
    r->int_all = part->int_all;
    r->int_hpc = part->int_hpc;
}

const struct mica_line *mica_run_lines(const struct mica_run *r, enum mica_analysis a, size_t *n)
{
    *n = r->lines[a].n;
    return r->lines[a].line;
}

uint64_t mica_run_n_all(const struct mica_run *r)
{
    return r->n_all;
}

uint64_t mica_run_n_hpc(const struct mica_run *r)
{
    return r->n_hpc;
}

const struct mica_options *mica_run_options(const struct mica_run *r)
{
    return &r->opt;
}

size_t mica_run_other_categories(const struct mica_run *r, const char **names, size_t max)
{
    return r->itypes ? mica_itypes_other(r->itypes, names, max) : 0;
}

void mica_run_free(struct mica_run *r)
{
    if (!r)
        return;
    mica_itypes_free(r->itypes);
    mica_ilp_free(r->ilp);
    mica_ilp_free(r->ilp_one);
    mica_reg_free(r->reg);
    mica_stride_free(r->stride);
    mica_memfootprint_free(r->memfootprint);
    mica_stackdist_free(r->stackdist);
    mica_ppm_free(r->ppm);
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++)
        mica_lines_free(&r->lines[a]);
    free(r);
}
