/*
 * test_calibrate.c — -calibrate: footprints from the cache report, the
 * pointer chain (one cycle through every node), and a real run of the
 * chase on the host (user mode, RDTSC only) with its report lines and the
 * values kept for the metrics.
 */
#include "bench_calibrate.h"
#include "host_platform.h"
#include "nb_test.h"

#include <stdlib.h>
#include <string.h>

static void add_cache(struct cpu_cache_info *ci, const char *name, unsigned level, uint64_t size)
{
    struct cpu_cache *c = &ci->caches[ci->n_caches++];
    memset(c, 0, sizeof(*c));
    strcpy(c->name, name);
    c->level = level;
    c->size = size;
    c->line = 64;
}

NB_TEST(calibrate_sizes_from_the_cache_report)
{
    struct cpu_cache_info ci;
    memset(&ci, 0, sizeof(ci));
    /* QEMU's max CPU: L1d 64 KiB, L2 512 KiB, L3 16 MiB. */
    add_cache(&ci, "L1d", 1, 65536);
    add_cache(&ci, "L1i", 1, 65536);
    add_cache(&ci, "L2", 2, 524288);
    add_cache(&ci, "L3", 3, 16777216);
    uint64_t bytes[LAT_LEVELS];
    const char *why[LAT_LEVELS];
    calibrate_sizes(&ci, CALIBRATE_DRAM_MIN, bytes, why);
    CHECK_EQ_U64(bytes[LAT_L1], 32768);
    CHECK_EQ_U64(bytes[LAT_L2], 262144);
    CHECK_EQ_U64(bytes[LAT_L3], 8388608);
    CHECK_EQ_U64(bytes[LAT_DRAM], 268435456); /* 8 x L3 = 128 MiB, raised to 256 MiB */
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
    add_cache(&ci, "L1d", 1, 8192);
    add_cache(&ci, "L2", 2, 65536);
    add_cache(&ci, "L3", 3, 524288);
    bench_calibrate(&c, NULL, &ci, 8u << 20, &r);
    const struct machine_latencies *l = calibration_latencies();
    CHECK(l->measured);
    CHECK(!l->core_cycles);
    CHECK_EQ_STR(l->cycle_counter, "RDTSC");
    for (int i = 0; i < LAT_LEVELS; i++)
        CHECK(l->latency[i] > 0);
    CHECK_EQ_U64(l->bytes[LAT_L2], 32768);
    CHECK_EQ_U64(l->bytes[LAT_DRAM], 8u << 20);
    const char *text = host_text(&h);
    CHECK(strncmp(text, "calibration: L1 ", 16) == 0);
    CHECK(strstr(text, " TSC ticks, DRAM ") != NULL);
    CHECK(strstr(text, "(TSC ticks per dependent load: no usable PMU)\n") != NULL);
    CHECK(strstr(text, "calibration: footprints L1 4096 bytes, L2 32768 bytes, L3 262144 bytes, "
                       "DRAM 8388608 bytes; the TLB-walk penalty N4 is not measured\n") != NULL);
    CHECK(strstr(text, "calibration: N1 (L2 - L1) ") != NULL);
    /* The areas are back to 1 MiB and the hook is gone. */
    CHECK_EQ_U64(c.area_size[AREA_R14], BENCH_AREA_SIZE);
    CHECK(c.prepare_areas == NULL);
    report_close(&r);
    bench_context_free(&c);
    host_platform_free(&h);
}
