/*
 * mica_output.c — see mica_output.h.
 */
#include "mica_output.h"

#include <errno.h>
#include <string.h>

#include "mica_itypes.h"
#include "mica_ppm.h"
#include "mica_stackdist.h"
#include "mica_stride.h"

static const char *const reg_fields[] = { "instructions", "operands", "values", "uses", "reads",
                                          "age_le_1", "age_le_2", "age_le_4", "age_le_8",
                                          "age_le_16", "age_le_32", "age_le_64" };
static const char *const footprint_fields[] = { "data_blocks", "data_pages", "instr_blocks",
                                                "instr_pages" };
static const char *const ppm_kinds[] = { "GAg", "PAg", "GAs", "PAs" };

const char *mica_field_name(const struct mica_run *r, enum mica_analysis a, size_t idx,
                            char *buf, size_t len)
{
    const struct mica_options *o = mica_run_options(r);
    switch (a) {
    case MICA_ITYPES:
        if (idx == 0)
            return "instructions";
        return mica_itypes_group_name(o->itypes ? o->itypes : mica_itypes_default_spec(),
                                      idx - 1);
    case MICA_ILP:
    case MICA_ILP_ONE:
        if (idx == 0)
            return "instructions";
        snprintf(buf, len, "cycles_%u", a == MICA_ILP ? 16u << idx : o->ilp_size);
        return buf;
    case MICA_REG:
        return idx < 12 ? reg_fields[idx] : "?";
    case MICA_STRIDE: {
        /* reads, local x7, global x7, then the same for writes */
        size_t half = idx / (1 + 2 * MICA_STRIDE_BOUNDS), k = idx % (1 + 2 * MICA_STRIDE_BOUNDS);
        const char *side = half ? "write" : "read";
        if (k == 0)
            return half ? "writes" : "reads";
        k--;
        snprintf(buf, len, "%s_%s_le_%llu", side, k < MICA_STRIDE_BOUNDS ? "local" : "global",
                 (unsigned long long)mica_stride_bounds[k % MICA_STRIDE_BOUNDS]);
        return buf;
    }
    case MICA_MEMFOOTPRINT:
        return idx < 4 ? footprint_fields[idx] : "?";
    case MICA_MEMSTACKDIST:
    case MICA_FULLMEMSTACKDIST:
        if (idx < 2)
            return idx ? "cold" : "accesses";
        snprintf(buf, len, "%c%zu", a == MICA_MEMSTACKDIST ? 'b' : 'd', idx - 2);
        return buf;
    case MICA_PPM:
        if (idx == 0)
            return "instructions";
        if (idx <= 4 * MICA_PPM_HISTORIES) {
            snprintf(buf, len, "%s_%u", ppm_kinds[(idx - 1) % 4],
                     mica_ppm_history[(idx - 1) / 4]);
            return buf;
        }
        return idx == 13 ? "branches" : idx == 14 ? "transitions" : "taken";
    default:
        return "?";
    }
}

static void rows(FILE *f, const char *bench, const struct mica_run *r, enum mica_analysis a,
                 const struct mica_line *l, const char *suffix)
{
    char buf[64];
    /* Every field, zeros included (fullmemstackdist's 2049 distances too), so
     * every benchmark and interval has the same events. */
    for (size_t i = 0; i < l->n; i++) {
        fprintf(f, "%s,mica.%s.%s%s,%llu\n", bench, mica_analysis_name(a),
                mica_field_name(r, a, i, buf, sizeof(buf)), suffix, (unsigned long long)l->v[i]);
    }
}

void mica_csv_rows(FILE *f, const char *bench, const struct mica_run *full,
                   const struct mica_run *phases)
{
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++) {
        size_t n;
        const struct mica_line *l = mica_run_lines(full, a, &n);
        if (n)
            rows(f, bench, full, a, &l[n - 1], "");
    }
    if (!phases)
        return;
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++) {
        size_t n;
        const struct mica_line *l = mica_run_lines(phases, a, &n);
        for (size_t k = 0; k < n; k++) {
            char suffix[32];
            snprintf(suffix, sizeof(suffix), ".%zu", k + 1);
            rows(f, bench, phases, a, &l[k], suffix);
        }
    }
}

/* "12.34" or "n/a" for a zero divisor (never a division by zero). */
static const char *ratio(char *buf, size_t len, double num, uint64_t den, double scale)
{
    if (den == 0)
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.2f", scale * num / (double)den);
    return buf;
}

