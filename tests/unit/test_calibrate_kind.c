/*
 * test_calibrate_kind.c — -calibrate per core kind (pmu/core_kind.h): on a
 * hybrid part CPUID leaf 1AH, asked on each processor, tells a P-core
 * (core type 40H) from an E-core (20H), and a latency measured on one is
 * never given to a benchmark on the other.
 *
 * The fake machine has two processors (host_mp.h): CPUID.(7,0):EDX[15]
 * Hybrid is set, and leaf 1AH answers 40000001H on processor 0 (a P-core)
 * and 20000001H on processor 1 (an E-core), as the SDM vol. 2A CPUID leaf
 * 1AH layout has them: core type in EAX[31:24], native model ID in EAX[23:0].
 */
#include "bench_calibrate.h"
#include "core_kind.h"
#include "cpu_platform.h"
#include "cpuid_bits.h"
#include "host_calibrate.h"
#include "host_mp.h"
#include "host_platform.h"
#include "machine_latencies.h"
#include "nb_main.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P_CORE_1AH 0x40000001u
#define E_CORE_1AH 0x20000001u

static struct host_platform *machine;
static void (*table_cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
static uint32_t leaf_1ah[2];

/* The table's answer, but leaf 1AH and the APIC ID of leaf 1 are the asking processor's. */
static void per_cpu_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    table_cpuid(ctx, leaf, subleaf, regs);
    if (leaf == CPUID_LEAF_HYBRID)
        regs[CPUID_EAX] = leaf_1ah[host_mp.current];
    if (leaf == CPUID_LEAF_FEATURES)
        regs[CPUID_EBX] = (regs[CPUID_EBX] & 0x00FFFFFFu) | host_mp.current << 24;
}

/* Two processors of an Alder Lake-like hybrid part (no PMU: CPUID.0AH is all zeros). */
static void hybrid_machine(struct host_platform *h, bool hybrid_bit)
{
    host_platform_init(h);
    machine = h;
    host_cpuid_set_vendor(h, "GenuineIntel", 0x20);
    host_cpuid_set(h, 1, 0, 0x00090672, 0, 0, 1u << 4);
    host_cpuid_set(h, CPUID_LEAF_STRUCTURED_EXT, 0, 0, 0, 0, hybrid_bit ? CPUID_07_EDX_HYBRID : 0);
    host_cpuid_set(h, 0x15, 0, 2, 200, 24000000, 0);
    leaf_1ah[0] = P_CORE_1AH;
    leaf_1ah[1] = E_CORE_1AH;
    table_cpuid = h->p.cpuid;
    h->p.cpuid = per_cpu_cpuid;
    host_mp_install(h, 2);
}

NB_TEST(core_kind_from_leaf_1ah_only_on_a_hybrid_part)
{
    struct host_platform h;
    hybrid_machine(&h, true);
    struct core_kind k;
    core_kind_read(&h.p, &k);
    CHECK_EQ_U64(k.type, 0x40);
    CHECK_EQ_U64(k.native_model, 1);
    struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, 1);
    core_kind_read(&cp.p, &k);
    CHECK_EQ_U64(k.type, 0x20);
    CHECK_EQ_U64(k.native_model, 1);
    char text[96];
    core_kind_describe(&k, text, sizeof(text));
    CHECK_EQ_STR(text, "E-core (CPUID.1AH core type 20H, native model 000001H)");
    k = (struct core_kind){ 0x40, 0x123456 };
    core_kind_describe(&k, text, sizeof(text));
    CHECK_EQ_STR(text, "P-core (CPUID.1AH core type 40H, native model 123456H)");
    k = (struct core_kind){ 0x30, 2 };
    core_kind_describe(&k, text, sizeof(text));
    CHECK_EQ_STR(text, "core type 30H (CPUID.1AH core type 30H, native model 000002H)");
    host_platform_free(&h);

    /* CPUID.(7,0):EDX[15] clear: leaf 1AH is not read, whatever it answers; one kind. */
    hybrid_machine(&h, false);
    cpu_platform_init(&cp, &h.p, 1);
    core_kind_read(&cp.p, &k);
    CHECK_EQ_U64(k.type, 0);
    CHECK_EQ_U64(k.native_model, 0);
    core_kind_describe(&k, text, sizeof(text));
    CHECK_EQ_STR(text, "");
    host_platform_free(&h);

    /* A maximum leaf below 1AH: not hybrid either. */
    hybrid_machine(&h, true);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x16);
    core_kind_read(&h.p, &k);
    CHECK_EQ_U64(k.type, 0);
    host_platform_free(&h);
}

NB_TEST(latency_book_keeps_one_entry_per_core_kind)
{
    struct latency_book b;
    memset(&b, 0, sizeof(b));
    struct core_kind p = { 0x40, 1 }, e = { 0x20, 1 }, lp_e = { 0x20, 2 };
    CHECK(latency_book_find(&b, &p) == NULL);
    struct machine_latencies *lp = latency_book_entry(&b, &p);
    REQUIRE(lp);
    lp->measured = true;
    lp->latency[LAT_L1] = 500;
    struct machine_latencies *le = latency_book_entry(&b, &e);
    REQUIRE(le && le != lp);
    CHECK(!le->measured);
    CHECK_EQ_U64(le->kind.type, 0x20);
    /* The same kind is the same entry; another native model of type 20H is a kind of its own. */
    CHECK(latency_book_entry(&b, &p) == lp);
    CHECK(latency_book_find(&b, &p) == lp);
    CHECK(latency_book_find(&b, &e) == le);
    CHECK(latency_book_find(&b, &lp_e) == NULL);
    CHECK_EQ_INT(latency_book_find(&b, &p)->latency[LAT_L1], 500);
    REQUIRE(latency_book_entry(&b, &lp_e));
    struct core_kind other = { 0x30, 0 };
    REQUIRE(latency_book_entry(&b, &other));
    CHECK_EQ_U64(b.n, LATENCY_KINDS);
    struct core_kind fifth = { 0x31, 0 };
    CHECK(latency_book_entry(&b, &fifth) == NULL);
    CHECK(latency_book_find(NULL, &p) == NULL);
}

