/*
 * host_platform.h — a fake `struct nb_platform` for host unit tests.
 *
 * Everything the engine reaches through the seam is observable and
 * scriptable here: files live in memory (with switches for a read-only or
 * full medium), text output collects in a buffer, CPUID answers come from a
 * table, MSRs from a map that records every write, the clock is a fake
 * counter advanced by stall_us, and memory comes from mmap (executable where
 * the engine asks for it), so generated code really runs.
 */
#ifndef HOST_PLATFORM_H
#define HOST_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

#define HOST_MAX_CPUID 64
#define HOST_MAX_MSRS 128
#define HOST_MAX_MSR_WRITES 256
#define HOST_MAX_ALLOCS 256

struct host_file {
    char *path;
    bool is_dir;
    uint8_t *data; /* always followed by a NUL, so text files read as strings */
    size_t size, cap;
};

struct host_msr_write {
    uint32_t msr;
    uint64_t value;
};

struct host_platform {
    struct nb_platform p; /* p.ctx points back to this struct */

    /* Files. */
    struct host_file **files;
    size_t n_files, cap_files;
    bool read_only;           /* creating, writing and making folders fail with NB_EIO */
    size_t free_bytes;        /* bytes writes may still add; SIZE_MAX: unlimited */
    const char *fail_path;    /* create/write/flush of paths containing this fail with NB_EIO */
    const char *fail_flush_path; /* flushes of paths containing this fail with NB_EIO... */
    int flushes_before_failure;  /* ...after this many succeeded */
    int open_files;           /* created and not yet closed */
    /* Called after a file is closed (e.g. to look at the state file as each write leaves it). */
    void (*on_file_closed)(struct host_platform *h, const char *path);
    int live_file_data;       /* read_file buffers not yet freed */

    /* Text output. */
    char *text;               /* as printed, serial frames included */
    size_t text_len, text_cap;
    char *plain;              /* host_text's unframed copy */

    /* CPUID table: unknown leaves answer zeros. */
    struct {
        uint32_t leaf, subleaf, regs[4];
    } cpuid[HOST_MAX_CPUID];
    size_t n_cpuid;
    /* Called after every CPUID (e.g. to model what CPUID(1) does to IA32_BIOS_SIGN_ID). */
    void (*on_cpuid)(struct host_platform *h, uint32_t leaf, uint32_t subleaf);

    /* MSRs: unknown ones read 0; writes are stored and recorded in order. */
    struct {
        uint32_t msr;
        uint64_t value;
    } msrs[HOST_MAX_MSRS];
    size_t n_msrs;
    uint32_t faulting[HOST_MAX_MSRS];
    size_t n_faulting;
    struct host_msr_write writes[HOST_MAX_MSR_WRITES];
    size_t n_writes;
    /*
     * How an MSR behaves like hardware (host_msr_model): writes with a
     * reserved bit set fault by value; counters keep only their width's bits;
     * an alias stores into another MSR (IA32_PMCx / IA32_A_PMCx).
     */
    struct host_msr_model {
        uint32_t msr;
        uint32_t store;      /* where the value lives (msr itself, or the aliased counter) */
        unsigned width;      /* bits kept by a write; 64 for ordinary MSRs */
        bool sign_extend_32; /* legacy IA32_PMCx: a write is EAX sign-extended (SDM vol. 3B 20.2.6) */
        uint64_t reserved;   /* a write with any of these bits set is a #GP: NB_EFAULT, nothing changes */
    } models[HOST_MAX_MSRS];
    size_t n_models;
    size_t n_write_faults; /* writes that faulted (by MSR or by value) */
    /* Called after every successful MSR write (e.g. to model IA32_BIOS_SIGN_ID). */
    void (*on_msr_write)(struct host_platform *h, uint32_t msr, uint64_t value);

    /*
     * Control registers (host_control_regs_enable): CR4 and XCR0 as the engine
     * left them, every write counted, and a count of writes a real processor
     * would fault on (XSETBV without CR4.OSXSAVE, or an XCR0 that breaks
     * SDM vol. 1 13.3 or has bits CPUID.(0DH,0) does not report).
     */
    uint64_t cr4, xcr0;
    int cr4_writes, xcr0_writes, bad_xcr_accesses;
    /* CR0/CR3 (host_paging_enable): every CR0 write in order, and how often CR3 was written. */
    uint64_t cr0, cr3;
    uint64_t cr0_written[8];
    int cr0_writes, cr3_writes;

    /* Clock: the fake TSC advances by tsc_per_us for every microsecond stalled. */
    bool real_tsc;            /* read_tsc executes RDTSC instead */
    uint64_t tsc;
    uint64_t tsc_per_us;
    uint64_t clock_us;        /* total microseconds stalled */

