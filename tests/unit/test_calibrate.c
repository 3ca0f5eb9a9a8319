/*
 * test_calibrate.c — -calibrate: footprints from the cache report, the
 * pointer chain (one cycle through every node), and a real run of the
 * chase on the host (user mode, RDTSC only) with its report lines and the
 * values kept for the metrics.
 */
#include "bench_calibrate.h"
#include "host_calibrate.h"
#include "host_platform.h"
#include "nb_test.h"

#include <stdlib.h>
#include <string.h>

NB_TEST(calibrate_sizes_from_the_cache_report)
{
    struct cpu_cache_info ci;
    memset(&ci, 0, sizeof(ci));
    /* QEMU's max CPU: L1d 64 KiB, L2 512 KiB, L3 16 MiB. */
    host_add_cache(&ci, "L1d", 1, 65536);
    host_add_cache(&ci, "L1i", 1, 65536);
    host_add_cache(&ci, "L2", 2, 524288);
    host_add_cache(&ci, "L3", 3, 16777216);
    uint64_t bytes[LAT_LEVELS];
    const char *why[LAT_LEVELS];
    calibrate_sizes(&ci, CALIBRATE_DRAM_MIN, bytes, why);
    CHECK_EQ_U64(bytes[LAT_L1], 32768);
    CHECK_EQ_U64(bytes[LAT_L2], 262144);
    CHECK_EQ_U64(bytes[LAT_L3], 8388608);
    CHECK_EQ_U64(bytes[LAT_DRAM], 268435456); /* 8 x L3 = 128 MiB, raised to 256 MiB */
    CHECK_EQ_U64(bytes[LAT_WALK], 262144);    /* the walk's data: the L2 footprint */
    /* A 64 MiB L3: 512 MiB. No L3: L3 missing, DRAM from the L2. */
    ci.caches[3].size = 64u << 20;
    calibrate_sizes(&ci, CALIBRATE_DRAM_MIN, bytes, why);
    CHECK_EQ_U64(bytes[LAT_DRAM], 512u << 20);
    ci.n_caches = 3;
    calibrate_sizes(&ci, 1u << 20, bytes, why);
    CHECK_EQ_U64(bytes[LAT_L3], 0);
    CHECK_EQ_STR(why[LAT_L3], "the cache report has no L3");
    CHECK_EQ_U64(bytes[LAT_DRAM], 4u << 20);
    /* No caches at all: nothing is measured, and each level says why. */
    ci.n_caches = 0;
    calibrate_sizes(&ci, CALIBRATE_DRAM_MIN, bytes, why);
    for (int i = 0; i < LAT_LEVELS; i++)
        CHECK_EQ_U64(bytes[i], 0);
    CHECK_EQ_STR(why[LAT_L1], "the cache report has no L1d");
    CHECK_EQ_STR(why[LAT_DRAM], "the cache report has no caches");
    CHECK_EQ_STR(why[LAT_WALK], "no L2 footprint for the pages' data");
}

NB_TEST(calibrate_walk_slot_spreads_the_l2_footprint_over_the_pages)
{
    CHECK_EQ_U64(calibrate_walk_slot(262144, 8192, 64), 32);  /* QEMU max: half of 512 KiB */
    CHECK_EQ_U64(calibrate_walk_slot(131072, 8192, 64), 16);  /* Skylake client: half of 256 KiB */
    CHECK_EQ_U64(calibrate_walk_slot(655360, 8192, 64), 64);  /* Golden Cove: 80 bytes, one line at most */
    CHECK_EQ_U64(calibrate_walk_slot(196608, 8192, 64), 16);  /* 24 bytes: a power of two below */
    CHECK_EQ_U64(calibrate_walk_slot(32768, 8192, 64), 0);    /* 4 bytes: too small for a pointer */
}

/* The walk chain: one cycle through every window page, node v at its own line of frame v mod frames. */
NB_TEST(calibrate_walk_chain_visits_every_page_once)
{
    enum { PAGES = 256, SLOT = 64, FRAMES = PAGES * SLOT / 4096 };
    const uint64_t window = 0x7F0000000000ull;
    uint8_t *frames = aligned_alloc(4096, FRAMES * 4096);
    REQUIRE(frames != NULL);
    memset(frames, 0, FRAMES * 4096);
    calibrate_build_walk_chain(frames, PAGES, SLOT, window);
    uint8_t seen[PAGES] = { 0 };
    /* R14 starts at the middle of the frames: node FRAMES / 2, at offset 0 of its page. */
    uint64_t v = *(uint64_t *)(frames + FRAMES * 4096 / 2);
    CHECK(v >= window && v < window + PAGES * 4096ull);
    size_t steps = 0, neighbours = 0;
    uint64_t start = v;
    do {
        uint64_t page = (v - window) / 4096, off = v % 4096;
        REQUIRE(page < PAGES);
        CHECK_EQ_U64(off, page / FRAMES % (4096 / SLOT) * SLOT);
        CHECK(!seen[page]);
        seen[page] = 1;
        uint64_t next = *(uint64_t *)(frames + page % FRAMES * 4096 + off);
        neighbours += (next - window) / 4096 == page + 1;
        v = next;
        steps++;
    } while (v != start && steps <= PAGES);
    CHECK_EQ_INT(steps, PAGES);
    CHECK(neighbours < 10);
    free(frames);
}

