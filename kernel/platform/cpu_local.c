/*
 * cpu_local.c — the seam inside one procedure on another processor (see cpu_local.h).
 */
#include "cpu_local.h"
#include "nb_text.h"

#define L(ctx) ((struct cpu_local *)(ctx))
#define B(ctx) (L(ctx)->base)

/* The processor's own calls: act on whichever processor runs them (N, inside the call). */
static void l_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t regs[4]) { B(ctx)->cpuid(B(ctx)->ctx, leaf, sub, regs); }
static int l_read_msr(void *ctx, uint32_t msr, uint64_t *v) { return B(ctx)->read_msr(B(ctx)->ctx, msr, v); }
static int l_write_msr(void *ctx, uint32_t msr, uint64_t v) { return B(ctx)->write_msr(B(ctx)->ctx, msr, v); }
static uint64_t l_read_tsc(void *ctx) { return B(ctx)->read_tsc(B(ctx)->ctx); }
static uint64_t l_read_cr4(void *ctx) { return B(ctx)->read_cr4(B(ctx)->ctx); }
static void l_write_cr4(void *ctx, uint64_t v) { B(ctx)->write_cr4(B(ctx)->ctx, v); }
static uint64_t l_read_xcr0(void *ctx) { return B(ctx)->read_xcr0(B(ctx)->ctx); }
static void l_write_xcr0(void *ctx, uint64_t v) { B(ctx)->write_xcr0(B(ctx)->ctx, v); }
static uint64_t l_read_cr0(void *ctx) { return B(ctx)->read_cr0(B(ctx)->ctx); }
static void l_write_cr0(void *ctx, uint64_t v) { B(ctx)->write_cr0(B(ctx)->ctx, v); }
static uint64_t l_read_cr3(void *ctx) { return B(ctx)->read_cr3(B(ctx)->ctx); }
static void l_write_cr3(void *ctx, uint64_t v) { B(ctx)->write_cr3(B(ctx)->ctx, v); }
static int l_lapic_read(void *ctx, uint32_t reg, uint32_t *v) { return B(ctx)->lapic_read(B(ctx)->ctx, reg, v); }
static int l_lapic_write(void *ctx, uint32_t reg, uint32_t v) { return B(ctx)->lapic_write(B(ctx)->ctx, reg, v); }
static uint64_t l_lapic_mmio_base(void *ctx) { return B(ctx)->lapic_mmio_base(B(ctx)->ctx); }
static uint32_t l_apic_id(void *ctx) { return B(ctx)->apic_id(B(ctx)->ctx); }
static int l_send_ipi(void *ctx, uint32_t id, uint32_t icr) { return B(ctx)->send_ipi(B(ctx)->ctx, id, icr); }
static void l_halt(void *ctx) { B(ctx)->halt_until_interrupt(B(ctx)->ctx); }
static uint8_t l_in8(void *ctx, uint16_t port) { return B(ctx)->port_in8(B(ctx)->ctx, port); }
static void l_out8(void *ctx, uint16_t port, uint8_t v) { B(ctx)->port_out8(B(ctx)->ctx, port, v); }

static unsigned l_cpu_count(void *ctx) { return L(ctx)->n_cpus; }
static unsigned l_current_cpu(void *ctx) { return L(ctx)->cpu; }

/* Only this processor: it is where the call already runs. */
static int l_run_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    if (cpu != L(ctx)->cpu) {
        L(ctx)->refused++;
        return NB_EINVAL;
    }
    fn(arg);
    return NB_OK;
}

/* A wait on the TSC: the firmware's Stall is a boot service. */
static void l_stall_us(void *ctx, uint32_t us)
{
    struct cpu_local *l = L(ctx);
    if (!l->tsc_hz)
        return;
    uint64_t start = l_read_tsc(ctx), ticks = l->tsc_hz / 1000000u * us;
    while (l_read_tsc(ctx) - start < ticks)
        __builtin_ia32_pause();
}

static void l_write_text(void *ctx, const char *text, size_t len)
{
    (void)text;
    (void)len;
    L(ctx)->refused++;
}

static int l_read_file(void *ctx, const char *path, void **data, size_t *size)
{
    struct cpu_local *l = L(ctx);
    *data = NULL;
    *size = 0;
    for (unsigned i = 0; i < l->n_files; i++) {
        if (nb_strcmp(l->files[i].path, path) == 0) {
            *data = l->files[i].data;
            *size = l->files[i].size;
            return l->files[i].status;
        }
    }
    if (l->n_missed < CPU_LOCAL_FILES)
        nb_snprintf(l->missed[l->n_missed++], sizeof(l->missed[0]), "%s", path);
    l->refused++;
    return NB_EIO;
}

/* The boot processor frees the files (cpu_local_finish). */
static void l_free_file(void *ctx, void *data, size_t size)
{
    (void)ctx;
    (void)data;
    (void)size;
}

