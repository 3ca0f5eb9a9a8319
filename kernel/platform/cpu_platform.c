/*
 * cpu_platform.c — seam calls forwarded to another processor (see cpu_platform.h).
 */
#include "cpu_platform.h"
#include "nb_text.h"

unsigned nb_cpu_count(const struct nb_platform *p)
{
    return p->cpu_count ? p->cpu_count(p->ctx) : 1;
}

unsigned nb_current_cpu(const struct nb_platform *p)
{
    return p->current_cpu ? p->current_cpu(p->ctx) : 0;
}

int nb_run_on_cpu(const struct nb_platform *p, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    if (p->run_on_cpu)
        return p->run_on_cpu(p->ctx, cpu, fn, arg);
    if (cpu != 0)
        return NB_EINVAL;
    fn(arg);
    return NB_OK;
}

int nb_run_locally(const struct nb_platform *p, void (*fn)(const struct nb_platform *local, void *arg),
                   void *arg)
{
    if (p->run_locally)
        return p->run_locally(p->ctx, fn, arg);
    fn(p, arg);
    return NB_OK;
}

struct local_call {
    const struct nb_platform *local;
    void (*fn)(const struct nb_platform *local, void *arg);
    void *arg;
};

static void local_entry(void *arg)
{
    struct local_call *c = arg;
    c->fn(c->local, c->arg);
}

int nb_run_on_cpu_with(const struct nb_platform *p, unsigned cpu, const struct nb_platform *local,
                       void (*fn)(const struct nb_platform *local, void *arg), void *arg)
{
    struct local_call c = { local, fn, arg };
    return nb_run_on_cpu(p, cpu, local_entry, &c);
}

static int remote_run_locally(void *ctx, void (*fn)(const struct nb_platform *local, void *arg), void *arg)
{
    struct cpu_platform *cp = ctx;
    return nb_run_on_cpu_with(cp->base, cp->cpu, cp->base, fn, arg);
}

/* One forwarded call: which operation, its arguments and its result. */
struct remote_call {
    const struct nb_platform *base;
    enum { CALL_CPUID, CALL_READ_MSR, CALL_WRITE_MSR, CALL_READ_TSC, CALL_LAPIC_READ,
           CALL_LAPIC_WRITE, CALL_LAPIC_BASE, CALL_READ_CR4, CALL_WRITE_CR4, CALL_READ_XCR0,
           CALL_WRITE_XCR0, CALL_APIC_ID } op;
    uint32_t a, b;
    uint64_t value;
    uint32_t *regs;
    int status;
};

static void remote_entry(void *arg)
{
    struct remote_call *c = arg;
    const struct nb_platform *base = c->base;
    switch (c->op) {
    case CALL_CPUID: base->cpuid(base->ctx, c->a, c->b, c->regs); break;
    case CALL_READ_MSR: c->status = base->read_msr(base->ctx, c->a, &c->value); break;
    case CALL_WRITE_MSR: c->status = base->write_msr(base->ctx, c->a, c->value); break;
    case CALL_READ_TSC: c->value = base->read_tsc(base->ctx); break;
    case CALL_LAPIC_READ: {
        uint32_t v = 0;
        c->status = base->lapic_read(base->ctx, c->a, &v);
        c->value = v;
        break;
    }
    case CALL_LAPIC_WRITE: c->status = base->lapic_write(base->ctx, c->a, (uint32_t)c->value); break;
    case CALL_LAPIC_BASE: c->value = base->lapic_mmio_base(base->ctx); break;
    case CALL_READ_CR4: c->value = base->read_cr4(base->ctx); break;
    case CALL_WRITE_CR4: base->write_cr4(base->ctx, c->value); break;
    case CALL_READ_XCR0: c->value = base->read_xcr0(base->ctx); break;
    case CALL_WRITE_XCR0: base->write_xcr0(base->ctx, c->value); break;
    case CALL_APIC_ID: c->value = base->apic_id(base->ctx); break;
    }
}

static int forward(void *ctx, struct remote_call *c)
{
    struct cpu_platform *cp = ctx;
    c->base = cp->base;
    int st = nb_run_on_cpu(cp->base, cp->cpu, remote_entry, c);
    return st != NB_OK ? st : c->status;
}

static void remote_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    struct remote_call c = { .op = CALL_CPUID, .a = leaf, .b = subleaf, .regs = regs };
    regs[0] = regs[1] = regs[2] = regs[3] = 0;
    forward(ctx, &c);
}

static int remote_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct remote_call c = { .op = CALL_READ_MSR, .a = msr };
    int st = forward(ctx, &c);
    *value = st == NB_OK ? c.value : 0;
    return st;
}

static int remote_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    struct remote_call c = { .op = CALL_WRITE_MSR, .a = msr, .value = value };
    return forward(ctx, &c);
}

static uint64_t remote_read_tsc(void *ctx)
{
    struct remote_call c = { .op = CALL_READ_TSC };
    forward(ctx, &c);
    return c.value;
}

static int remote_lapic_read(void *ctx, uint32_t reg, uint32_t *value)
{
    struct remote_call c = { .op = CALL_LAPIC_READ, .a = reg };
    int st = forward(ctx, &c);
    *value = st == NB_OK ? (uint32_t)c.value : 0;
    return st;
}

static int remote_lapic_write(void *ctx, uint32_t reg, uint32_t value)
{
    struct remote_call c = { .op = CALL_LAPIC_WRITE, .a = reg, .value = value };
    return forward(ctx, &c);
}

static uint64_t remote_lapic_mmio_base(void *ctx)
{
    struct remote_call c = { .op = CALL_LAPIC_BASE };
    forward(ctx, &c);
    return c.value;
}

