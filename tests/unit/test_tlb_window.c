/*
 * test_tlb_window.c — the 4 KiB window for the page-walk latency: the exact
 * entries it builds (SDM vol. 3A 4.5: P = bit 0, R/W = bit 1), the unused
 * PML4 entry it hooks, CR0.WP cleared only around the two stores into the
 * live PML4, a CR3 reload after each, and the PML4 as it was after unmap.
 * The fake CR3 points at a host page standing for the firmware's PML4.
 */
#include "host_platform.h"
#include "nb_test.h"
#include "tlb_window.h"

#include <stdlib.h>
#include <string.h>

#define CR0_PE_PG_WP 0x80010001ull /* CR0.PG | CR0.WP | CR0.PE */
#define CR0_PE_PG 0x80000001ull

struct fake_tables {
    struct host_platform h;
    uint64_t *pml4;
    uint8_t *frames;
};

static void fake_init(struct fake_tables *f, uint64_t cr0, uint64_t cr4)
{
    host_platform_init(&f->h);
    f->pml4 = aligned_alloc(4096, 4096);
    f->frames = aligned_alloc(4096, 2 * 4096);
    memset(f->pml4, 0, 4096);
    /* Entry 0: the identity map's low 512 GiB; 255 taken too, so the window gets 254. */
    f->pml4[0] = 0x1003;
    f->pml4[255] = 0x2003;
    /* CR3 = PML4 address | PCD | PWT (bits 4 and 3): the flags are not part of the address. */
    host_paging_enable(&f->h, cr0, (uint64_t)(uintptr_t)f->pml4 | 0x18);
    host_control_regs_enable(&f->h, cr4, 0);
}

static void fake_free(struct fake_tables *f)
{
    free(f->pml4);
    free(f->frames);
    host_platform_free(&f->h);
}

NB_TEST(tlb_window_maps_4k_pages_onto_the_frames_and_unhooks)
{
    struct fake_tables f;
    fake_init(&f, CR0_PE_PG_WP, 0);
    struct tlb_window w;
    char why[120] = "";
    REQUIRE(tlb_window_map(&w, &f.h.p, 1025, f.frames, 2, why, sizeof(why)) == NB_OK);
    CHECK_EQ_STR(why, "");
    CHECK_EQ_INT(w.slot, 254);
    CHECK_EQ_U64((uint64_t)(uintptr_t)w.base, 0x7F0000000000ull); /* 254 << 39 */
    CHECK_EQ_U64(w.tables_bytes, 5 * 4096);                        /* PDPT, PD, 3 PTs */
    uint64_t t = (uint64_t)(uintptr_t)w.tables, fr = (uint64_t)(uintptr_t)f.frames;
    CHECK_EQ_U64(f.pml4[254], t | 3);
    CHECK_EQ_U64(f.pml4[0], 0x1003);
    CHECK_EQ_U64(f.pml4[255], 0x2003);
    const uint64_t *pdpt = w.tables, *pd = w.tables + 512, *pt = w.tables + 1024;
    CHECK_EQ_U64(pdpt[0], (t + 4096) | 3);
    CHECK_EQ_U64(pdpt[1], 0);
    CHECK_EQ_U64(pd[0], (t + 2 * 4096) | 3);
    CHECK_EQ_U64(pd[1], (t + 3 * 4096) | 3);
    CHECK_EQ_U64(pd[2], (t + 4 * 4096) | 3);
    CHECK_EQ_U64(pd[3], 0);
    CHECK_EQ_U64(pt[0], fr | 3);
    CHECK_EQ_U64(pt[1], (fr + 4096) | 3);
    CHECK_EQ_U64(pt[2], fr | 3);
    CHECK_EQ_U64(pt[1024], fr | 3);
    CHECK_EQ_U64(pt[1025], 0);
    /* WP off for the store, back on; CR3 reloaded with the same value. */
    CHECK_EQ_INT(f.h.cr0_writes, 2);
    CHECK_EQ_U64(f.h.cr0_written[0], CR0_PE_PG);
    CHECK_EQ_U64(f.h.cr0_written[1], CR0_PE_PG_WP);
    CHECK_EQ_INT(f.h.cr3_writes, 1);
    CHECK_EQ_U64(f.h.cr3, (uint64_t)(uintptr_t)f.pml4 | 0x18);

    tlb_window_unmap(&w, &f.h.p);
    CHECK_EQ_U64(f.pml4[254], 0);
    CHECK_EQ_U64(f.pml4[0], 0x1003);
    CHECK_EQ_U64(f.pml4[255], 0x2003);
    CHECK_EQ_INT(f.h.cr0_writes, 4);
    CHECK_EQ_U64(f.h.cr0_written[2], CR0_PE_PG);
    CHECK_EQ_U64(f.h.cr0_written[3], CR0_PE_PG_WP);
    CHECK_EQ_INT(f.h.cr3_writes, 2);
    CHECK_EQ_U64(f.h.cr0, CR0_PE_PG_WP);
    CHECK(w.root == NULL);
    CHECK_EQ_INT(f.h.bad_frees, 0);
    CHECK_EQ_U64(f.h.n_allocs, 0);
    tlb_window_unmap(&w, &f.h.p); /* twice: nothing more */
    CHECK_EQ_INT(f.h.cr3_writes, 2);
    fake_free(&f);
}

