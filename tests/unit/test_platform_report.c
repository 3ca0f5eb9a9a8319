/*
 * test_platform_report.c — the platform report's parts from scripted
 * firmware tables and CPUID answers: SMBIOS structures, caches and TLBs
 * (Intel leaves 04H/18H, AMD 8000_001DH and the legacy leaves), the paging
 * census, and the `platform: KEY = VALUE` lines with their CSV rows.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_caches.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"
#include "uarch_facts.h"
#include "cpuid_bits.h"
#include "paging_census.h"
#include "platform_report.h"
#include "smbios.h"

/* Appends a structure: formatted bytes then strings (each NUL-ended) and the final NUL. */
static size_t put(uint8_t *t, size_t at, const uint8_t *formatted, size_t len, const char *const *strings)
{
    memcpy(t + at, formatted, len);
    at += len;
    bool any = false;
    for (; strings && *strings; strings++) {
        size_t n = strlen(*strings) + 1;
        memcpy(t + at, *strings, n);
        at += n;
        any = true;
    }
    if (!any)
        t[at++] = 0;
    t[at++] = 0;
    return at;
}

/* A table like a small server's: BIOS, system, board, CPU, an empty slot, 16 GiB DDR4, 64 GiB DDR5 (extended size). */
static size_t sample_smbios(uint8_t *t)
{
    size_t n = 0;
    static const uint8_t bios[] = { 0, 0x18, 0, 0, 1, 2, 0, 0, 3 };
    static const char *const bios_s[] = { "Acme BIOS", "1.2.3  ", "04/01/2026", NULL };
    uint8_t bios_full[0x18] = { 0 };
    memcpy(bios_full, bios, sizeof(bios));
    bios_full[1] = sizeof(bios_full);
    n = put(t, n, bios_full, sizeof(bios_full), bios_s);
    static const uint8_t system[0x1B] = { 1, 0x1B, 1, 0, 1, 2 };
    static const char *const system_s[] = { "Acme", "Lab Box 9000", NULL };
    n = put(t, n, system, sizeof(system), system_s);
    static const uint8_t board[0x08] = { 2, 0x08, 2, 0, 2, 1 };
    static const char *const board_s[] = { "Board Product", "Board Maker", NULL };
    n = put(t, n, board, sizeof(board), board_s);
    uint8_t cpu[0x2A] = { 4, 0x2A, 3, 0 };
    cpu[0x14] = 0x70, cpu[0x15] = 0x17; /* max 6000 MHz */
    cpu[0x16] = 0xAC, cpu[0x17] = 0x0D; /* current 3500 MHz */
    n = put(t, n, cpu, sizeof(cpu), NULL);
    uint8_t empty[0x28] = { 17, 0x28, 4, 0 }; /* size 0: no device installed */
    n = put(t, n, empty, sizeof(empty), NULL);
    uint8_t ddr4[0x28] = { 17, 0x28, 5, 0 };
    ddr4[0x0C] = 0x00, ddr4[0x0D] = 0x40;       /* 16384 MiB */
    ddr4[0x12] = 0x1A;                          /* DDR4 */
    ddr4[0x15] = 0x80, ddr4[0x16] = 0x0C;       /* 3200 MT/s */
    n = put(t, n, ddr4, sizeof(ddr4), NULL);
    uint8_t ddr5[0x5C] = { 17, 0x5C, 6, 0 };
    ddr5[0x0C] = 0xFF, ddr5[0x0D] = 0x7F;       /* see extended size */
    ddr5[0x1C] = 0x00, ddr5[0x1D] = 0x00, ddr5[0x1E] = 0x01; /* 65536 MiB */
    ddr5[0x12] = 0x22;                          /* DDR5 */
    ddr5[0x15] = 0xFF, ddr5[0x16] = 0xFF;       /* see extended speed */
    ddr5[0x54] = 0x40, ddr5[0x55] = 0x1F;       /* 8000 MT/s */
    n = put(t, n, ddr5, sizeof(ddr5), NULL);
    static const uint8_t end[4] = { 127, 4, 7, 0 };
    n = put(t, n, end, sizeof(end), NULL);
    return n;
}