/*
 * The chase runs on processor 1 (bench->cpu_p its cpu_platform): the entry
 * records the E-core kind and the processor, and the first line names both.
 */
NB_TEST(calibrate_on_an_e_core_records_and_prints_its_kind)
{
    struct host_platform h;
    hybrid_machine(&h, true);
    h.real_tsc = true;
    struct bench_context c;
    REQUIRE(bench_context_init(&c, &h.p) == NB_OK);
    c.mask_interrupts = false;
    struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, 1);
    c.cpu = 1;
    c.cpu_p = &cp.p;
    struct report r;
    report_init(&r, &h.p);
    struct cpu_cache_info ci;
    memset(&ci, 0, sizeof(ci));
    host_add_cache(&ci, "L1d", 1, 8192);
    host_add_cache(&ci, "L2", 2, 65536);
    struct machine_latencies l;
    /* The host's real TSC: up to three attempts until L1 measured time (host_calibrate.h). */
    host_calibrate_timed(&h, &c, &ci, 1u << 20, &l, &r, LAT_L1);
    CHECK(l.measured);
    CHECK_EQ_U64(l.kind.type, 0x20);
    CHECK_EQ_U64(l.kind.native_model, 1);
    CHECK_EQ_U64(l.cpu, 1);
    CHECK(l.latency[LAT_L1] > 0);
    const char *text = host_text(&h);
    const char *end = strchr(text, '\n');
    REQUIRE(end);
    static const char suffix[] = " (TSC ticks per dependent load: no usable PMU), on processor 1: E-core "
                                 "(CPUID.1AH core type 20H, native model 000001H)";
    size_t n = (size_t)(end - text);
    REQUIRE(n > sizeof(suffix) - 1);
    CHECK(strncmp(text + n - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) == 0);
    CHECK(strncmp(text, "calibration: L1 ", 16) == 0);
    report_close(&r);
    bench_context_free(&c);
    host_platform_free(&h);
}

/* The lines of `text` that start with one of the prefixes, in order. */
static void keep_lines(const char *text, const char *const *prefixes, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line + 1) : strlen(line);
        for (const char *const *p = prefixes; *p; p++) {
            if (strncmp(line, *p, strlen(*p)) == 0 && strlen(out) + n < cap) {
                strncat(out, line, n);
                break;
            }
        }
        line += n;
    }
}

/*
 * nb_run_image end to end on the two processors: the first -calibrate
 * benchmark (on the boot processor, a P-core) calibrates the P-core; the
 * first on processor 1 (-cpu 1, an E-core) calibrates again, there; later
 * benchmarks on either kind reuse their own kind's values. The fake machine
 * has no cache report (every level n/a, so nothing slow is chased) and no
 * PMU (TSC ticks).
 */
NB_TEST(calibrate_runs_once_per_core_kind_on_the_benchmark_processor)
{
    struct host_platform h;
    hybrid_machine(&h, true);
    host_cli_trap_install();
    host_msr_fault(&h, 0x8B);
    static const uint8_t add_code[] = { 0x48, 0x01, 0xd8 }; /* add rax, rbx */
    host_fs_add_file(&h, "nanobench/code/add.bin", add_code, sizeof(add_code));
    host_fs_add_text(&h, NB_SUITE_PATH,
                     "defaults: -unroll_count 10 -n_measurements 2 -warm_up_count 0\n"
                     "p0: -code code/add.bin -calibrate\n"
                     "e1: -code code/add.bin -calibrate -cpu 1\n"
                     "e1_again: -code code/add.bin -calibrate -cpu 1\n"
                     "p0_again: -code code/add.bin -calibrate -cpu 0\n");
    nb_run_image(&h.p);
    static const char *const prefixes[] = { "[", "calibration: L1", "processor: ", "error", NULL };
    char kept[4096];
    keep_lines(host_text(&h), prefixes, kept, sizeof(kept));
    static const char LEVELS[] = "calibration: L1 n/a, L2 n/a, L3 n/a, DRAM n/a, TLB walk n/a "
                                 "(TSC ticks per dependent load: no usable PMU), on processor ";
    char want[4096];
    snprintf(want, sizeof(want),
             "[p0]\n"
             "%s0: P-core (CPUID.1AH core type 40H, native model 000001H)\n"
             "[e1]\n"
             "processor: 1 (APIC ID 1) of 2\n"
             "%s1: E-core (CPUID.1AH core type 20H, native model 000001H)\n"
             "[e1_again]\n"
             "processor: 1 (APIC ID 1) of 2\n"
             "[p0_again]\n"
             "processor: 0 (APIC ID 0) of 2\n",
             LEVELS, LEVELS);
    CHECK_EQ_STR(kept, want);
    host_platform_free(&h);
}
