/*
 * test_mica_examples.c — MICA-SPEC §13, worked examples E1-E6, fed to the
 * analyses as plain records (no decoder, no trace file). Every expected line
 * is copied from the spec; a mismatch is a bug in tools/mica/, not in the
 * table.
 */
#include "nb_test.h"

#include "mica_record.h"
#include "mica_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Register ids of the examples (any distinct numbers < 4096 will do). */
enum { R_EAX = 1, R_RAX, R_RBX, R_ECX, R_RSI, R_RDI, R_RCX };

#define ALL_BUT_ILP_ONE                                                                      \
    ((1u << MICA_ITYPES) | (1u << MICA_ILP) | (1u << MICA_REG) | (1u << MICA_STRIDE) |       \
     (1u << MICA_MEMFOOTPRINT) | (1u << MICA_MEMSTACKDIST) | (1u << MICA_FULLMEMSTACKDIST) | \
     (1u << MICA_PPM))

static struct mica_run *run(const struct mica_rec *recs, size_t n, bool all_mode,
                            uint64_t interval, unsigned ilp_size)
{
    struct mica_options o;
    mica_options_default(&o);
    o.mask = ALL_BUT_ILP_ONE | (ilp_size ? 1u << MICA_ILP_ONE : 0);
    o.all_mode = all_mode;
    o.interval = interval;
    o.ilp_size = ilp_size;
    char err[200];
    if (mica_options_check(&o, err, sizeof(err)) != 0) {
        nb_test_note("options: %s", err);
        return NULL;
    }
    struct mica_run *r = mica_run_new(&o);
    for (size_t i = 0; i < n; i++)
        mica_run_record(r, &recs[i]);
    mica_run_finish(r);
    return r;
}

/* The line as MICA prints it (numbers separated by one space). */
static const char *line_text(const struct mica_run *r, enum mica_analysis a, size_t idx)
{
    static char buf[64 * 1024];
    size_t n;
    const struct mica_line *l = mica_run_lines(r, a, &n);
    if (idx >= n)
        return "(no such line)";
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < l[idx].n; i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu", i ? " " : "",
                                (unsigned long long)l[idx].v[i]);
    return buf;
}

/* prefix followed by n " 0" */
static const char *zeros(const char *prefix, unsigned n)
{
    static char buf[2][64 * 1024];
    static int which;
    char *b = buf[which ^= 1];
    size_t len = (size_t)snprintf(b, sizeof(buf[0]), "%s", prefix);
    for (unsigned i = 0; i < n; i++)
        len += (size_t)snprintf(b + len, sizeof(buf[0]) - len, "%s0", len ? " " : "");
    return b;
}

static size_t n_lines(const struct mica_run *r, enum mica_analysis a)
{
    size_t n;
    mica_run_lines(r, a, &n);
    return n;
}

static struct mica_rec rec(uint64_t pc, unsigned len, unsigned cat, unsigned ops)
{
    struct mica_rec x;
    memset(&x, 0, sizeof(x));
    x.pc = pc;
    x.len = (uint8_t)len;
    x.category = (uint8_t)cat;
    x.iclass = "X";
    x.n_reg_operands = (uint8_t)ops;
    x.counts_hpc = true;
    return x;
}

static void reads(struct mica_rec *x, int r)
{
    x->regs_read[x->n_regs_read++] = (uint16_t)r;
}

static void writes(struct mica_rec *x, int r)
{
    x->regs_written[x->n_regs_written++] = (uint16_t)r;
}

/* E1: 1000 x `mov eax, 1`. */
static struct mica_rec *e1(size_t *n)
{
    struct mica_rec *v = calloc(1000, sizeof(*v));
    for (unsigned i = 0; i < 1000; i++) {
        v[i] = rec(0x400000 + 5 * i, 5, MICA_CAT_DATAXFER, 1);
        writes(&v[i], R_EAX);
    }
    *n = 1000;
    return v;
}

NB_TEST(mica_e1_independent)
{
    size_t n;
    struct mica_rec *v = e1(&n);
    struct mica_run *r = run(v, n, true, 0, 32);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "1000 31 15 7 3");
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 0), "1000 31");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0), "1000 1000 999 0 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "1000 0 0 0 1000 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "0 0 79 2");
    CHECK_EQ_STR(line_text(r, MICA_STRIDE, 0), zeros("", 30));
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), zeros("0 0", 19));
    CHECK_EQ_STR(line_text(r, MICA_FULLMEMSTACKDIST, 0), zeros("0 0", 2049));
    CHECK_EQ_STR(line_text(r, MICA_PPM, 0), zeros("1000", 15));
    CHECK_EQ_INT(mica_run_n_hpc(r), 1000);
    mica_run_free(r);
    free(v);
}

NB_TEST(mica_e2_register_chain)
{
    struct mica_rec v[1000];
    for (unsigned i = 0; i < 1000; i++) {
        v[i] = rec(0x400000 + 4 * i, 4, MICA_CAT_BINARY, 2);
        reads(&v[i], R_RAX);
        writes(&v[i], R_RAX);
    }
    struct mica_run *r = run(v, 1000, true, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "1000 969 937 873 745");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0),
                 "1000 2000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000");
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "1000 0 0 0 1000 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "0 0 63 1");
    mica_run_free(r);
}