static uint64_t remote_read_cr4(void *ctx)
{
    struct remote_call c = { .op = CALL_READ_CR4 };
    forward(ctx, &c);
    return c.value;
}

static void remote_write_cr4(void *ctx, uint64_t value)
{
    struct remote_call c = { .op = CALL_WRITE_CR4, .value = value };
    forward(ctx, &c);
}

static uint64_t remote_read_xcr0(void *ctx)
{
    struct remote_call c = { .op = CALL_READ_XCR0 };
    forward(ctx, &c);
    return c.value;
}

static void remote_write_xcr0(void *ctx, uint64_t value)
{
    struct remote_call c = { .op = CALL_WRITE_XCR0, .value = value };
    forward(ctx, &c);
}

static uint32_t remote_apic_id(void *ctx)
{
    struct cpu_platform *cp = ctx;
    if (cp->apic_id_known)
        return cp->apic_id;
    struct remote_call c = { .op = CALL_APIC_ID };
    if (forward(ctx, &c) == NB_OK) {
        cp->apic_id = (uint32_t)c.value;
        cp->apic_id_known = true;
    }
    return (uint32_t)c.value;
}

static unsigned remote_current_cpu(void *ctx)
{
    return ((struct cpu_platform *)ctx)->cpu;
}

static unsigned remote_cpu_count(void *ctx)
{
    return nb_cpu_count(((struct cpu_platform *)ctx)->base);
}

static int remote_run_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    return nb_run_on_cpu(((struct cpu_platform *)ctx)->base, cpu, fn, arg);
}

/* Firmware services stay on the boot processor: forward with the base's ctx. */
#define BASE(cp) ((const struct cpu_platform *)(cp))->base
static void fw_write_text(void *ctx, const char *t, size_t n) { BASE(ctx)->write_text(BASE(ctx)->ctx, t, n); }
static int fw_read_file(void *ctx, const char *path, void **d, size_t *n) { return BASE(ctx)->read_file(BASE(ctx)->ctx, path, d, n); }
static void fw_free_file(void *ctx, void *d, size_t n) { BASE(ctx)->free_file(BASE(ctx)->ctx, d, n); }
static bool fw_file_exists(void *ctx, const char *path) { return BASE(ctx)->file_exists(BASE(ctx)->ctx, path); }
static int fw_make_dir(void *ctx, const char *path) { return BASE(ctx)->make_dir(BASE(ctx)->ctx, path); }
static int fw_create_file(void *ctx, const char *path, struct nb_file **f) { return BASE(ctx)->create_file(BASE(ctx)->ctx, path, f); }
static int fw_append_file(void *ctx, const char *path, struct nb_file **f) { return BASE(ctx)->append_file(BASE(ctx)->ctx, path, f); }
static int fw_write_file(void *ctx, struct nb_file *f, const void *d, size_t n) { return BASE(ctx)->write_file(BASE(ctx)->ctx, f, d, n); }
static int fw_flush_file(void *ctx, struct nb_file *f) { return BASE(ctx)->flush_file(BASE(ctx)->ctx, f); }
static void fw_close_file(void *ctx, struct nb_file *f) { BASE(ctx)->close_file(BASE(ctx)->ctx, f); }
static void *fw_alloc_exec(void *ctx, size_t n) { return BASE(ctx)->alloc_exec(BASE(ctx)->ctx, n); }
static void *fw_alloc_data(void *ctx, size_t n) { return BASE(ctx)->alloc_data(BASE(ctx)->ctx, n); }
static void fw_free_mem(void *ctx, void *m, size_t n) { BASE(ctx)->free_mem(BASE(ctx)->ctx, m, n); }
static void fw_stall_us(void *ctx, uint32_t us) { BASE(ctx)->stall_us(BASE(ctx)->ctx, us); }
static void fw_finish(void *ctx, enum nb_finish_action a) { BASE(ctx)->finish(BASE(ctx)->ctx, a); }

void cpu_platform_init(struct cpu_platform *cp, const struct nb_platform *base, unsigned cpu)
{
    nb_memset(cp, 0, sizeof(*cp));
    cp->base = base;
    cp->cpu = cpu;
    struct nb_platform *p = &cp->p;
    p->ctx = cp;
    p->ring0 = base->ring0;
    p->write_text = fw_write_text;
    p->read_file = fw_read_file;
    p->free_file = fw_free_file;
    p->file_exists = fw_file_exists;
    p->make_dir = fw_make_dir;
    p->create_file = fw_create_file;
    p->append_file = fw_append_file;
    p->write_file = fw_write_file;
    p->flush_file = fw_flush_file;
    p->close_file = fw_close_file;
    p->alloc_exec = fw_alloc_exec;
    p->alloc_data = fw_alloc_data;
    p->free_mem = fw_free_mem;
    p->stall_us = fw_stall_us;
    p->finish = fw_finish;
    p->cpuid = remote_cpuid;
    p->read_msr = remote_read_msr;
    p->write_msr = remote_write_msr;
    p->read_tsc = remote_read_tsc;
    p->run_locally = remote_run_locally;
    if (base->lapic_read) {
        p->lapic_read = remote_lapic_read;
        p->lapic_write = remote_lapic_write;
        p->lapic_mmio_base = remote_lapic_mmio_base;
    }
    if (base->apic_id)
        p->apic_id = remote_apic_id;
    if (base->read_cr4) {
        p->read_cr4 = remote_read_cr4;
        p->write_cr4 = remote_write_cr4;
        p->read_xcr0 = remote_read_xcr0;
        p->write_xcr0 = remote_write_xcr0;
    }
    p->cpu_count = remote_cpu_count;
    p->current_cpu = remote_current_cpu;
    p->run_on_cpu = remote_run_on_cpu;
}
