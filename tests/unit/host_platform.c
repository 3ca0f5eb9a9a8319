/*
 * host_platform.c — the fake platform seam for host unit tests (see host_platform.h).
 */
#define _GNU_SOURCE
#include "host_platform.h"
#include "pmu_msrs.h"
#include "serial_frame.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <x86intrin.h>

struct nb_file {
    struct host_file *f;
};

static struct host_platform *ctx_of(void *ctx)
{
    return ctx;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "host_platform: out of memory\n");
        abort();
    }
    return p;
}

/* ---- memory ------------------------------------------------------------ */

static void *host_mmap(struct host_platform *h, size_t size, int prot)
{
    if (h->alloc_budget == 0 || (h->alloc_largest && size > h->alloc_largest))
        return NULL;
    if (h->n_allocs == HOST_MAX_ALLOCS) {
        fprintf(stderr, "host_platform: more than %d live allocations\n", HOST_MAX_ALLOCS);
        abort();
    }
    void *p = mmap(NULL, size ? size : 1, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (h->alloc_budget > 0)
        h->alloc_budget--;
    h->allocs[h->n_allocs].p = p;
    h->allocs[h->n_allocs].size = size;
    h->n_allocs++;
    return p;
}

static void host_free_mem(void *ctx, void *p, size_t size)
{
    struct host_platform *h = ctx_of(ctx);
    for (size_t i = 0; i < h->n_allocs; i++) {
        if (h->allocs[i].p != p)
            continue;
        if (h->allocs[i].size != size)
            h->bad_frees++;
        munmap(p, h->allocs[i].size ? h->allocs[i].size : 1);
        h->allocs[i] = h->allocs[--h->n_allocs];
        return;
    }
    h->bad_frees++;
}

static void *host_alloc_exec(void *ctx, size_t size)
{
    return host_mmap(ctx_of(ctx), size, PROT_READ | PROT_WRITE | PROT_EXEC);
}

static void *host_alloc_data(void *ctx, size_t size)
{
    return host_mmap(ctx_of(ctx), size, PROT_READ | PROT_WRITE);
}

/* ---- files ------------------------------------------------------------- */

struct host_file *host_fs_find(struct host_platform *h, const char *path)
{
    for (size_t i = 0; i < h->n_files; i++) {
        if (strcmp(h->files[i]->path, path) == 0)
            return h->files[i];
    }
    return NULL;
}

static bool parent_exists(struct host_platform *h, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return true; /* the volume root */
    char *parent = strndup(path, (size_t)(slash - path));
    struct host_file *d = host_fs_find(h, parent);
    free(parent);
    return d && d->is_dir;
}

static struct host_file *new_entry(struct host_platform *h, const char *path, bool is_dir)
{
    if (h->n_files == h->cap_files) {
        h->cap_files = h->cap_files ? 2 * h->cap_files : 16;
        h->files = xrealloc(h->files, h->cap_files * sizeof(*h->files));
    }
    struct host_file *f = calloc(1, sizeof(*f));
    f->path = strdup(path);
    f->is_dir = is_dir;
    f->cap = 1;
    f->data = calloc(1, 1);
    h->files[h->n_files++] = f;
    return f;
}

static void append(struct host_file *f, const void *data, size_t len)
{
    if (f->size + len + 1 > f->cap) {
        while (f->size + len + 1 > f->cap)
            f->cap *= 2;
        f->data = xrealloc(f->data, f->cap);
    }
    memcpy(f->data + f->size, data, len);
    f->size += len;
    f->data[f->size] = 0;
}

void host_fs_add_dir(struct host_platform *h, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash) {
        char *parent = strndup(path, (size_t)(slash - path));
        host_fs_add_dir(h, parent);
        free(parent);
    }
    if (!host_fs_find(h, path))
        new_entry(h, path, true);
}

void host_fs_add_file(struct host_platform *h, const char *path, const void *data, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash) {
        char *parent = strndup(path, (size_t)(slash - path));
        host_fs_add_dir(h, parent);
        free(parent);
    }
    struct host_file *f = host_fs_find(h, path);
    if (!f)
        f = new_entry(h, path, false);
    f->size = 0;
    append(f, data, size);
}