NB_TEST(smbios_reads_bios_system_board_processor_and_memory)
{
    uint8_t table[1024];
    size_t len = sample_smbios(table);
    struct smbios_facts s;
    smbios_parse(table, len, &s);
    CHECK(s.bios_found && s.system_found && s.board_found && s.processor_found);
    CHECK_EQ_STR(s.bios_vendor, "Acme BIOS");
    CHECK_EQ_STR(s.bios_version, "1.2.3"); /* trailing blanks dropped */
    CHECK_EQ_STR(s.bios_date, "04/01/2026");
    CHECK_EQ_STR(s.system_manufacturer, "Acme");
    CHECK_EQ_STR(s.system_product, "Lab Box 9000");
    CHECK_EQ_STR(s.board_manufacturer, "Board Maker"); /* string numbers, not order */
    CHECK_EQ_STR(s.board_product, "Board Product");
    CHECK_EQ_INT(s.processor_max_mhz, 6000);
    CHECK_EQ_INT(s.processor_current_mhz, 3500);
    REQUIRE(s.n_memory == 2);
    CHECK_EQ_U64(s.memory[0].size_mib, 16384);
    CHECK_EQ_INT(s.memory[0].speed_mts, 3200);
    CHECK_EQ_STR(smbios_memory_type_name(s.memory[0].type), "DDR4");
    CHECK_EQ_U64(s.memory[1].size_mib, 65536);
    CHECK_EQ_INT(s.memory[1].speed_mts, 8000);
    CHECK_EQ_STR(smbios_memory_type_name(s.memory[1].type), "DDR5");
    CHECK(!s.truncated);
    /* Cut inside the last memory device: what came before stays, the cut is reported. */
    smbios_parse(table, len - 40, &s);
    CHECK(s.truncated);
    CHECK_EQ_INT(s.n_memory, 1);
    CHECK_EQ_STR(s.bios_vendor, "Acme BIOS");
}

/* Leaf 04H / 8000_001DH subleaf: type, level, sharing-1, ways-1, partitions-1, line-1, sets-1. */
static void cache_leaf(struct host_platform *h, uint32_t leaf, uint32_t sub, unsigned type, unsigned level,
                       unsigned sharing, unsigned ways, unsigned line, unsigned sets)
{
    host_cpuid_set(h, leaf, sub, type | level << 5 | (sharing - 1) << 14, (ways - 1) << 22 | (line - 1),
                   sets - 1, 0);
}

NB_TEST(caches_and_tlbs_from_intel_leaves_4_and_18)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x18);
    cache_leaf(&h, 4, 0, 1, 1, 2, 12, 64, 64);      /* L1d 48 KiB */
    cache_leaf(&h, 4, 1, 2, 1, 2, 8, 64, 64);       /* L1i 32 KiB */
    cache_leaf(&h, 4, 2, 3, 2, 2, 10, 64, 2048);    /* L2 1.25 MiB */
    cache_leaf(&h, 4, 3, 3, 3, 32, 12, 64, 49152);  /* L3 36 MiB */
    /* Leaf 18H: subleaf 0 max 2; DTLB load 4K/2M/4M 16 entries fully; STLB 4K/2M 8-way x 256 sets. */
    host_cpuid_set(&h, 0x18, 0, 2, 0x7 | 16u << 16, 1, 4 | 1u << 5 | 1u << 8);
    host_cpuid_set(&h, 0x18, 1, 0, 0, 0, 0);
    host_cpuid_set(&h, 0x18, 2, 0, 0x3 | 8u << 16, 256, 3 | 2u << 5);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct cpu_cache_info ci;
    cpu_caches_read(&h.p, &m, &ci);
    CHECK_EQ_STR(ci.cache_source, "CPUID.04H");
    REQUIRE(ci.n_caches == 4);
    CHECK_EQ_STR(ci.caches[0].name, "L1d");
    CHECK_EQ_U64(ci.caches[0].size, 49152);
    CHECK_EQ_INT(ci.caches[0].ways, 12);
    CHECK_EQ_STR(ci.caches[1].name, "L1i");
    CHECK_EQ_STR(ci.caches[2].name, "L2");
    CHECK_EQ_U64(ci.caches[2].size, 1310720);
    CHECK_EQ_STR(ci.caches[3].name, "L3");
    CHECK_EQ_U64(ci.caches[3].size, 37748736);
    CHECK_EQ_INT(ci.caches[3].sets, 49152);
    CHECK_EQ_INT(ci.caches[3].shared_by, 32);
    CHECK_EQ_STR(ci.tlb_source, "CPUID.18H");
    REQUIRE(ci.n_tlbs == 2);
    CHECK_EQ_STR(ci.tlbs[0].name, "L1load");
    CHECK_EQ_STR(ci.tlbs[0].pages, "4K/2M/4M");
    CHECK_EQ_INT(ci.tlbs[0].entries, 16);
    CHECK_EQ_INT(ci.tlbs[0].ways, 0);
    CHECK_EQ_STR(ci.tlbs[1].name, "L2");
    CHECK_EQ_STR(ci.tlbs[1].pages, "4K/2M");
    CHECK_EQ_INT(ci.tlbs[1].entries, 2048);
    CHECK_EQ_INT(ci.tlbs[1].ways, 8);
    host_platform_free(&h);
}