    /* Memory. */
    struct {
        void *p;
        size_t size;
    } allocs[HOST_MAX_ALLOCS];
    size_t n_allocs;
    long alloc_budget;        /* successful allocations left; -1: unlimited */
    size_t alloc_largest;     /* larger allocations fail (no free block that big); 0: no limit */
    int bad_frees;            /* free_mem of an unknown pointer or with the wrong size */

    /* finish(). */
    int finish_calls;
    enum nb_finish_action finish_action;
};

void host_platform_init(struct host_platform *h);
void host_platform_free(struct host_platform *h);

/* Files: adding a file creates its parent folders. */
void host_fs_add_file(struct host_platform *h, const char *path, const void *data, size_t size);
void host_fs_add_text(struct host_platform *h, const char *path, const char *text);
void host_fs_add_dir(struct host_platform *h, const char *path);
struct host_file *host_fs_find(struct host_platform *h, const char *path);
/* Contents of a file as a NUL-terminated string, or NULL when it does not exist. */
const char *host_fs_text(struct host_platform *h, const char *path);
/* Paths of the files and folders directly inside `dir` (sorted); returns the count. */
size_t host_fs_list(struct host_platform *h, const char *dir, const char **paths, size_t max);

/* Text written through write_text so far. */
/* The printed text without serial frames (each frame checked; abort on a bad one). */
const char *host_text(const struct host_platform *h);
/* The printed text as it went out, frames included. */
const char *host_raw_text(const struct host_platform *h);
void host_text_reset(struct host_platform *h);

void host_cpuid_set(struct host_platform *h, uint32_t leaf, uint32_t subleaf, uint32_t eax,
                    uint32_t ebx, uint32_t ecx, uint32_t edx);
/* Sets leaves 0 and 80000002..4 from strings (vendor 12 chars, brand up to 48). */
void host_cpuid_set_vendor(struct host_platform *h, const char *vendor, uint32_t max_leaf);
void host_cpuid_set_brand(struct host_platform *h, const char *brand);

/* Gives the platform CR4/XCR0 access (read_cr4..write_xcr0), starting at these values. */
void host_control_regs_enable(struct host_platform *h, uint64_t cr4, uint64_t xcr0);
/* Gives the platform CR0/CR3 access (read_cr0..write_cr3), starting at these values. */
void host_paging_enable(struct host_platform *h, uint64_t cr0, uint64_t cr3);

void host_msr_set(struct host_platform *h, uint32_t msr, uint64_t value);
uint64_t host_msr_get(const struct host_platform *h, uint32_t msr);
/* Accesses to this MSR fault (NB_EFAULT), as a #GP would on hardware. */
void host_msr_fault(struct host_platform *h, uint32_t msr);
/* A write to this MSR with any bit of `reserved` set faults and changes nothing (a #GP). */
void host_msr_reserved(struct host_platform *h, uint32_t msr, uint64_t reserved);
/*
 * A counter MSR of `width` bits: a write keeps bits width-1:0 (reserved
 * bits above are ignored, as the SDM and APM describe for the counters).
 */
void host_msr_counter(struct host_platform *h, uint32_t msr, unsigned width);
/*
 * `alias` reads and writes counter `store` of `width` bits. With
 * sign_extend_32 (the legacy IA32_PMCx alias) a write stores bits 31:0
 * sign-extended to the width; otherwise (IA32_A_PMCx) the full width.
 */
void host_msr_alias(struct host_platform *h, uint32_t alias, uint32_t store, unsigned width,
                    bool sign_extend_32);
/*
 * Intel general-purpose counters as hardware has them: IA32_PMCx (0xC1+i)
 * holds the `width`-bit counter and writes sign-extend bit 31; with
 * full_width_writes, IA32_A_PMCx (0x4C1+i) writes all bits; otherwise
 * IA32_A_PMCx faults.
 */
void host_intel_pmcs(struct host_platform *h, unsigned n, unsigned width, bool full_width_writes);

/*
 * host_platform_init, then a Skylake-like Intel core: CPUID 0 GenuineIntel up
 * to leaf 1AH, CPUID 1 as given, CPUID 0AH architectural perfmon version 4
 * with 4 general-purpose and 3 fixed counters of 48 bits (SDM vol. 3B 20.2.4,
 * EAX 07300404H, EDX 603H), the counters modelled at that width
 * (host_intel_pmcs without full-width writes, IA32_FIXED_CTR0-2) and MSR 8BH
 * (the microcode signature) faulting as it does for a guest.
 */
void host_intel_perfmon_v4(struct host_platform *h, uint32_t cpuid1_eax, uint32_t cpuid1_edx);

/*
 * User mode cannot mask interrupts: CLI raises #GP (SIGSEGV). The engine's
 * nb_run_image always asks for masked interrupts, so host tests that run it
 * install a handler that steps over a faulting CLI (0xFA) and passes any
 * other fault on to the previous handler.
 */
void host_cli_trap_install(void);

#endif