void host_fs_add_text(struct host_platform *h, const char *path, const char *text)
{
    host_fs_add_file(h, path, text, strlen(text));
}

const char *host_fs_text(struct host_platform *h, const char *path)
{
    struct host_file *f = host_fs_find(h, path);
    return f && !f->is_dir ? (const char *)f->data : NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t host_fs_list(struct host_platform *h, const char *dir, const char **paths, size_t max)
{
    size_t n = 0, dir_len = strlen(dir);
    for (size_t i = 0; i < h->n_files && n < max; i++) {
        const char *p = h->files[i]->path;
        if (strncmp(p, dir, dir_len) == 0 && p[dir_len] == '/' && !strchr(p + dir_len + 1, '/'))
            paths[n++] = p;
    }
    qsort(paths, n, sizeof(*paths), cmp_str);
    return n;
}

static bool path_fails(const struct host_platform *h, const char *path)
{
    return h->fail_path && strstr(path, h->fail_path);
}

static int host_read_file(void *ctx, const char *path, void **data, size_t *size)
{
    struct host_platform *h = ctx_of(ctx);
    *data = NULL;
    *size = 0;
    struct host_file *f = host_fs_find(h, path);
    if (!f || f->is_dir)
        return NB_ENOENT;
    if (f->size == 0)
        return NB_OK;
    void *copy = host_mmap(h, f->size, PROT_READ | PROT_WRITE);
    if (!copy)
        return NB_ENOMEM;
    memcpy(copy, f->data, f->size);
    h->live_file_data++;
    *data = copy;
    *size = f->size;
    return NB_OK;
}

static void host_free_file(void *ctx, void *data, size_t size)
{
    struct host_platform *h = ctx_of(ctx);
    if (!data)
        return;
    h->live_file_data--;
    host_free_mem(ctx, data, size);
}

static bool host_file_exists(void *ctx, const char *path)
{
    return host_fs_find(ctx_of(ctx), path) != NULL;
}

static int host_make_dir(void *ctx, const char *path)
{
    struct host_platform *h = ctx_of(ctx);
    struct host_file *f = host_fs_find(h, path);
    if (f)
        return f->is_dir ? NB_OK : NB_EINVAL;
    if (!parent_exists(h, path))
        return NB_ENOENT;
    if (h->read_only || path_fails(h, path))
        return NB_EIO;
    new_entry(h, path, true);
    return NB_OK;
}

static int host_create_file(void *ctx, const char *path, struct nb_file **file)
{
    struct host_platform *h = ctx_of(ctx);
    *file = NULL;
    if (!parent_exists(h, path))
        return NB_ENOENT;
    struct host_file *f = host_fs_find(h, path);
    if (f && f->is_dir)
        return NB_EINVAL;
    if (h->read_only || path_fails(h, path))
        return NB_EIO;
    if (!f)
        f = new_entry(h, path, false);
    f->size = 0;
    f->data[0] = 0;
    *file = calloc(1, sizeof(**file));
    (*file)->f = f;
    h->open_files++;
    return NB_OK;
}

static int host_append_file(void *ctx, const char *path, struct nb_file **file)
{
    struct host_platform *h = ctx_of(ctx);
    *file = NULL;
    struct host_file *f = host_fs_find(h, path);
    if (f && f->is_dir)
        return NB_EINVAL;
    if (!f)
        return host_create_file(ctx, path, file);
    if (h->read_only || path_fails(h, path))
        return NB_EIO;
    *file = calloc(1, sizeof(**file));
    (*file)->f = f;
    h->open_files++;
    return NB_OK;
}

static int host_write_file(void *ctx, struct nb_file *file, const void *data, size_t len)
{
    struct host_platform *h = ctx_of(ctx);
    if (h->read_only || path_fails(h, file->f->path) || len > h->free_bytes)
        return NB_EIO;
    if (h->free_bytes != SIZE_MAX)
        h->free_bytes -= len;
    append(file->f, data, len);
    return NB_OK;
}

static int host_flush_file(void *ctx, struct nb_file *file)
{
    struct host_platform *h = ctx_of(ctx);
    if (h->read_only || path_fails(h, file->f->path))
        return NB_EIO;
    if (h->fail_flush_path && strstr(file->f->path, h->fail_flush_path)) {
        if (h->flushes_before_failure == 0)
            return NB_EIO;
        h->flushes_before_failure--;
    }
    return NB_OK;
}

static void host_close_file(void *ctx, struct nb_file *file)
{
    struct host_platform *h = ctx_of(ctx);
    h->open_files--;
    if (h->on_file_closed)
        h->on_file_closed(h, file->f->path);
    free(file);
}

/* ---- text -------------------------------------------------------------- */

static void host_write_text(void *ctx, const char *text, size_t len)
{
    struct host_platform *h = ctx_of(ctx);
    if (h->text_len + len + 1 > h->text_cap) {
        while (h->text_len + len + 1 > h->text_cap)
            h->text_cap = h->text_cap ? 2 * h->text_cap : 4096;
        h->text = xrealloc(h->text, h->text_cap);
    }
    memcpy(h->text + h->text_len, text, len);
    h->text_len += len;
    h->text[h->text_len] = 0;
}

const char *host_raw_text(const struct host_platform *h)
{
    return h->text ? h->text : "";
}

/*
 * Every line the engine prints carries a frame (kernel/report/serial_frame.h): check
 * each one (CRC, consecutive numbers, restarting at 0 for a new boot) and
 * return the text without them, as the results files have it.
 */
const char *host_text(const struct host_platform *h)
{
    struct host_platform *m = (struct host_platform *)h;
    free(m->plain);
    m->plain = xrealloc(NULL, h->text_len + 1);
    size_t out = 0;
    unsigned expect = 0;
    for (size_t i = 0; i < h->text_len;) {
        size_t end = i;
        while (end < h->text_len && h->text[end] != '\n')
            end++;
        size_t text_len;
        unsigned seq;
        bool ok;
        if (!serial_unframe(h->text + i, end - i, &text_len, &seq, &ok) || !ok ||
            (seq != expect && seq != 0)) {
            fprintf(stderr, "host_text: bad serial frame (expected line %u): %.*s\n", expect,
                    (int)(end - i), h->text + i);
            abort();
        }
        expect = seq + 1;
        memcpy(m->plain + out, h->text + i, text_len);
        out += text_len;
        if (end < h->text_len)
            m->plain[out++] = '\n';
        i = end + 1;
    }
    m->plain[out] = '\0';
    return m->plain;
}

void host_text_reset(struct host_platform *h)
{
    h->text_len = 0;
    if (h->text)
        h->text[0] = 0;
}

/* ---- CPUID and MSRs ---------------------------------------------------- */

void host_cpuid_set(struct host_platform *h, uint32_t leaf, uint32_t subleaf, uint32_t eax,
                    uint32_t ebx, uint32_t ecx, uint32_t edx)
{
    size_t i = 0;
    while (i < h->n_cpuid && !(h->cpuid[i].leaf == leaf && h->cpuid[i].subleaf == subleaf))
        i++;
    if (i == HOST_MAX_CPUID)
        abort();
    if (i == h->n_cpuid)
        h->n_cpuid++;
    h->cpuid[i].leaf = leaf;
    h->cpuid[i].subleaf = subleaf;
    h->cpuid[i].regs[0] = eax;
    h->cpuid[i].regs[1] = ebx;
    h->cpuid[i].regs[2] = ecx;
    h->cpuid[i].regs[3] = edx;
}

static uint32_t le32(const char *s)
{
    uint32_t v;
    memcpy(&v, s, 4);
    return v;
}

void host_cpuid_set_vendor(struct host_platform *h, const char *vendor, uint32_t max_leaf)
{
    char v[12] = { 0 };
    memcpy(v, vendor, strnlen(vendor, 12));
    /* The vendor string is EBX, EDX, ECX in that order. */
    host_cpuid_set(h, 0, 0, max_leaf, le32(v), le32(v + 8), le32(v + 4));
}

void host_cpuid_set_brand(struct host_platform *h, const char *brand)
{
    char b[48] = { 0 };
    memcpy(b, brand, strnlen(brand, 48));
    for (uint32_t i = 0; i < 3; i++)
        host_cpuid_set(h, 0x80000002u + i, 0, le32(b + 16 * i), le32(b + 16 * i + 4),
                       le32(b + 16 * i + 8), le32(b + 16 * i + 12));
}

static void host_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    struct host_platform *h = ctx_of(ctx);
    memset(regs, 0, 4 * sizeof(uint32_t));
    for (size_t i = 0; i < h->n_cpuid; i++) {
        if (h->cpuid[i].leaf == leaf && h->cpuid[i].subleaf == subleaf) {
            memcpy(regs, h->cpuid[i].regs, 4 * sizeof(uint32_t));
            break;
        }
    }
    if (h->on_cpuid)
        h->on_cpuid(h, leaf, subleaf);
}

