/*
 * test_numa.c — the ACPI SRAT (ACPI 6.5 5.2.16): processors and memory ranges
 * by proximity domain, disabled entries left out, hot-pluggable and
 * non-volatile memory not counted for allocation, malformed tables refused.
 * The table is built as QEMU builds it for `-numa node,nodeid=0,cpus=0
 * -numa node,nodeid=1,cpus=1` with 256 MiB each.
 */
#include "nb_test.h"
#include "numa_srat.h"

#include <string.h>

static uint8_t srat[512];
static size_t srat_len;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static void begin(void)
{
    memset(srat, 0, sizeof(srat));
    memcpy(srat, "SRAT", 4);
    srat_len = 48;
}

static void lapic(uint8_t apic, uint32_t domain, bool enabled)
{
    uint8_t *e = srat + srat_len;
    e[0] = 0;
    e[1] = 16;
    e[2] = (uint8_t)domain;
    e[3] = apic;
    put32(e + 4, enabled);
    e[9] = (uint8_t)(domain >> 8);
    e[10] = (uint8_t)(domain >> 16);
    e[11] = (uint8_t)(domain >> 24);
    srat_len += 16;
}

static void x2apic(uint32_t id, uint32_t domain)
{
    uint8_t *e = srat + srat_len;
    e[0] = 2;
    e[1] = 24;
    put32(e + 4, domain);
    put32(e + 8, id);
    put32(e + 12, 1);
    srat_len += 24;
}

static void memory(uint64_t base, uint64_t length, uint32_t domain, uint32_t flags)
{
    uint8_t *e = srat + srat_len;
    e[0] = 1;
    e[1] = 40;
    put32(e + 2, domain);
    put64(e + 8, base);
    put64(e + 16, length);
    put32(e + 28, flags);
    srat_len += 40;
}

static void end(void)
{
    put32(srat + 4, (uint32_t)srat_len);
}

static struct numa_map m;

NB_TEST(numa_srat_two_nodes)
{
    begin();
    lapic(0, 0, true);
    lapic(1, 1, true);
    lapic(2, 1, false); /* not present */
    memory(0, 0xA0000, 0, 1);
    memory(0x100000, 0xFF00000, 0, 1);
    memory(0x10000000, 0x10000000, 1, 1);
    memory(0x100000000ull, 0x40000000, 1, 1 | 2); /* hot-pluggable */
    x2apic(0x100, 1);
    end();
    char why[80] = "";
    REQUIRE(numa_parse_srat(srat, srat_len, &m, why, sizeof(why)));
    CHECK_EQ_INT(m.n_cpus, 3);
    CHECK_EQ_INT(m.n_ranges, 4);
    CHECK_EQ_INT(m.n_domains, 2);
    uint32_t d = 99;
    CHECK(numa_domain_of(&m, 0, &d) && d == 0);
    CHECK(numa_domain_of(&m, 1, &d) && d == 1);
    CHECK(numa_domain_of(&m, 0x100, &d) && d == 1);
    CHECK(!numa_domain_of(&m, 2, &d));
    CHECK_EQ_U64(m.range[2].base, 0x10000000);
    CHECK_EQ_U64(m.range[2].length, 0x10000000);
    CHECK(m.range[3].hotplug);
    CHECK_EQ_U64(numa_domain_memory(&m, 0), 0xA0000 + 0xFF00000);
    CHECK_EQ_U64(numa_domain_memory(&m, 1), 0x10000000);
}