NB_TEST(caches_from_amd_topology_leaf_or_legacy_leaves)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "AuthenticAMD", 0x10);
    host_cpuid_set(&h, 0x80000000u, 0, 0x8000001Du, 0, 0, 0);
    host_cpuid_set(&h, 0x80000001u, 0, 0, 0, 1u << 22, 0); /* TopologyExtensions */
    cache_leaf(&h, 0x8000001Du, 0, 1, 1, 2, 12, 64, 64);
    cache_leaf(&h, 0x8000001Du, 1, 3, 3, 16, 16, 64, 32768); /* L3 32 MiB */
    /* Legacy: L1d 32 KiB 8-way, L1i 32 KiB 8-way; L2 1 MiB 8-way (code 6); L3 32 MiB 16-way (code 8). */
    host_cpuid_set(&h, 0x80000005u, 0, 0xFF48FF40u, 0xFF48FF40u, 32u << 24 | 8u << 16 | 1u << 8 | 64,
                   32u << 24 | 8u << 16 | 1u << 8 | 64);
    host_cpuid_set(&h, 0x80000006u, 0, 0x2040u << 16 | 0x6040u, 0x6800u << 16 | 0x6800u,
                   1024u << 16 | 6u << 12 | 64, 64u << 18 | 8u << 12 | 64);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct cpu_cache_info ci;
    cpu_caches_read(&h.p, &m, &ci);
    CHECK_EQ_STR(ci.cache_source, "CPUID.8000_001DH");
    REQUIRE(ci.n_caches == 2);
    CHECK_EQ_STR(ci.caches[1].name, "L3");
    CHECK_EQ_U64(ci.caches[1].size, 33554432);
    CHECK_EQ_INT(ci.caches[1].shared_by, 16);
    /* L1 TLBs: 64 entries fully associative (FFh); L2: 2048 4K entries 8-way (code 6). */
    CHECK_EQ_STR(ci.tlb_source, "CPUID.8000_0005H/8000_0006H");
    REQUIRE(ci.n_tlbs >= 5);
    CHECK_EQ_STR(ci.tlbs[0].name, "L1d");
    CHECK_EQ_STR(ci.tlbs[0].pages, "4K");
    CHECK_EQ_INT(ci.tlbs[0].entries, 0x48);
    CHECK_EQ_INT(ci.tlbs[0].ways, 0);
    CHECK_EQ_STR(ci.tlbs[4].name, "L2d");
    CHECK_EQ_INT(ci.tlbs[4].entries, 2048);
    CHECK_EQ_INT(ci.tlbs[4].ways, 8);

    host_cpuid_set(&h, 0x80000001u, 0, 0, 0, 0, 0); /* no TopologyExtensions: legacy leaves */
    cpu_caches_read(&h.p, &m, &ci);
    CHECK_EQ_STR(ci.cache_source, "CPUID.8000_0005H/8000_0006H");
    REQUIRE(ci.n_caches == 4);
    CHECK_EQ_STR(ci.caches[2].name, "L2");
    CHECK_EQ_U64(ci.caches[2].size, 1048576);
    CHECK_EQ_INT(ci.caches[2].ways, 8);
    CHECK_EQ_INT(ci.caches[2].sets, 2048);
    CHECK_EQ_U64(ci.caches[3].size, 33554432);
    CHECK_EQ_INT(ci.caches[3].ways, 16);
    CHECK_EQ_INT(ci.caches[3].shared_by, 0);
    host_platform_free(&h);
}