static bool msr_faults(const struct host_platform *h, uint32_t msr)
{
    for (size_t i = 0; i < h->n_faulting; i++) {
        if (h->faulting[i] == msr)
            return true;
    }
    return false;
}

void host_msr_set(struct host_platform *h, uint32_t msr, uint64_t value)
{
    size_t i = 0;
    while (i < h->n_msrs && h->msrs[i].msr != msr)
        i++;
    if (i == HOST_MAX_MSRS)
        abort();
    if (i == h->n_msrs)
        h->n_msrs++;
    h->msrs[i].msr = msr;
    h->msrs[i].value = value;
}

uint64_t host_msr_get(const struct host_platform *h, uint32_t msr)
{
    for (size_t i = 0; i < h->n_msrs; i++) {
        if (h->msrs[i].msr == msr)
            return h->msrs[i].value;
    }
    return 0;
}

void host_msr_fault(struct host_platform *h, uint32_t msr)
{
    if (h->n_faulting == HOST_MAX_MSRS)
        abort();
    h->faulting[h->n_faulting++] = msr;
}

static struct host_msr_model *model_of(struct host_platform *h, uint32_t msr)
{
    for (size_t i = 0; i < h->n_models; i++) {
        if (h->models[i].msr == msr)
            return &h->models[i];
    }
    return NULL;
}

