/*
 * cpu_caches.h — the cache and TLB hierarchy as CPUID describes it, for the
 * platform report and the latency calibration's sizes:
 *   caches: Intel CPUID.04H, AMD CPUID.8000_001DH (with TopologyExtensions)
 *           or the legacy AMD leaves 8000_0005H/8000_0006H;
 *   TLBs:   Intel CPUID.18H, AMD 8000_0005H/8000_0006H. Intel's older
 *           leaf-2 descriptor bytes are not decoded (reported as such).
 */
#ifndef CPU_CACHES_H
#define CPU_CACHES_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "nb_platform.h"

#define CPU_MAX_CACHES 8
#define CPU_MAX_TLBS 12

enum cpu_cache_type { CACHE_DATA = 1, CACHE_INSTRUCTION = 2, CACHE_UNIFIED = 3 };

struct cpu_cache {
    char name[4];              /* "L1d", "L1i", "L2", "L3", "L4" */
    unsigned level;
    enum cpu_cache_type type;
    uint64_t size;             /* bytes */
    uint32_t ways;             /* 0: fully associative */
    uint32_t line;             /* bytes */
    uint32_t sets;             /* 0 where the leaf does not say (legacy AMD: size / line / ways) */
    uint32_t shared_by;        /* logical processors sharing it; 0: the leaf does not say */
};

struct cpu_tlb {
    char name[8];              /* "L1d", "L1i", "L2", "L2d", ... */
    char pages[16];            /* "4K", "2M/4M", "4K/2M/4M/1G", ... */
    uint32_t entries;
    uint32_t ways;             /* 0: fully associative */
};

struct cpu_cache_info {
    const char *cache_source;  /* "CPUID.04H", ...; NULL when nothing was found */
    unsigned n_caches;
    struct cpu_cache caches[CPU_MAX_CACHES];
    const char *tlb_source;    /* NULL: tlb_missing says why */
    const char *tlb_missing;
    unsigned n_tlbs;
    struct cpu_tlb tlbs[CPU_MAX_TLBS];
};

void cpu_caches_read(const struct nb_platform *p, const struct machine_info *m, struct cpu_cache_info *out);

#endif
