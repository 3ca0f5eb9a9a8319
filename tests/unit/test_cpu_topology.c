/*
 * test_cpu_topology.c — SMT siblings from CPUID leaf 0BH/1FH read on each
 * logical processor (a fake 4-processor machine whose firmware numbers
 * interleave the threads: 0 and 2 share core 0), and the fingerprint lines.
 */
#include "cpu_topology.h"
#include "host_mp.h"
#include "host_platform.h"
#include "nb_test.h"

#include <stdio.h>
#include <string.h>

static struct host_platform *machine;
static uint32_t x2apic[4];
static unsigned leaf_wanted;

/* Leaf 0BH/1FH of processor `cpu`: SMT level (shift 1, 2 threads), core level (shift 4). */
static void answer_for(unsigned cpu)
{
    uint32_t id = x2apic[cpu];
    host_cpuid_set(machine, leaf_wanted, 0, 1, 2, 0x100, id);
    host_cpuid_set(machine, leaf_wanted, 1, 4, 8, 0x201, id);
    host_cpuid_set(machine, leaf_wanted, 2, 0, 0, 2, id);
}

/* The CPUID table answers for the processor that runs. */
static void switched(unsigned from, unsigned to)
{
    (void)from;
    answer_for(to);
}

static char lines[1024];

static void collect(void *arg, const char *line)
{
    (void)arg;
    size_t n = strlen(lines);
    snprintf(lines + n, sizeof(lines) - n, "%s\n", line);
}

static struct topo t;

static void setup(struct host_platform *h, unsigned max_leaf, unsigned leaf)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", max_leaf);
    machine = h;
    leaf_wanted = leaf;
    host_mp_install(h, 4);
    host_mp.switched = switched;
    x2apic[0] = 0;
    x2apic[1] = 2;
    x2apic[2] = 1;
    x2apic[3] = 3;
    answer_for(0);
}

NB_TEST(topology_siblings_from_leaf_0b)
{
    struct host_platform h;
    setup(&h, 0x16, 0xB);
    topo_survey(&h.p, &t);
    REQUIRE(t.n == 4);
    CHECK(t.cpu[2].known);
    CHECK_EQ_INT(t.cpu[2].x2apic_id, 1);
    CHECK_EQ_INT(t.cpu[2].core, 0);
    CHECK_EQ_INT(t.cpu[2].thread, 1);
    CHECK_EQ_INT(t.cpu[1].core, 1);
    CHECK_EQ_INT(t.cpu[1].thread, 0);
    lines[0] = '\0';
    topo_describe(&t, collect, NULL);
    CHECK_EQ_STR(lines, "topology: 4 logical processors in 2 cores, 2 threads per core (x2APIC IDs, CPUID.0BH)\n"
                        "topology: package.core: processors: 0.0: 0 2; 0.1: 1 3\n");
    CHECK(topo_boot_sibling(&t, 2));
    CHECK(!topo_boot_sibling(&t, 1));
    CHECK(!topo_boot_sibling(&t, 3));
    CHECK(!topo_boot_sibling(&t, 0));
    host_platform_free(&h);
}

NB_TEST(topology_prefers_leaf_1f)
{
    struct host_platform h;
    setup(&h, 0x20, 0x1F);
    topo_survey(&h.p, &t);
    CHECK_EQ_INT(t.cpu[3].leaf, 0x1F);
    CHECK_EQ_INT(t.cpu[3].core, 1);
    CHECK_EQ_INT(t.cpu[3].thread, 1);
    lines[0] = '\0';
    topo_describe(&t, collect, NULL);
    CHECK(strstr(lines, "(x2APIC IDs, CPUID.1FH)\n"));
    host_platform_free(&h);
}

NB_TEST(topology_one_processor_or_no_leaf)
{
    struct host_platform h;
    setup(&h, 0x16, 0xB);
    host_mp.n_cpus = 1;
    topo_survey(&h.p, &t);
    lines[0] = '\0';
    topo_describe(&t, collect, NULL);
    CHECK_EQ_STR(lines, "");
    host_platform_free(&h);
    /* No leaf 0BH (max leaf 0AH): the processors are listed as unknown. */
    setup(&h, 0xA, 0xB);
    topo_survey(&h.p, &t);
    lines[0] = '\0';
    topo_describe(&t, collect, NULL);
    CHECK_EQ_STR(lines, "topology: 4 logical processors; which share a core is unknown (no CPUID leaf 0BH or 1FH)\n");
    CHECK(!topo_boot_sibling(&t, 2));
    host_platform_free(&h);
}