static struct host_msr_model *new_model(struct host_platform *h, uint32_t msr)
{
    struct host_msr_model *m = model_of(h, msr);
    if (!m) {
        if (h->n_models == HOST_MAX_MSRS)
            abort();
        m = &h->models[h->n_models++];
        *m = (struct host_msr_model){ msr, msr, 64, false, 0 };
    }
    return m;
}

void host_msr_reserved(struct host_platform *h, uint32_t msr, uint64_t reserved)
{
    new_model(h, msr)->reserved = reserved;
}

void host_msr_counter(struct host_platform *h, uint32_t msr, unsigned width)
{
    new_model(h, msr)->width = width;
}

void host_msr_alias(struct host_platform *h, uint32_t alias, uint32_t store, unsigned width,
                    bool sign_extend_32)
{
    struct host_msr_model *m = new_model(h, alias);
    m->store = store;
    m->width = width;
    m->sign_extend_32 = sign_extend_32;
}

void host_intel_pmcs(struct host_platform *h, unsigned n, unsigned width, bool full_width_writes)
{
    for (unsigned i = 0; i < n; i++) {
        host_msr_alias(h, 0xC1 + i, 0xC1 + i, width, true);
        if (full_width_writes)
            host_msr_alias(h, 0x4C1 + i, 0xC1 + i, width, false);
        else
            host_msr_fault(h, 0x4C1 + i);
    }
}

