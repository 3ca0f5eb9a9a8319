/*
 * cpu_topology.c — SMT siblings from CPUID 0BH/1FH (see cpu_topology.h).
 */
#include "cpu_topology.h"
#include "cpu_platform.h"
#include "cpuid_bits.h"
#include "nb_text.h"

#define TOPO_MAX_LEVELS 8
#define TOPO_SHIFT_MASK 0x1Fu       /* EAX[4:0] */
#define TOPO_TYPE_SHIFT 8           /* ECX[15:8] */
#define TOPO_CORES_PER_LINE 8

static bool leaf_valid(const struct nb_platform *p, uint32_t max_leaf, uint32_t leaf)
{
    uint32_t r[4] = { 0, 0, 0, 0 };
    if (max_leaf < leaf)
        return false;
    p->cpuid(p->ctx, leaf, 0, r);
    return r[CPUID_EBX] != 0; /* SDM: EBX = 0 at subleaf 0 means the leaf is not supported */
}

void topo_read(const struct nb_platform *p, struct topo_cpu *out)
{
    uint32_t r[4] = { 0, 0, 0, 0 };
    *out = (struct topo_cpu){ 0 };
    p->cpuid(p->ctx, 0, 0, r);
    uint32_t max_leaf = r[CPUID_EAX];
    unsigned leaf = leaf_valid(p, max_leaf, 0x1F) ? 0x1F : leaf_valid(p, max_leaf, 0xB) ? 0xB : 0;
    if (!leaf)
        return;
    bool smt = false;
    for (uint32_t sub = 0; sub < TOPO_MAX_LEVELS; sub++) {
        p->cpuid(p->ctx, leaf, sub, r);
        unsigned type = (r[CPUID_ECX] >> TOPO_TYPE_SHIFT) & 0xFF;
        if (!type)
            break;
        unsigned shift = r[CPUID_EAX] & TOPO_SHIFT_MASK;
        if (type == TOPO_LEVEL_SMT) {
            out->smt_shift = shift;
            smt = true;
        }
        out->pkg_shift = shift;
        out->x2apic_id = r[CPUID_EDX];
    }
    if (!smt)
        out->smt_shift = 0;
    out->known = true;
    out->leaf = leaf;
    uint32_t id = out->x2apic_id;
    out->thread = id & ((1u << out->smt_shift) - 1);
    out->core = out->pkg_shift > out->smt_shift
                    ? (id >> out->smt_shift) & ((1u << (out->pkg_shift - out->smt_shift)) - 1)
                    : 0;
    out->package = out->pkg_shift < 32 ? id >> out->pkg_shift : 0;
}

struct survey_call {
    const struct nb_platform *p;
    struct topo_cpu *out;
};

static void read_here(void *arg)
{
    struct survey_call *c = arg;
    topo_read(c->p, c->out);
}

void topo_survey(const struct nb_platform *p, struct topo *t)
{
    unsigned n = nb_cpu_count(p);
    t->n = n < TOPO_MAX_CPUS ? n : TOPO_MAX_CPUS;
    t->boot = nb_current_cpu(p);
    t->threads_max = 0;
    for (unsigned i = 0; i < t->n; i++) {
        struct survey_call c = { p, &t->cpu[i] };
        t->cpu[i] = (struct topo_cpu){ 0 };
        if (nb_run_on_cpu(p, i, read_here, &c) != NB_OK)
            t->cpu[i].known = false;
    }
    for (unsigned i = 0; i < t->n; i++) {
        unsigned on_core = 0;
        for (unsigned j = 0; j < t->n; j++)
            on_core += t->cpu[i].known && t->cpu[j].known && t->cpu[j].package == t->cpu[i].package &&
                       t->cpu[j].core == t->cpu[i].core;
        t->threads_max = on_core > t->threads_max ? on_core : t->threads_max;
    }
}

static bool same_core(const struct topo_cpu *a, const struct topo_cpu *b)
{
    return a->known && b->known && a->package == b->package && a->core == b->core;
}

bool topo_boot_sibling(const struct topo *t, unsigned cpu)
{
    return cpu < t->n && cpu != t->boot && t->boot < t->n && same_core(&t->cpu[cpu], &t->cpu[t->boot]);
}

void topo_describe(const struct topo *t, void (*emit)(void *arg, const char *line), void *arg)
{
    char line[512];
    if (t->n <= 1)
        return;
    bool all_known = true;
    for (unsigned i = 0; i < t->n; i++)
        all_known = all_known && t->cpu[i].known;
    if (!all_known) {
        nb_snprintf(line, sizeof(line), "topology: %u logical processors; which share a core is unknown "
                    "(no CPUID leaf 0BH or 1FH)", t->n);
        emit(arg, line);
        return;
    }
    unsigned cores = 0;
    for (unsigned i = 0; i < t->n; i++) {
        bool first = true;
        for (unsigned j = 0; j < i && first; j++)
            first = !same_core(&t->cpu[j], &t->cpu[i]);
        cores += first;
    }
    nb_snprintf(line, sizeof(line), "topology: %u logical processors in %u cores, %u thread%s per core "
                "(x2APIC IDs, CPUID.%02XH)", t->n, cores, t->threads_max, t->threads_max == 1 ? "" : "s",
                t->cpu[0].leaf);
    emit(arg, line);
    size_t len = 0;
    unsigned on_line = 0;
    for (unsigned i = 0; i < t->n; i++) {
        bool first = true;
        for (unsigned j = 0; j < i && first; j++)
            first = !same_core(&t->cpu[j], &t->cpu[i]);
        if (!first)
            continue;
        if (on_line == 0)
            len = nb_snprintf(line, sizeof(line), "topology: package.core: processors:");
        len += nb_snprintf(line + len, sizeof(line) - len, "%s %u.%u:", on_line ? ";" : "",
                           t->cpu[i].package, t->cpu[i].core);
        for (unsigned j = i; j < t->n && len < sizeof(line); j++)
            if (same_core(&t->cpu[j], &t->cpu[i]))
                len += nb_snprintf(line + len, sizeof(line) - len, " %u", j);
        if (++on_line == TOPO_CORES_PER_LINE) {
            emit(arg, line);
            on_line = 0;
        }
    }
    if (on_line)
        emit(arg, line);
}