NB_TEST(paging_census_counts_leaf_pages_per_size)
{
    /* PML4 -> PDPT: entry 0 a 1-GiB page, entry 1 a page directory: 510 2-MiB pages and one page table of 3 PTEs. */
    uint64_t *pml4 = aligned_alloc(4096, 4096), *pdpt = aligned_alloc(4096, 4096);
    uint64_t *pd = aligned_alloc(4096, 4096), *pt = aligned_alloc(4096, 4096);
    memset(pml4, 0, 4096), memset(pdpt, 0, 4096), memset(pd, 0, 4096), memset(pt, 0, 4096);
    pml4[0] = (uint64_t)(uintptr_t)pdpt | 3;
    pdpt[0] = 0x0 | 0x83;
    pdpt[1] = (uint64_t)(uintptr_t)pd | 3;
    for (int i = 0; i < 510; i++)
        pd[i] = (0x40000000ull + (uint64_t)i * 0x200000) | 0x83;
    pd[510] = (uint64_t)(uintptr_t)pt | 3;
    for (int i = 0; i < 3; i++)
        pt[i] = (0x7FC00000ull + (uint64_t)i * 4096) | 3;
    struct paging_census c;
    char sizes[16];
    paging_census((uint64_t)(uintptr_t)pml4, 0, &c);
    CHECK_EQ_INT(c.levels, 4);
    CHECK_EQ_U64(c.pages_1g, 1);
    CHECK_EQ_U64(c.pages_2m, 510);
    CHECK_EQ_U64(c.pages_4k, 3);
    paging_page_sizes(&c, sizes, sizeof(sizes));
    CHECK_EQ_STR(sizes, "4K,2M,1G");
    free(pml4), free(pdpt), free(pd), free(pt);
}

static uint8_t fake_smbios[1024];
static size_t fake_smbios_len;

static void fake_facts(void *ctx, struct nb_firmware_facts *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    out->vendor_known = true;
    strcpy(out->vendor, "Acme UEFI");
    out->revision = 0x10000;
    out->uefi_revision = 2u << 16 | 100;
    out->memory_known = true;
    out->usable_bytes = 17179869184ull;
    out->largest_free_bytes = 16106127360ull;
    out->smbios = fake_smbios;
    out->smbios_len = fake_smbios_len;
    out->smbios_major = 3;
    out->smbios_minor = 7;
    out->secure_boot_known = true;
    out->secure_boot = 1;
    out->setup_mode_known = true;
    out->setup_mode = 0;
}

NB_TEST(platform_report_prints_facts_and_csv_rows)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x15);
    host_cpuid_set(&h, 1, 0, 0x000906A3, 0, 0, 1u << 4);
    host_cpuid_set(&h, 0x15, 0, 2, 200, 24000000, 0);
    cache_leaf(&h, 4, 0, 1, 1, 2, 12, 64, 64);
    fake_smbios_len = sample_smbios(fake_smbios);
    h.p.firmware_facts = fake_facts;
    struct machine_info m;
    machine_identify(&h.p, &m);
    machine_tsc_frequency(&h.p, &m, 0);
    struct report r;
    report_init(&r, &h.p);
    host_fs_add_dir(&h, "nanobench/results");
    report_open_files(&r);
    platform_report(&r, &h.p, &m);
    report_close(&r);
    const char *text = host_text(&h);
    CHECK(strstr(text, "platform: cpu.vendor = GenuineIntel\n"
                       "platform: cpu.brand = \n"
                       "platform: cpu.family = 6\n"
                       "platform: cpu.model = 154\n"
                       "platform: cpu.stepping = 3\n") != NULL);
    CHECK(strstr(text, "platform: tsc.hz = 2400000000\n"
                       "platform: tsc.source = cpuid_15h\n"
                       "platform: tsc.invariant = 0\n") != NULL);
    CHECK(strstr(text, "platform: tsc.cpuid_15h_hz = 2400000000\n") != NULL);
    CHECK(strstr(text, "platform: cache.L1d.size = 49152\n"
                       "platform: cache.L1d.ways = 12\n"
                       "platform: cache.L1d.line = 64\n"
                       "platform: cache.L1d.sets = 64\n"
                       "platform: cache.L1d.shared_by = 2\n"
                       "platform: cache.source = CPUID.04H\n"
                       "platform: tlb = missing (CPUID has no leaf 18H (the leaf-2 descriptors are not "
                       "decoded))\n"
                       "platform: metrics.uarch = unknown (not in the table of pmu/uarch_facts.c)\n"
                       "platform: metrics.issue_width = unknown (no entry for this microarchitecture in "
                       "the table (pmu/uarch_facts.c))\n"
                       "platform: metrics.peak_flop_per_cycle = unknown (no entry for this "
                       "microarchitecture in the table (pmu/uarch_facts.c))\n"
                       "platform: memory.usable_bytes = 17179869184\n"
                       "platform: memory.largest_free_bytes = 16106127360\n"
                       "platform: firmware.vendor = Acme UEFI\n"
                       "platform: firmware.revision = 65536\n"
                       "platform: firmware.uefi = 2.100\n"
                       "platform: firmware.secure_boot = on\n"
                       "platform: firmware.setup_mode = no\n"
                       "platform: smbios.version = 3.7\n"
                       "platform: smbios.bios.vendor = Acme BIOS\n") != NULL);
    CHECK(strstr(text, "platform: smbios.memory.1.size_mib = 65536\n"
                       "platform: smbios.memory.1.speed_mts = 8000\n"
                       "platform: smbios.memory.1.type = DDR5\n"
                       "platform: paging = missing (paging root not readable here)\n") != NULL);
    const char *csv = host_fs_text(&h, "nanobench/results/run-0001.csv");
    REQUIRE(csv != NULL);
    CHECK(strstr(csv, "benchmark,event,value\nplatform,cpu.vendor,GenuineIntel\n") == csv);
    CHECK(strstr(csv, "platform,smbios.system.product,Lab Box 9000\n") != NULL);
    CHECK(strstr(csv, "platform,tlb,missing (CPUID has no leaf 18H (the leaf-2 descriptors are not "
                      "decoded))\n") != NULL);
    host_platform_free(&h);
}