void host_intel_perfmon_v4(struct host_platform *h, uint32_t cpuid1_eax, uint32_t cpuid1_edx)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", 0x1A);
    host_cpuid_set(h, 1, 0, cpuid1_eax, 0, 0, cpuid1_edx);
    host_cpuid_set(h, 0xA, 0, 0x07300404, 0, 0, 0x603);
    host_msr_fault(h, 0x8B);
    host_intel_pmcs(h, 4, 48, false);
    for (unsigned i = 0; i < 3; i++)
        host_msr_counter(h, MSR_IA32_FIXED_CTR0 + i, 48);
}

static int host_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct host_platform *h = ctx_of(ctx);
    *value = 0;
    if (msr_faults(h, msr))
        return NB_EFAULT;
    struct host_msr_model *m = model_of(h, msr);
    *value = host_msr_get(h, m ? m->store : msr);
    return NB_OK;
}

static int host_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    struct host_platform *h = ctx_of(ctx);
    struct host_msr_model *m = model_of(h, msr);
    if (msr_faults(h, msr) || (m && (value & m->reserved))) {
        h->n_write_faults++;
        return NB_EFAULT;
    }
    if (h->n_writes < HOST_MAX_MSR_WRITES)
        h->writes[h->n_writes++] = (struct host_msr_write){ msr, value };
    uint64_t stored = value;
    if (m && m->sign_extend_32)
        stored = (uint64_t)(int64_t)(int32_t)(uint32_t)value;
    if (m && m->width < 64)
        stored &= (1ull << m->width) - 1;
    host_msr_set(h, m ? m->store : msr, stored);
    if (h->on_msr_write)
        h->on_msr_write(h, msr, value);
    return NB_OK;
}

/* ---- clock and finish -------------------------------------------------- */

static uint64_t host_read_tsc(void *ctx)
{
    struct host_platform *h = ctx_of(ctx);
    return h->real_tsc ? __rdtsc() : h->tsc;
}

static void host_stall_us(void *ctx, uint32_t us)
{
    struct host_platform *h = ctx_of(ctx);
    h->clock_us += us;
    h->tsc += (uint64_t)us * h->tsc_per_us;
}

/* ---- control registers -------------------------------------------------- */

#define HOST_CR4_OSXSAVE (1ull << 18)

static uint64_t host_read_cr4(void *ctx) { return ctx_of(ctx)->cr4; }

static void host_write_cr4(void *ctx, uint64_t value)
{
    struct host_platform *h = ctx_of(ctx);
    h->cr4 = value;
    h->cr4_writes++;
}

static uint64_t host_read_xcr0(void *ctx)
{
    struct host_platform *h = ctx_of(ctx);
    if (!(h->cr4 & HOST_CR4_OSXSAVE))
        h->bad_xcr_accesses++; /* XGETBV #UD */
    return h->xcr0;
}

/* XSETBV's #UD and #GP conditions (SDM vol. 2C XSETBV, vol. 1 13.3). */
static void host_write_xcr0(void *ctx, uint64_t v)
{
    struct host_platform *h = ctx_of(ctx);
    uint32_t r[4] = { 0 };
    void (*hook)(struct host_platform *, uint32_t, uint32_t) = h->on_cpuid;
    h->on_cpuid = NULL; /* the processor checking XSETBV is not a CPUID the engine ran */
    host_cpuid(ctx, 0xD, 0, r);
    h->on_cpuid = hook;
    uint64_t supported = (uint64_t)r[3] << 32 | r[0];
    uint64_t avx512 = 7ull << 5, amx = 3ull << 17;
    bool bad = !(h->cr4 & HOST_CR4_OSXSAVE) || !(v & 1) || (v & ~supported) ||
               ((v & 4) && !(v & 2)) || ((v & avx512) && (v & avx512) != avx512) ||
               ((v & avx512) && !(v & 4)) || ((v & amx) && (v & amx) != amx);
    h->xcr0_writes++;
    if (bad)
        h->bad_xcr_accesses++;
    else
        h->xcr0 = v;
}