NB_TEST(calibrate_chain_is_one_cycle_through_every_node)
{
    enum { NODES = 1000, STRIDE = 64 };
    uint8_t *buf = calloc(NODES, STRIDE);
    REQUIRE(buf != NULL);
    calibrate_build_chain(buf, NODES * STRIDE, STRIDE);
    uint8_t *seen = calloc(NODES, 1);
    uintptr_t p = (uintptr_t)buf;
    size_t steps = 0;
    do {
        size_t node = (p - (uintptr_t)buf) / STRIDE;
        REQUIRE(node < NODES && (p - (uintptr_t)buf) % STRIDE == 0);
        CHECK(!seen[node]);
        seen[node] = 1;
        p = (uintptr_t) * (uint64_t *)p;
        steps++;
    } while (p != (uintptr_t)buf && steps <= NODES);
    CHECK_EQ_INT(steps, NODES);
    /* Not the identity order: the next node is rarely the neighbour. */
    size_t neighbours = 0;
    for (size_t i = 0; i + 1 < NODES; i++)
        neighbours += *(uint64_t *)(buf + i * STRIDE) == (uint64_t)(uintptr_t)(buf + (i + 1) * STRIDE);
    CHECK(neighbours < 10);
    free(seen);
    free(buf);
}

NB_TEST(calibrate_runs_the_chase_and_keeps_the_values)
{
    struct host_platform h;
    host_platform_init(&h);
    h.real_tsc = true;
    struct bench_context c;
    REQUIRE(bench_context_init(&c, &h.p) == NB_OK);
    c.mask_interrupts = false;
    struct report r;
    report_init(&r, &h.p);
    struct cpu_cache_info ci;
    memset(&ci, 0, sizeof(ci));
    host_add_cache(&ci, "L1d", 1, 8192);
    host_add_cache(&ci, "L2", 2, 65536);
    host_add_cache(&ci, "L3", 3, 524288);
    struct machine_latencies lat;
    /* The host's real TSC: up to three attempts until every level measured time (host_calibrate.h). */
    host_calibrate_timed(&h, &c, &ci, 8u << 20, &lat, &r, LAT_DRAM);
    const struct machine_latencies *l = &lat;
    CHECK(l->measured);
    CHECK(!l->core_cycles);
    CHECK_EQ_STR(l->cycle_counter, "RDTSC");
    for (int i = 0; i <= LAT_DRAM; i++)
        CHECK(l->latency[i] > 0);
    CHECK_EQ_U64(l->bytes[LAT_L2], 32768);
    CHECK_EQ_U64(l->bytes[LAT_DRAM], 8u << 20);
    const char *text = host_text(&h);
    CHECK(strncmp(text, "calibration: L1 ", 16) == 0);
    CHECK(strstr(text, " TSC ticks, DRAM ") != NULL);
    CHECK(strstr(text, "(TSC ticks per dependent load: no usable PMU)\n") != NULL);
    /* 32 KiB over 8192 pages is 4 bytes a page: no walk level (and no page tables to hook here). */
    CHECK(strstr(text, "calibration: footprints L1 4096 bytes, L2 32768 bytes, L3 262144 bytes, "
                       "DRAM 8388608 bytes, TLB walk n/a (the L2 footprint gives under 8 bytes per page)\n") != NULL);
    CHECK_EQ_U64(l->latency[LAT_WALK], 0);
    /* No PMU: the counter check (METRICS-FACTS.md 3c step 3) is not done, and the line says why. */
    CHECK(strstr(text, "DRAM 8388608 bytes, TLB walk n/a (the L2 footprint gives under 8 bytes per page)\n"
                       "calibration: check not done: no usable PMU (the load-hit and page-walk counters need one)\n"
                       "calibration: N1 (L2 - L1) ") != NULL);
    CHECK(!l->checked[LAT_L2] && !l->distrusted[LAT_L2]);
    CHECK(strstr(text, ", N4 (TLB walk - L2) n/a ") != NULL);
    /* The areas are back to 1 MiB and the hook is gone. */
    CHECK_EQ_U64(c.area_size[AREA_R14], BENCH_AREA_SIZE);
    CHECK(c.prepare_areas == NULL);
    report_close(&r);
    bench_context_free(&c);
    host_platform_free(&h);
}
