/*
 * tlb_window.c — 4 KiB pages hooked into the live page tables for the
 * page-walk latency (see tlb_window.h). 4-level paging, SDM vol. 3A 4.5:
 * CR3 -> PML4 (bits 47:39) -> PDPT (38:30) -> PD (29:21) -> PT (20:12).
 */
#include "tlb_window.h"
#include "nb_text.h"

#define CR0_WP (1ull << 16)   /* write protect: ring 0 honours R/W = 0 (SDM vol. 3A 2.5, 4.6.1) */
#define CR4_LA57 (1ull << 12) /* 57-bit linear addresses: 5-level paging (SDM vol. 3A 4.1.1) */
#define CR4_CET (1ull << 23)  /* control-flow enforcement: CR0.WP must stay 1 (SDM vol. 3A 2.5) */
/* CR3 bits 51:12: the physical address of the PML4 (SDM vol. 3A 4.5, table 4-13). */
#define CR3_ROOT_MASK 0x000FFFFFFFFFF000ull
/* Paging-structure entry bits (SDM vol. 3A 4.5, tables 4-15 to 4-20). */
#define PTE_PRESENT (1ull << 0)
#define PTE_WRITABLE (1ull << 1)
#define PML4_SHIFT 39
#define ENTRIES 512u
/* The lower canonical half has PML4 entries 0..255; entry 0 holds the low memory of the identity map. */
#define PML4_LOWER_HALF 256u

static uint64_t phys(const void *p)
{
    return (uint64_t)(uintptr_t)p; /* the UEFI identity map (UEFI 2.10 §2.3.4) */
}

/*
 * One 8-byte store into the live tables. The firmware may keep its page
 * tables read-only; with CR0.WP clear ring 0 writes them anyway (SDM vol. 3A
 * 4.6.1). The CR3 reload flushes what the TLBs and the paging-structure
 * caches hold for the old entry (SDM vol. 3A 4.10.4.1; the window's pages
 * are not global).
 */
static void write_live_entry(const struct nb_platform *p, uint64_t *entry, uint64_t value)
{
    uint64_t cr0 = p->read_cr0(p->ctx);
    if (cr0 & CR0_WP)
        p->write_cr0(p->ctx, cr0 & ~CR0_WP);
    *(volatile uint64_t *)entry = value;
    if (cr0 & CR0_WP)
        p->write_cr0(p->ctx, cr0);
    p->write_cr3(p->ctx, p->read_cr3(p->ctx));
}

int tlb_window_map(struct tlb_window *w, const struct nb_platform *p, uint64_t pages, const uint8_t *frames,
                   uint64_t n_frames, char *why, size_t why_cap)
{
    nb_memset(w, 0, sizeof(*w));
    if (!p->read_cr0 || !p->write_cr0 || !p->read_cr3 || !p->write_cr3 || !p->read_cr4) {
        nb_snprintf(why, why_cap, "no access to CR0, CR3 and CR4 here");
        return NB_EUNSUPP;
    }
    uint64_t cr4 = p->read_cr4(p->ctx);
    if (cr4 & CR4_LA57) {
        nb_snprintf(why, why_cap, "5-level paging (CR4.LA57): the window hooks a PML4 entry");
        return NB_EUNSUPP;
    }
    /* MOV to CR0 that clears WP while CR4.CET = 1 raises #GP. */
    if ((cr4 & CR4_CET) && (p->read_cr0(p->ctx) & CR0_WP)) {
        nb_snprintf(why, why_cap, "CR4.CET is set, so CR0.WP cannot be cleared to write the firmware's PML4");
        return NB_EUNSUPP;
    }
    if (!pages || pages > TLB_WINDOW_MAX_PAGES || !n_frames || (phys(frames) & (TLB_PAGE - 1))) {
        nb_snprintf(why, why_cap, "bad window (%llu pages on %llu frames)", (unsigned long long)pages,
                    (unsigned long long)n_frames);
        return NB_EINVAL;
    }
    uint64_t *root = (uint64_t *)(uintptr_t)(p->read_cr3(p->ctx) & CR3_ROOT_MASK);
    unsigned slot = PML4_LOWER_HALF - 1;
    while (slot > 0 && (root[slot] & PTE_PRESENT))
        slot--;
    if (!slot) {
        nb_snprintf(why, why_cap, "no free PML4 entry in the lower half");
        return NB_EUNSUPP;
    }
    uint64_t n_pts = (pages + ENTRIES - 1) / ENTRIES;
    size_t bytes = (size_t)(2 + n_pts) * TLB_PAGE;
    uint64_t *t = p->alloc_data(p->ctx, bytes);
    if (!t) {
        nb_snprintf(why, why_cap, "no memory for %llu page-table pages", (unsigned long long)(2 + n_pts));
        return NB_ENOMEM;
    }
    /* alloc_data zeroes: every entry not set below is not present. */
    uint64_t *pdpt = t, *pd = t + ENTRIES, *pt = t + 2 * ENTRIES;
    pdpt[0] = phys(pd) | PTE_PRESENT | PTE_WRITABLE;
    for (uint64_t i = 0; i < n_pts; i++)
        pd[i] = phys(pt + i * ENTRIES) | PTE_PRESENT | PTE_WRITABLE;
    for (uint64_t v = 0; v < pages; v++)
        pt[v] = (phys(frames) + v % n_frames * TLB_PAGE) | PTE_PRESENT | PTE_WRITABLE;
    w->root = root;
    w->slot = slot;
    w->tables = t;
    w->tables_bytes = bytes;
    w->pages = pages;
    w->base = (uint8_t *)(uintptr_t)((uint64_t)slot << PML4_SHIFT);
    write_live_entry(p, &root[slot], phys(pdpt) | PTE_PRESENT | PTE_WRITABLE);
    return NB_OK;
}

void tlb_window_unmap(struct tlb_window *w, const struct nb_platform *p)
{
    if (!w->root)
        return;
    write_live_entry(p, &w->root[w->slot], 0);
    p->free_mem(p->ctx, w->tables, w->tables_bytes);
    nb_memset(w, 0, sizeof(*w));
}