void host_control_regs_enable(struct host_platform *h, uint64_t cr4, uint64_t xcr0)
{
    h->cr4 = cr4;
    h->xcr0 = xcr0;
    h->p.read_cr4 = host_read_cr4;
    h->p.write_cr4 = host_write_cr4;
    h->p.read_xcr0 = host_read_xcr0;
    h->p.write_xcr0 = host_write_xcr0;
}

static uint64_t host_read_cr0(void *ctx) { return ctx_of(ctx)->cr0; }
static uint64_t host_read_cr3(void *ctx) { return ctx_of(ctx)->cr3; }

static void host_write_cr0(void *ctx, uint64_t value)
{
    struct host_platform *h = ctx_of(ctx);
    if (h->cr0_writes < (int)(sizeof(h->cr0_written) / sizeof(h->cr0_written[0])))
        h->cr0_written[h->cr0_writes] = value;
    h->cr0_writes++;
    h->cr0 = value;
}

static void host_write_cr3(void *ctx, uint64_t value)
{
    struct host_platform *h = ctx_of(ctx);
    h->cr3_writes++;
    h->cr3 = value;
}

void host_paging_enable(struct host_platform *h, uint64_t cr0, uint64_t cr3)
{
    h->cr0 = cr0;
    h->cr3 = cr3;
    h->p.read_cr0 = host_read_cr0;
    h->p.write_cr0 = host_write_cr0;
    h->p.read_cr3 = host_read_cr3;
    h->p.write_cr3 = host_write_cr3;
}

static void host_finish(void *ctx, enum nb_finish_action action)
{
    struct host_platform *h = ctx_of(ctx);
    h->finish_calls++;
    h->finish_action = action;
}

/* ---- setup ------------------------------------------------------------- */

void host_platform_init(struct host_platform *h)
{
    memset(h, 0, sizeof(*h));
    h->p = (struct nb_platform){
        .ctx = h,
        .write_text = host_write_text,
        .read_file = host_read_file,
        .free_file = host_free_file,
        .file_exists = host_file_exists,
        .make_dir = host_make_dir,
        .create_file = host_create_file,
        .append_file = host_append_file,
        .write_file = host_write_file,
        .flush_file = host_flush_file,
        .close_file = host_close_file,
        .alloc_exec = host_alloc_exec,
        .alloc_data = host_alloc_data,
        .free_mem = host_free_mem,
        .cpuid = host_cpuid,
        .read_msr = host_read_msr,
        .write_msr = host_write_msr,
        .read_tsc = host_read_tsc,
        .stall_us = host_stall_us,
        .finish = host_finish,
    };
    h->free_bytes = SIZE_MAX;
    h->alloc_budget = -1;
    h->tsc_per_us = 1000;
}

void host_platform_free(struct host_platform *h)
{
    for (size_t i = 0; i < h->n_files; i++) {
        free(h->files[i]->path);
        free(h->files[i]->data);
        free(h->files[i]);
    }
    free(h->files);
    free(h->text);
    free(h->plain);
    while (h->n_allocs > 0) {
        h->n_allocs--;
        munmap(h->allocs[h->n_allocs].p, h->allocs[h->n_allocs].size ? h->allocs[h->n_allocs].size : 1);
    }
    memset(h, 0, sizeof(*h));
}

/* ---- CLI in user mode -------------------------------------------------- */

static struct sigaction previous_segv;

static void skip_cli(int sig, siginfo_t *info, void *uctx)
{
    ucontext_t *uc = uctx;
    /* #GP arrives as SI_KERNEL; page faults (MAPERR/ACCERR) are not ours. */
    if (info->si_code == SI_KERNEL) {
        const uint8_t *rip = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
        if (*rip == 0xFA) {
            uc->uc_mcontext.gregs[REG_RIP] += 1;
            return;
        }
    }
    (void)sig;
    /* Not a CLI: let the previous handler (or the default action) see the retried fault. */
    sigaction(SIGSEGV, &previous_segv, NULL);
}

void host_cli_trap_install(void)
{
    static bool installed;
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = skip_cli;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    installed = true;
}
