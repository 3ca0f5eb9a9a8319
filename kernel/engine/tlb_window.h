/*
 * tlb_window.h — a window of 4 KiB pages for measuring a page walk
 * (-calibrate's TLB level, ../shared/METRICS-FACTS.md §3c step 2). The
 * firmware's identity map uses 2 MiB and 1 GiB pages, so a load through it
 * rarely walks; the window maps `pages` consecutive virtual 4 KiB pages onto
 * a few physical frames (page v -> frame v mod n_frames) with new page
 * tables (one PDPT, one PD, one PT per 512 pages) hooked into one unused
 * entry of the live PML4, and unhooks them afterwards, so the firmware's
 * map is the same as before. Tables reached through the seam: CR0 (WP),
 * CR3 (the root), CR4 (LA57).
 */
#ifndef TLB_WINDOW_H
#define TLB_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

#define TLB_PAGE 4096u
#define TLB_WINDOW_MAX_PAGES (512u * 512u) /* one PD: 1 GiB */

struct tlb_window {
    uint64_t *root;      /* the live PML4 while hooked, NULL otherwise */
    unsigned slot;       /* the PML4 entry that points to the window */
    uint64_t *tables;    /* PDPT, PD, then the page tables (4 KiB each) */
    size_t tables_bytes;
    uint64_t pages;
    uint8_t *base;       /* virtual address of page 0: slot << 39 */
};

/*
 * Maps page v of the window to frames + (v mod n_frames) * 4 KiB (frames
 * page-aligned, identity-mapped) and hooks it into the live tables. On
 * failure returns a status with one line in why (no access to CR0/CR3/CR4
 * from here, 5-level paging, no free PML4 entry, no memory) and changes
 * nothing.
 */
int tlb_window_map(struct tlb_window *w, const struct nb_platform *p, uint64_t pages, const uint8_t *frames,
                   uint64_t n_frames, char *why, size_t why_cap);

/* Unhooks the window, flushes the TLBs (CR3 reload) and frees its tables. */
void tlb_window_unmap(struct tlb_window *w, const struct nb_platform *p);

#endif