/*
 * Issue width and peak FLOP per cycle per microarchitecture
 * (METRICS-FACTS.md §2a, §5): sourced values only; the rest unknown.
 */
NB_TEST(uarch_facts_give_sourced_values_only)
{
    struct uarch_facts f;
    uarch_facts_for(VENDOR_INTEL, 6, 0x5E, 0, &f); /* Skylake client */
    CHECK_EQ_STR(f.name, "Skylake");
    CHECK_EQ_INT(f.issue_width, 4);
    CHECK_EQ_INT(f.peak_dp, 16);
    CHECK_EQ_INT(f.peak_sp, 32);
    uarch_facts_for(VENDOR_INTEL, 6, 0x55, 0, &f); /* Skylake-SP: 1 or 2 FMA units by SKU */
    CHECK_EQ_INT(f.issue_width, 4);
    CHECK_EQ_INT(f.peak_dp, 0);
    CHECK_EQ_STR(f.peak_why, "1 or 2 AVX-512 FMA units depending on the SKU; CPUID does not say");
    uarch_facts_for(VENDOR_INTEL, 6, 0x6A, 0, &f); /* Ice Lake-SP */
    CHECK_EQ_INT(f.issue_width, 5);
    CHECK_EQ_INT(f.peak_dp, 0);
    uarch_facts_for(VENDOR_INTEL, 6, 0x97, HYBRID_CORE_CORE, &f);
    CHECK_EQ_INT(f.issue_width, 6);
    uarch_facts_for(VENDOR_INTEL, 6, 0x97, HYBRID_CORE_ATOM, &f);
    CHECK_EQ_INT(f.issue_width, 5);
    uarch_facts_for(VENDOR_INTEL, 6, 0x97, 0, &f); /* hybrid without a core type: unknown */
    CHECK(f.name == NULL);
    uarch_facts_for(VENDOR_INTEL, 6, 0x8F, 0, &f); /* Sapphire Rapids */
    CHECK_EQ_INT(f.issue_width, 6);
    CHECK_EQ_INT(f.peak_dp, 32);
    CHECK_EQ_INT(f.peak_sp, 64);
    uarch_facts_for(VENDOR_AMD, 0x19, 0x61, 0, &f); /* Zen 4 */
    CHECK_EQ_INT(f.issue_width, 6);
    CHECK_EQ_INT(f.peak_dp, 16);
    uarch_facts_for(VENDOR_AMD, 0x17, 0x31, 0, &f); /* Zen 2: width unverified */
    CHECK_EQ_INT(f.issue_width, 0);
    CHECK_EQ_INT(f.peak_dp, 16);
    uarch_facts_for(VENDOR_AMD, 0xF, 0x6B, 0, &f); /* QEMU's max CPU */
    CHECK(f.name == NULL);
    CHECK_EQ_INT(f.issue_width, 0);
    CHECK_EQ_INT(f.peak_dp, 0);
}