NB_TEST(tlb_window_leaves_cr0_alone_when_wp_is_clear)
{
    struct fake_tables f;
    fake_init(&f, CR0_PE_PG, 0);
    struct tlb_window w;
    char why[120];
    REQUIRE(tlb_window_map(&w, &f.h.p, 8192, f.frames, 2, why, sizeof(why)) == NB_OK);
    CHECK_EQ_U64(w.tables_bytes, 18 * 4096); /* 8192 pages: 16 PTs */
    tlb_window_unmap(&w, &f.h.p);
    CHECK_EQ_INT(f.h.cr0_writes, 0);
    CHECK_EQ_INT(f.h.cr3_writes, 2);
    fake_free(&f);
}

NB_TEST(tlb_window_says_why_it_cannot_map)
{
    struct fake_tables f;
    struct tlb_window w;
    char why[120];
    fake_init(&f, CR0_PE_PG_WP, 1ull << 12); /* CR4.LA57 */
    CHECK_EQ_INT(tlb_window_map(&w, &f.h.p, 8192, f.frames, 2, why, sizeof(why)), NB_EUNSUPP);
    CHECK_EQ_STR(why, "5-level paging (CR4.LA57): the window hooks a PML4 entry");
    /* CR4.CET: clearing CR0.WP would #GP (SDM vol. 3A 2.5). */
    f.h.cr4 = 1ull << 23;
    CHECK_EQ_INT(tlb_window_map(&w, &f.h.p, 8192, f.frames, 2, why, sizeof(why)), NB_EUNSUPP);
    CHECK_EQ_STR(why, "CR4.CET is set, so CR0.WP cannot be cleared to write the firmware's PML4");
    CHECK_EQ_INT(f.h.cr0_writes, 0);
    f.h.p.read_cr4 = NULL;
    f.h.p.write_cr3 = NULL;
    CHECK_EQ_INT(tlb_window_map(&w, &f.h.p, 8192, f.frames, 2, why, sizeof(why)), NB_EUNSUPP);
    CHECK_EQ_STR(why, "no access to CR0, CR3 and CR4 here");
    fake_free(&f);

    fake_init(&f, CR0_PE_PG_WP, 0);
    for (int i = 1; i < 256; i++)
        f.pml4[i] = 0x3003;
    CHECK_EQ_INT(tlb_window_map(&w, &f.h.p, 8192, f.frames, 2, why, sizeof(why)), NB_EUNSUPP);
    CHECK_EQ_STR(why, "no free PML4 entry in the lower half");
    CHECK_EQ_INT(tlb_window_map(&w, &f.h.p, 0, f.frames, 2, why, sizeof(why)), NB_EINVAL);
    CHECK_EQ_STR(why, "bad window (0 pages on 2 frames)");
    CHECK_EQ_INT(f.h.cr0_writes, 0);
    CHECK_EQ_INT(f.h.cr3_writes, 0);
    CHECK_EQ_U64(f.h.n_allocs, 0);
    fake_free(&f);
}
