/*
 * paging_census.c — see paging_census.h. 4-level and 5-level paging, SDM
 * vol. 3A 4.5: each table has 512 8-byte entries; bit 0 Present; bit 7 PS
 * makes a PDPTE map a 1-GiB page and a PDE a 2-MiB page; bits 51:12 hold the
 * next table's (or the page's) physical address.
 */
#include "paging_census.h"

#include "nb_text.h"

#define PTE_PRESENT (1ull << 0)
#define PTE_PAGE_SIZE (1ull << 7)
#define PTE_ADDRESS_MASK 0x000FFFFFFFFFF000ull
#define CR4_LA57 (1ull << 12)
#define ENTRIES_PER_TABLE 512u

struct walk {
    struct paging_census *out;
    unsigned tables;
};

/* depth 1 = the page table (PTEs), 2 = page directory, 3 = PDPT, 4 = PML4, 5 = PML5. */
static void walk_table(struct walk *w, uint64_t table, unsigned depth)
{
    if (w->tables >= PAGING_MAX_TABLES) {
        w->out->truncated = true;
        return;
    }
    w->tables++;
    const uint64_t *e = (const uint64_t *)(uintptr_t)(table & PTE_ADDRESS_MASK);
    for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++) {
        uint64_t v = e[i];
        if (!(v & PTE_PRESENT))
            continue;
        if (depth == 1)
            w->out->pages_4k++;
        else if (depth == 2 && (v & PTE_PAGE_SIZE))
            w->out->pages_2m++;
        else if (depth == 3 && (v & PTE_PAGE_SIZE))
            w->out->pages_1g++;
        else
            walk_table(w, v, depth - 1);
    }
}

void paging_census(uint64_t cr3, uint64_t cr4, struct paging_census *out)
{
    nb_memset(out, 0, sizeof(*out));
    out->levels = (cr4 & CR4_LA57) ? 5 : 4;
    struct walk w = { out, 0 };
    walk_table(&w, cr3, out->levels);
}

void paging_page_sizes(const struct paging_census *c, char *out, unsigned cap)
{
    size_t n = 0;
    out[0] = '\0';
    if (c->pages_4k)
        n += nb_snprintf(out + n, cap - n, "%s4K", n ? "," : "");
    if (c->pages_2m && n < cap)
        n += nb_snprintf(out + n, cap - n, "%s2M", n ? "," : "");
    if (c->pages_1g && n < cap)
        nb_snprintf(out + n, cap - n, "%s1G", n ? "," : "");
}