NB_TEST(numa_srat_malformed_tables_are_refused)
{
    char why[80];
    begin();
    lapic(0, 0, true);
    end();
    CHECK(!numa_parse_srat(srat, 20, &m, why, sizeof(why)));
    CHECK_EQ_STR(why, "no SRAT");
    CHECK(!numa_parse_srat(NULL, 0, &m, why, sizeof(why)));
    memcpy(srat, "APIC", 4);
    CHECK(!numa_parse_srat(srat, srat_len, &m, why, sizeof(why)));
    memcpy(srat, "SRAT", 4);
    put32(srat + 4, 200); /* longer than what we have */
    CHECK(!numa_parse_srat(srat, srat_len, &m, why, sizeof(why)));
    CHECK_EQ_STR(why, "SRAT length 200 does not fit the table");
    end();
    srat[49] = 1; /* entry length 1 */
    CHECK(!numa_parse_srat(srat, srat_len, &m, why, sizeof(why)));
    CHECK_EQ_STR(why, "SRAT entry at offset 48 has a bad length");
}

/* Area placement through the seam: alloc_data_range gets the domain's ranges, last first. */
#include "bench_run.h"
#include "host_platform.h"

static struct host_platform *range_host;
static uint64_t asked_lo[16], asked_hi[16];
static unsigned n_asked;
static bool range_full;

static void *fake_alloc_range(void *ctx, size_t size, uint64_t lo, uint64_t hi)
{
    (void)ctx;
    if (n_asked < 16) {
        asked_lo[n_asked] = lo;
        asked_hi[n_asked] = hi;
    }
    n_asked++;
    return range_full ? NULL : range_host->p.alloc_data(range_host->p.ctx, size);
}

NB_TEST(numa_areas_in_the_benchmark_processors_domain)
{
    begin();
    lapic(0, 0, true);
    lapic(1, 1, true);
    memory(0, 0xA0000, 0, 1);
    memory(0x100000, 0xFF00000, 0, 1);
    memory(0x10000000, 0x10000000, 1, 1);
    end();
    char why[80];
    REQUIRE(numa_parse_srat(srat, srat_len, &m, why, sizeof(why)));
    struct host_platform h;
    host_platform_init(&h);
    range_host = &h;
    h.p.alloc_data_range = fake_alloc_range;
    static struct bench_context c;
    REQUIRE(bench_context_init(&c, &h.p) == NB_OK);
    const int64_t defaults[AREA_COUNT] = { 0 };
    c.numa = &m;
    c.numa_domain = 1;
    n_asked = 0;
    range_full = false;
    CHECK(bench_context_size_areas(&c, defaults, why, sizeof(why)) == NB_OK);
    CHECK_EQ_INT(n_asked, AREA_COUNT);
    CHECK_EQ_U64(asked_lo[0], 0x10000000);
    CHECK_EQ_U64(asked_hi[0], 0x20000000);
    for (int a = 0; a < AREA_COUNT; a++)
        CHECK_EQ_INT(c.area_domain[a], 1);
    /* Another domain: reallocated there, its last range first. */
    c.numa_domain = 0;
    n_asked = 0;
    CHECK(bench_context_size_areas(&c, defaults, why, sizeof(why)) == NB_OK);
    CHECK_EQ_INT(n_asked, AREA_COUNT);
    CHECK_EQ_U64(asked_lo[0], 0x100000);
    CHECK_EQ_U64(asked_hi[0], 0x10000000);
    /* The same domain again: nothing moves. */
    n_asked = 0;
    CHECK(bench_context_size_areas(&c, defaults, why, sizeof(why)) == NB_OK);
    CHECK_EQ_INT(n_asked, 0);
    /* No room in domain 1: the areas come from anywhere, and are not asked again. */
    c.numa_domain = 1;
    range_full = true;
    n_asked = 0;
    CHECK(bench_context_size_areas(&c, defaults, why, sizeof(why)) == NB_OK);
    CHECK_EQ_INT(n_asked, AREA_COUNT);
    CHECK_EQ_INT(c.area_domain[0], -1);
    CHECK(c.areas[0] != NULL);
    n_asked = 0;
    CHECK(bench_context_size_areas(&c, defaults, why, sizeof(why)) == NB_OK);
    CHECK_EQ_INT(n_asked, 0);
    bench_context_free(&c);
    CHECK_EQ_INT(h.n_allocs, 0);
    host_platform_free(&h);
}