static void e2b(struct mica_rec *v)
{
    for (unsigned i = 0; i < 1000; i++) {
        v[i] = rec(0x400000 + 4 * i, 4, MICA_CAT_BINARY, 1);
        reads(&v[i], R_RBX);
        v[i].mem_read = v[i].mem_write = true;
        v[i].read1_ea = v[i].write_ea = 0x601040;
        v[i].read_size = v[i].write_size = 8;
    }
}

NB_TEST(mica_e2b_memory_chain)
{
    struct mica_rec v[1000];
    e2b(v);
    struct mica_run *r = run(v, 1000, true, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "1000 969 937 873 745");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0), "1000 1000 0 0 1000 1 2 4 8 16 32 64");
    CHECK_EQ_STR(line_text(r, MICA_STRIDE, 0),
                 "1000 0 0 0 0 0 0 0 0 999 999 999 999 999 999 "
                 "1000 0 0 0 0 0 0 0 0 999 999 999 999 999 999");
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), zeros("1000 1 999", 18));
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "1000 1000 1000 0 1000 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "1 1 63 1");
    mica_run_free(r);
    /* [M]'s memstackdist mode also counts the writes (Q10). */
    r = run(v, 1000, false, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), zeros("2000 1 1999", 18));
    mica_run_free(r);
}

NB_TEST(mica_e3_pointer_chase)
{
    static struct mica_rec v[3000];
    for (unsigned k = 0; k < 1000; k++) {
        struct mica_rec *ld = &v[3 * k], *dec = &v[3 * k + 1], *jnz = &v[3 * k + 2];
        *ld = rec(0x400000, 3, MICA_CAT_DATAXFER, 1);
        reads(ld, R_RAX);
        writes(ld, R_RAX);
        ld->mem_read = true;
        ld->read1_ea = 0x10000000 + 64 * (k % 16);
        ld->read_size = 8;
        *dec = rec(0x400003, 2, MICA_CAT_BINARY, 2);
        reads(dec, R_ECX);
        writes(dec, R_ECX);
        *jnz = rec(0x400005, 2, MICA_CAT_COND_BR, 2);
        jnz->taken = k < 999;
    }
    struct mica_run *r = run(v, 3000, true, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "3000 990 979 958 915");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0), "3000 5000 2000 2000 2000 1 2 2000 2000 2000 2000 2000");
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "3000 1000 0 1000 2000 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_STRIDE, 0),
                 zeros("1000 0 0 937 937 999 999 999 0 0 937 937 999 999 999", 15));
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "16 1 1 1");
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), "1000 16 0 0 0 984 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
    size_t n;
    const struct mica_line *fl = mica_run_lines(r, MICA_FULLMEMSTACKDIST, &n);
    REQUIRE(n == 1 && fl[0].n == 2 + 2049);
    CHECK_EQ_U64(fl[0].v[0], 1000);
    CHECK_EQ_U64(fl[0].v[1], 16);
    for (unsigned d = 0; d <= 2048; d++)
        if (!CHECK_EQ_U64(fl[0].v[2 + d], d == 15 ? 984 : 0))
            nb_test_note("d%u", d);
    CHECK_EQ_STR(line_text(r, MICA_PPM, 0), "3000 2 2 14 14 2 2 10 10 2 2 6 6 1000 1 1");
    mica_run_free(r);
}

NB_TEST(mica_e4_alternating_branch)
{
    struct mica_rec v[1000];
    for (unsigned k = 0; k < 1000; k++) {
        v[k] = rec(0x400000, 2, MICA_CAT_COND_BR, 2);
        v[k].taken = k % 2 == 0;
    }
    struct mica_run *r = run(v, 1000, true, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_PPM, 0), "1000 2 2 7 7 2 2 5 5 2 2 3 3 1000 1 500");
    mica_run_free(r);
}

static void e5(struct mica_rec *v)
{
    for (unsigned i = 0; i < 100; i++) {
        v[i] = rec(0x400000, 2, MICA_CAT_STRINGOP, 2);
        int regs[] = { R_RDI, R_RSI, R_RCX };
        for (unsigned j = 0; j < 3; j++) {
            reads(&v[i], regs[j]);
            writes(&v[i], regs[j]);
        }
        v[i].mem_read = v[i].mem_write = true;
        v[i].read1_ea = 0x20000000 + i;
        v[i].write_ea = 0x30000000 + i;
        v[i].read_size = v[i].write_size = 1;
        v[i].counts_hpc = i == 0;
    }
}

