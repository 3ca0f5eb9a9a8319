/*
 * paging_census.h — how the firmware's identity map is built: paging levels
 * (CR4.LA57) and how many leaf entries of each page size it uses. The
 * -r14_size areas and the memory latencies depend on it (a TLB miss walks
 * these tables).
 */
#ifndef PAGING_CENSUS_H
#define PAGING_CENSUS_H

#include <stdbool.h>
#include <stdint.h>

struct paging_census {
    unsigned levels;        /* 4 or 5 */
    uint64_t pages_4k, pages_2m, pages_1g;
    bool truncated;         /* stopped at PAGING_MAX_TABLES tables */
};

#define PAGING_MAX_TABLES 65536u

/*
 * Walks the tables from `cr3` (physical = virtual: the UEFI identity map,
 * UEFI 2.10 §2.3.4). `cr4` gives LA57 (bit 12, SDM vol. 3A 4.1.1).
 */
void paging_census(uint64_t cr3, uint64_t cr4, struct paging_census *out);
/* "4K,2M,1G": the sizes in use, "" for none. */
void paging_page_sizes(const struct paging_census *c, char *out, unsigned cap);

#endif