static void ratios(FILE *f, const struct mica_run *r, enum mica_analysis a, const uint64_t *v,
                   size_t n)
{
    char b[32], name[64];
    switch (a) {
    case MICA_ITYPES:
        fprintf(f, "  instruction mix %%:");
        for (size_t i = 1; i < n; i++)
            fprintf(f, " %s %s", mica_field_name(r, a, i, name, sizeof(name)),
                    ratio(b, sizeof(b), (double)v[i], v[0], 100));
        break;
    case MICA_ILP:
    case MICA_ILP_ONE:
        fprintf(f, "  ILP");
        for (size_t i = 1; i < n; i++)
            fprintf(f, " W%u %s", a == MICA_ILP ? 16u << i : mica_run_options(r)->ilp_size,
                    ratio(b, sizeof(b), (double)v[0], v[i], 1));
        break;
    case MICA_REG:
        fprintf(f, "  register operands/instruction %s, uses/value %s, P(dependence distance <=",
                ratio(b, sizeof(b), (double)v[1], v[0], 1),
                ratio(name, sizeof(name), (double)v[3], v[2], 1));
        for (size_t i = 5; i < 12; i++)
            fprintf(f, " %u: %s%%", 1u << (i - 5), ratio(b, sizeof(b), (double)v[i], v[4], 100));
        fprintf(f, ")");
        break;
    case MICA_STRIDE:
        for (unsigned half = 0; half < 2; half++) {
            const uint64_t *s = v + half * (1 + 2 * MICA_STRIDE_BOUNDS);
            for (unsigned k = 0; k < 2; k++) {
                fprintf(f, "%s %s %s stride <=", half || k ? ";" : " ", k ? "global" : "local",
                        half ? "write" : "read");
                for (unsigned i = 0; i < MICA_STRIDE_BOUNDS; i++)
                    fprintf(f, " %llu: %s%%", (unsigned long long)mica_stride_bounds[i],
                            ratio(b, sizeof(b), (double)s[1 + k * MICA_STRIDE_BOUNDS + i], s[0],
                                  100));
            }
        }
        break;
    case MICA_MEMFOOTPRINT: {
        const struct mica_options *o = mica_run_options(r);
        double kib_block = (double)(1ull << o->block_bits) / 1024;
        double kib_page = (double)(1ull << o->page_bits) / 1024;
        fprintf(f, "  data %.1f KiB in blocks, %.1f KiB in pages; code %.1f KiB in blocks, "
                   "%.1f KiB in pages (block %llu B, page %llu B)",
                (double)v[0] * kib_block, (double)v[1] * kib_page, (double)v[2] * kib_block,
                (double)v[3] * kib_page, 1ull << o->block_bits, 1ull << o->page_bits);
        break;
    }
    case MICA_MEMSTACKDIST: {
        fprintf(f, "  cold %s%%, P(reuse distance <", ratio(b, sizeof(b), (double)v[1], v[0], 100));
        uint64_t cum = 0;
        for (unsigned i = 0; i + 1 < MICA_STACKDIST_BUCKETS; i++) {
            cum += v[2 + i];
            fprintf(f, " %u: %s%%", 2u << i, ratio(b, sizeof(b), (double)cum, v[0], 100));
        }
        fprintf(f, ")");
        break;
    }
    case MICA_FULLMEMSTACKDIST:
        fprintf(f, "  distances seen:");
        for (size_t i = 2; i < n; i++)
            if (v[i])
                fprintf(f, " d%zu%s x%llu", i - 2, i + 1 == n ? "+" : "",
                        (unsigned long long)v[i]);
        break;
    case MICA_PPM:
        fprintf(f, "  mispredictions per branch %%:");
        for (size_t i = 1; i <= 4 * MICA_PPM_HISTORIES; i++)
            fprintf(f, " %s %s", mica_field_name(r, a, i, name, sizeof(name)),
                    ratio(b, sizeof(b), (double)v[i], v[13], 100));
        break;
    default:
        break;
    }
    fprintf(f, "\n");
}

void mica_report(FILE *f, const struct mica_run *full)
{
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++) {
        size_t n;
        const struct mica_line *l = mica_run_lines(full, a, &n);
        if (!n)
            continue;
        const struct mica_line *x = &l[n - 1];
        /* fullmemstackdist's 2049 distances go to the ratio line, non-zero only. */
        size_t shown = a == MICA_FULLMEMSTACKDIST ? 2 : x->n;
        fprintf(f, "MICA %s:", mica_analysis_name(a));
        for (size_t i = 0; i < shown; i++)
            fprintf(f, " %llu", (unsigned long long)x->v[i]);
        fprintf(f, "\n");
        ratios(f, full, a, x->v, x->n);
    }
}

static void write_line(FILE *f, enum mica_analysis a, const struct mica_line *l)
{
    for (size_t i = 0; i < l->n; i++) {
        /* fullmemstackdist: `refs cold`, newline, then ` d0 d1 ... d2048` (§9). */
        const char *sep = i == 0 ? "" : a == MICA_FULLMEMSTACKDIST && i == 2 ? "\n " : " ";
        fprintf(f, "%s%llu", sep, (unsigned long long)l->v[i]);
    }
    fprintf(f, "\n");
}

int mica_write_files(const char *dir, const struct mica_run *r, char *err, size_t errlen)
{
    const struct mica_options *o = mica_run_options(r);
    const char *kind = o->interval ? "phases" : "full";
    for (unsigned a = 0; a < MICA_N_ANALYSES; a++) {
        size_t n;
        const struct mica_line *l = mica_run_lines(r, a, &n);
        if (!n)
            continue;
        char path[4096];
        if (a == MICA_ILP_ONE) /* the README's ilp<size>_... is wrong (§1.6) */
            snprintf(path, sizeof(path), "%s/ilp-win%u_%s_int_pin.out", dir, o->ilp_size, kind);
        else
            snprintf(path, sizeof(path), "%s/%s_%s_int_pin.out", dir, mica_analysis_name(a), kind);
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        for (size_t k = 0; k < n; k++)
            write_line(f, a, &l[k]);
        fprintf(f, "number of instructions: %llu\n", (unsigned long long)mica_run_n_hpc(r));
        if (fclose(f) != 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    if (o->mask & (1u << MICA_ITYPES)) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/itypes_other_group_categories.txt", dir);
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        const char *names[MICA_N_CATEGORIES];
        size_t n = mica_run_other_categories(r, names, MICA_N_CATEGORIES);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s\n", names[i]);
        fclose(f);
    }
    return 0;
}