NB_TEST(mica_e5_rep_movsb)
{
    struct mica_rec v[100];
    e5(v);
    struct mica_run *r = run(v, 100, true, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "100 100 100 0 0 0 0 0 100 0 0 0 0");
    CHECK_EQ_INT(mica_run_n_hpc(r), 1);
    CHECK_EQ_INT(mica_run_n_all(r), 100);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "100 69 37 0 0");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0), "100 200 300 300 300 300 300 300 300 300 300 300");
    CHECK_EQ_STR(line_text(r, MICA_STRIDE, 0),
                 "100 0 99 99 99 99 99 99 0 99 99 99 99 99 99 "
                 "100 0 99 99 99 99 99 99 0 99 99 99 99 99 99");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "4 2 1 1");
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), zeros("100 2 98", 18));
    mica_run_free(r);
    r = run(v, 100, false, 0, 0);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_MEMSTACKDIST, 0), zeros("200 4 196", 18));
    size_t n;
    const struct mica_line *fl = mica_run_lines(r, MICA_FULLMEMSTACKDIST, &n);
    REQUIRE(n == 1);
    CHECK_EQ_U64(fl[0].v[0], 200);
    CHECK_EQ_U64(fl[0].v[1], 4);
    CHECK_EQ_U64(fl[0].v[2 + 1], 196);
    mica_run_free(r);
}

NB_TEST(mica_e6_intervals)
{
    size_t n;
    struct mica_rec *v = e1(&n);
    struct mica_run *r = run(v, n, true, 400, 0);
    REQUIRE(r);
    CHECK_EQ_INT(n_lines(r, MICA_ITYPES), 3);
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 0), "400 0 0 0 400 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 1), "400 0 0 0 400 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_ITYPES, 2), "200 0 0 0 200 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_REG, 0), "400 400 399 0 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_REG, 1), "400 400 400 0 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_REG, 2), "200 200 200 0 0 0 0 0 0 0 0 0");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 0), "0 0 32 1");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 1), "0 0 32 1");
    CHECK_EQ_STR(line_text(r, MICA_MEMFOOTPRINT, 2), "0 0 17 2");
    CHECK_EQ_INT(n_lines(r, MICA_ILP), 3);
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "400 6 3 1 0");
    CHECK_EQ_STR(line_text(r, MICA_ILP, 1), "400 12 6 3 2");
    CHECK_EQ_STR(line_text(r, MICA_ILP, 2), "200 13 6 3 1");
    CHECK_EQ_INT(mica_run_n_hpc(r), 1000);
    mica_run_free(r);
    free(v);
}

NB_TEST(mica_options_refuse)
{
    struct mica_options o;
    char err[200];
    mica_options_default(&o);
    CHECK(mica_options_set_list(&o, "itypes,bogus", err, sizeof(err)) != 0);
    CHECK(strstr(err, "bogus") != NULL);
    CHECK_EQ_INT(mica_options_set_list(&o, "all", err, sizeof(err)), 0);
    o.interval = 300; /* ILP needs a multiple of 200 */
    CHECK(mica_options_check(&o, err, sizeof(err)) != 0);
    o.interval = 400;
    CHECK_EQ_INT(mica_options_check(&o, err, sizeof(err)), 0);
    CHECK_EQ_INT(mica_options_set_list(&o, "ilp_one", err, sizeof(err)), 0);
    CHECK(mica_options_check(&o, err, sizeof(err)) != 0); /* no ilp_size */
    o.ilp_size = 16;
    CHECK_EQ_INT(mica_options_check(&o, err, sizeof(err)), 0);
    o.block_bits = 40;
    CHECK(mica_options_check(&o, err, sizeof(err)) != 0);
}

/*
 * ilp_one with intervals ([M] mica_ilp.cpp, ilp_instr_intervals_one): unlike
 * ilp, the interval check comes after the record entered the window, and a
 * completed interval's line starts with S, not the interval's record count.
 * E1 with S = 400, W = 67: the window ticks on every 67th record; line 1
 * holds records 1..201 (the first of the batch flushed at record 400), so
 * the tick of record 201 is in it: 3; line 2 records 202..601: 5; the last
 * line records 602..1000: 6 (3 + 5 + 6 = floor(1000 / 67)).
 */
NB_TEST(mica_ilp_one_intervals)
{
    size_t n;
    struct mica_rec *v = e1(&n);
    struct mica_run *r = run(v, n, false, 400, 67);
    REQUIRE(r);
    CHECK_EQ_INT(n_lines(r, MICA_ILP_ONE), 3);
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 0), "400 3");
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 1), "400 5");
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 2), "200 6");
    mica_run_free(r);
    free(v);
}

/*
 * 250 records of which the first 50 do not count for N_hpc (REP iterations),
 * S = 200, W = 32: the interval completes at record 250, flushed as a batch
 * of 50. ilp_one prints S (200), ilp the records counted since the last
 * line (250); ilp_one's line includes record 201's insertion (no tick: ticks
 * fall on records 32, 64, ..., 192, 224).
 */
NB_TEST(mica_ilp_one_interval_first_column)
{
    size_t n;
    struct mica_rec *v = e1(&n);
    for (unsigned i = 0; i < 50; i++)
        v[i].counts_hpc = false;
    struct mica_run *r = run(v, 250, false, 200, 32);
    REQUIRE(r);
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 0), "200 6");
    CHECK_EQ_STR(line_text(r, MICA_ILP_ONE, 1), "0 1");
    CHECK_EQ_STR(line_text(r, MICA_ILP, 0), "250 6 3 1 0");
    mica_run_free(r);
    free(v);
}