/* A block the boot processor allocated for this size and kind, else refused. */
static void *take_block(struct cpu_local *l, size_t size, bool exec)
{
    for (unsigned i = 0; i < l->n_blocks; i++) {
        if (!l->blocks[i].taken && l->blocks[i].size == size && l->blocks[i].exec == exec) {
            l->blocks[i].taken = true;
            return l->blocks[i].p;
        }
    }
    l->refused++;
    return NULL;
}

static void *l_alloc_data(void *ctx, size_t size) { return take_block(L(ctx), size, false); }
static void *l_alloc_exec(void *ctx, size_t size) { return take_block(L(ctx), size, true); }

static void l_free_mem(void *ctx, void *p, size_t size)
{
    struct cpu_local *l = L(ctx);
    if (!p)
        return;
    if (l->n_frees < CPU_LOCAL_FREES) {
        l->frees[l->n_frees].p = p;
        l->frees[l->n_frees].size = size;
        l->n_frees++;
    } else {
        l->refused++; /* kept allocated: never freed on N */
    }
}

void cpu_local_init(struct cpu_local *l, const struct nb_platform *base, unsigned cpu, uint64_t tsc_hz)
{
    nb_memset(l, 0, sizeof(*l));
    l->base = base;
    l->cpu = cpu;
    l->n_cpus = base->cpu_count ? base->cpu_count(base->ctx) : 1;
    l->tsc_hz = tsc_hz;
    struct nb_platform *p = &l->p;
    p->ctx = l;
    p->ring0 = base->ring0;
    p->write_text = l_write_text;
    p->read_file = l_read_file;
    p->free_file = l_free_file;
    p->alloc_exec = l_alloc_exec;
    p->alloc_data = l_alloc_data;
    p->free_mem = l_free_mem;
    p->cpuid = l_cpuid;
    p->read_msr = l_read_msr;
    p->write_msr = l_write_msr;
    p->read_tsc = l_read_tsc;
    p->stall_us = l_stall_us;
    p->cpu_count = l_cpu_count;
    p->current_cpu = l_current_cpu;
    p->run_on_cpu = l_run_on_cpu;
    /* run_locally NULL: this platform is the processor's own. */
#define OPTIONAL(field, fn) p->field = base->field ? fn : NULL
    OPTIONAL(read_cr4, l_read_cr4);
    OPTIONAL(write_cr4, l_write_cr4);
    OPTIONAL(read_xcr0, l_read_xcr0);
    OPTIONAL(write_xcr0, l_write_xcr0);
    OPTIONAL(read_cr0, l_read_cr0);
    OPTIONAL(write_cr0, l_write_cr0);
    OPTIONAL(read_cr3, l_read_cr3);
    OPTIONAL(write_cr3, l_write_cr3);
    OPTIONAL(lapic_read, l_lapic_read);
    OPTIONAL(lapic_write, l_lapic_write);
    OPTIONAL(lapic_mmio_base, l_lapic_mmio_base);
    OPTIONAL(apic_id, l_apic_id);
    OPTIONAL(send_ipi, l_send_ipi);
    OPTIONAL(halt_until_interrupt, l_halt);
    OPTIONAL(port_in8, l_in8);
    OPTIONAL(port_out8, l_out8);
#undef OPTIONAL
}

void cpu_local_add_file(struct cpu_local *l, const char *path)
{
    for (unsigned i = 0; i < l->n_files; i++)
        if (nb_strcmp(l->files[i].path, path) == 0)
            return;
    if (l->n_files == CPU_LOCAL_FILES)
        return;
    struct cpu_local_file *f = &l->files[l->n_files++];
    nb_snprintf(f->path, sizeof(f->path), "%s", path);
    f->status = l->base->read_file(l->base->ctx, path, &f->data, &f->size);
    if (f->status != NB_OK) {
        f->data = NULL;
        f->size = 0;
    }
}

bool cpu_local_add_block(struct cpu_local *l, size_t size, bool exec)
{
    const struct nb_platform *b = l->base;
    if (l->n_blocks == CPU_LOCAL_BLOCKS)
        return false;
    void *m = exec ? b->alloc_exec(b->ctx, size) : b->alloc_data(b->ctx, size);
    if (!m)
        return false;
    l->blocks[l->n_blocks].p = m;
    l->blocks[l->n_blocks].size = size;
    l->blocks[l->n_blocks].exec = exec;
    l->blocks[l->n_blocks].taken = false;
    l->n_blocks++;
    return true;
}

void cpu_local_finish(struct cpu_local *l)
{
    const struct nb_platform *b = l->base;
    for (unsigned i = 0; i < l->n_blocks; i++)
        if (!l->blocks[i].taken)
            b->free_mem(b->ctx, l->blocks[i].p, l->blocks[i].size);
    for (unsigned i = 0; i < l->n_files; i++)
        if (l->files[i].data)
            b->free_file(b->ctx, l->files[i].data, l->files[i].size);
    for (unsigned i = 0; i < l->n_frees; i++)
        b->free_mem(b->ctx, l->frees[i].p, l->frees[i].size);
    l->n_files = l->n_frees = l->n_blocks = l->n_missed = 0;
}
