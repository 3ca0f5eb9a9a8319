/*
 * test_machine.c — the machine fingerprint from scripted CPUID and MSRs, and
 * the TSC frequency from CPUID 15H / 16H or a calibration on the fake clock.
 */
#include "host_platform.h"
#include "machine.h"
#include "nb_test.h"

#include <string.h>

#define MSR_BIOS_SIGN_ID 0x8Bu
#define EDX_TSC (1u << 4)
#define EDX_RDTSCP (1u << 27)
#define EDX_INVARIANT_TSC (1u << 8)

/*
 * IA32_BIOS_SIGN_ID as an Intel core behaves (SDM vol. 3A 10.11.7.1): after
 * software writes 0, the next CPUID(1) loads the revision into EDX (bits 63:32).
 */
static const uint64_t INTEL_REVISION = 0x0200005Eu;

static void intel_sign_on_cpuid(struct host_platform *h, uint32_t leaf, uint32_t subleaf)
{
    (void)subleaf;
    if (leaf == 1 && host_msr_get(h, MSR_BIOS_SIGN_ID) == 0)
        host_msr_set(h, MSR_BIOS_SIGN_ID, INTEL_REVISION << 32);
}

/* A Skylake-SP: family 6, model 0x55, stepping 4. */
static void script_intel(struct host_platform *h)
{
    host_cpuid_set_vendor(h, "GenuineIntel", 0x16);
    host_cpuid_set(h, 1, 0, 0x00050654, 0, 0, EDX_TSC);
    host_cpuid_set(h, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
    host_cpuid_set(h, 0x80000001u, 0, 0, 0, 0, EDX_RDTSCP);
    host_cpuid_set_brand(h, "  Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz   ");
    host_cpuid_set(h, 0x80000007u, 0, 0, 0, 0, EDX_INVARIANT_TSC);
    host_msr_set(h, MSR_BIOS_SIGN_ID, 0xDEAD000000000000ull); /* stale until rewritten */
    h->on_cpuid = intel_sign_on_cpuid;
}

/* A Zen 3: family 0x19, model 0x21, stepping 0. */
static void script_amd(struct host_platform *h)
{
    host_cpuid_set_vendor(h, "AuthenticAMD", 0x10);
    host_cpuid_set(h, 1, 0, 0x00A20F10, 0, 0, EDX_TSC);
    host_cpuid_set(h, 0x80000000u, 0, 0x80000020u, 0, 0, 0);
    host_cpuid_set(h, 0x80000001u, 0, 0, 0, 0, EDX_RDTSCP);
    host_cpuid_set_brand(h, "AMD Ryzen 9 5950X 16-Core Processor             ");
    host_cpuid_set(h, 0x80000007u, 0, 0, 0, 0, EDX_INVARIANT_TSC);
    host_msr_set(h, MSR_BIOS_SIGN_ID, 0xFFFFFFFF0A201016ull);
}

NB_TEST(machine_identify_intel)
{
    struct host_platform h;
    host_platform_init(&h);
    script_intel(&h);
    struct machine_info m;
    memset(&m, 0x5A, sizeof(m));
    machine_identify(&h.p, &m);
    CHECK_EQ_STR(m.vendor, "GenuineIntel");
    CHECK_EQ_INT(m.vendor_id, VENDOR_INTEL);
    CHECK_EQ_STR(m.brand, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
    CHECK_EQ_INT(m.family, 6);
    CHECK_EQ_INT(m.model, 0x55);
    CHECK_EQ_INT(m.stepping, 4);
    CHECK_EQ_INT(m.max_leaf, 0x16);
    CHECK_EQ_U64(m.max_ext_leaf, 0x80000008u);
    CHECK(m.tsc_present && m.tsc_invariant && m.rdtscp);
    CHECK(m.microcode_known);
    CHECK_EQ_U64(m.microcode, INTEL_REVISION);
    /* Exactly one MSR write: 0 to IA32_BIOS_SIGN_ID. */
    REQUIRE(CHECK_EQ_INT(h.n_writes, 1));
    CHECK_EQ_U64(h.writes[0].msr, MSR_BIOS_SIGN_ID);
    CHECK_EQ_U64(h.writes[0].value, 0);
    CHECK_EQ_U64(m.tsc_hz, 0);
    CHECK_EQ_INT(m.tsc_source, TSC_FREQ_UNKNOWN);
    host_platform_free(&h);
}

NB_TEST(machine_identify_amd)
{
    struct host_platform h;
    host_platform_init(&h);
    script_amd(&h);
    struct machine_info m;
    machine_identify(&h.p, &m);
    CHECK_EQ_STR(m.vendor, "AuthenticAMD");
    CHECK_EQ_INT(m.vendor_id, VENDOR_AMD);
    CHECK_EQ_STR(m.brand, "AMD Ryzen 9 5950X 16-Core Processor");
    CHECK_EQ_INT(m.family, 0x19);
    CHECK_EQ_INT(m.model, 0x21);
    CHECK_EQ_INT(m.stepping, 0);
    CHECK(m.tsc_present && m.tsc_invariant && m.rdtscp);
    CHECK(m.microcode_known);
    CHECK_EQ_U64(m.microcode, 0x0A201016u); /* the low half: PatchLevel */
    CHECK_EQ_INT(h.n_writes, 0);
    host_platform_free(&h);
}

NB_TEST(machine_display_family_and_model)
{
    static const struct {
        uint32_t eax, family, model, stepping;
    } cases[] = {
        { 0x00050654, 0x6, 0x55, 4 },  /* Skylake-SP */
        { 0x000906EA, 0x6, 0x9E, 0xA }, /* Coffee Lake */
        { 0x00A20F10, 0x19, 0x21, 0 }, /* Zen 3 */
        { 0x00800F12, 0x17, 0x01, 2 }, /* Zen */
        { 0x00020F12, 0xF, 0x21, 2 },  /* K8: family 0Fh uses the extended model */
        { 0x0000052C, 0x5, 0x2, 0xC }, /* P5 */
        { 0x0FF1052C, 0x5, 0x2, 0xC }, /* extended fields ignored below family 6 */
        { 0x00000F00, 0xF, 0x0, 0 },
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct host_platform h;
        host_platform_init(&h);
        host_cpuid_set_vendor(&h, "GenuineIntel", 1);
        host_cpuid_set(&h, 1, 0, cases[i].eax, 0, 0, 0);
        struct machine_info m;
        machine_identify(&h.p, &m);
        bool ok = CHECK_EQ_INT(m.family, cases[i].family);
        ok &= CHECK_EQ_INT(m.model, cases[i].model);
        ok &= CHECK_EQ_INT(m.stepping, cases[i].stepping);
        if (!ok)
            nb_test_note("EAX = 0x%08x", cases[i].eax);
        host_platform_free(&h);
    }
}

NB_TEST(machine_brand_string_trimming)
{
    static const struct {
        const char *raw, *trimmed;
    } cases[] = {
        { "  Intel(R) Core(TM) i7  ", "Intel(R) Core(TM) i7" },
        { "               Intel(R) Pentium(R) 4 CPU 3.00GHz", "Intel(R) Pentium(R) 4 CPU 3.00GHz" }, /* right-justified in 48 */
        { "Plain", "Plain" },
        { "        ", "" },
        { "", "" },
        { "0123456789abcdef0123456789abcdef0123456789abcdef",
          "0123456789abcdef0123456789abcdef0123456789abcdef" }, /* 48 chars, no NUL */
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct host_platform h;
        host_platform_init(&h);
        host_cpuid_set_vendor(&h, "GenuineIntel", 1);
        host_cpuid_set(&h, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
        host_cpuid_set_brand(&h, cases[i].raw);
        struct machine_info m;
        machine_identify(&h.p, &m);
        CHECK_EQ_STR(m.brand, cases[i].trimmed);
        host_platform_free(&h);
    }
}

NB_TEST(machine_extended_leaves_only_when_reported)
{
    struct host_platform h;
    host_platform_init(&h);
    script_intel(&h);
    host_cpuid_set(&h, 0x80000000u, 0, 0x80000001u, 0, 0, 0); /* no brand, no 80000007h */
    struct machine_info m;
    machine_identify(&h.p, &m);
    CHECK(m.rdtscp);
    CHECK_EQ_STR(m.brand, "");
    CHECK(!m.tsc_invariant);

    host_cpuid_set(&h, 0x80000000u, 0, 0, 0, 0, 0);
    machine_identify(&h.p, &m);
    CHECK(!m.rdtscp && !m.tsc_invariant);

    /* Bits clear: no TSC, no invariant TSC, no RDTSCP. */
    script_intel(&h);
    host_cpuid_set(&h, 1, 0, 0x00050654, 0, 0, 0);
    host_cpuid_set(&h, 0x80000001u, 0, 0, 0, 0, ~EDX_RDTSCP);
    host_cpuid_set(&h, 0x80000007u, 0, 0, 0, 0, ~EDX_INVARIANT_TSC);
    machine_identify(&h.p, &m);
    CHECK(!m.tsc_present && !m.tsc_invariant && !m.rdtscp);
    host_platform_free(&h);
}

NB_TEST(machine_microcode_unknown_when_msr_faults)
{
    struct host_platform h;
    host_platform_init(&h);
    script_intel(&h);
    host_msr_fault(&h, MSR_BIOS_SIGN_ID);
    struct machine_info m;
    machine_identify(&h.p, &m);
    CHECK(!m.microcode_known);
    CHECK_EQ_U64(m.microcode, 0);
    host_platform_free(&h);

    host_platform_init(&h);
    script_amd(&h);
    host_msr_fault(&h, MSR_BIOS_SIGN_ID);
    machine_identify(&h.p, &m);
    CHECK(!m.microcode_known);
    host_platform_free(&h);

    /* Another vendor: no MSR is touched at all. */
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "HygonGenuine", 0xD);
    host_msr_set(&h, MSR_BIOS_SIGN_ID, 0x1234);
    machine_identify(&h.p, &m);
    CHECK_EQ_INT(m.vendor_id, VENDOR_OTHER);
    CHECK_EQ_STR(m.vendor, "HygonGenuine");
    CHECK(!m.microcode_known);
    CHECK_EQ_INT(h.n_writes, 0);
    host_platform_free(&h);
}

static void tsc_case(struct host_platform *h, uint32_t calibrate_ms, uint64_t hz,
                     enum tsc_freq_source source, uint64_t stalled_us)
{
    struct machine_info m;
    machine_identify(&h->p, &m);
    machine_tsc_frequency(&h->p, &m, calibrate_ms);
    CHECK_EQ_U64(m.tsc_hz, hz);
    CHECK_EQ_INT(m.tsc_source, source);
    CHECK_EQ_U64(h->clock_us, stalled_us);
}

NB_TEST(machine_tsc_frequency_sources)
{
    struct host_platform h;

    /* 15H: crystal 24 MHz * 166 / 2. */
    host_platform_init(&h);
    script_intel(&h);
    host_cpuid_set(&h, 0x15, 0, 2, 166, 24000000, 0);
    host_cpuid_set(&h, 0x16, 0, 2100, 3700, 100, 0);
    tsc_case(&h, 50, 1992000000ull, TSC_FREQ_CPUID_15H, 0);
    host_platform_free(&h);

    /* 15H without the crystal frequency (ECX 0) falls back to 16H. */
    host_platform_init(&h);
    script_intel(&h);
    host_cpuid_set(&h, 0x15, 0, 2, 176, 0, 0);
    host_cpuid_set(&h, 0x16, 0, 0xFFFF0000u | 2100, 3700, 100, 0); /* EAX[15:0] only */
    tsc_case(&h, 50, 2100000000ull, TSC_FREQ_CPUID_16H, 0);
    host_platform_free(&h);

    /* 16H is Intel's; an AMD part with max leaf >= 16H is calibrated. */
    host_platform_init(&h);
    script_amd(&h);
    host_cpuid_set_vendor(&h, "AuthenticAMD", 0x16);
    host_cpuid_set(&h, 0x16, 0, 3400, 0, 0, 0);
    h.tsc_per_us = 3400;
    h.tsc = 123456789;
    tsc_case(&h, 50, 3400000000ull, TSC_FREQ_CALIBRATED, 50000);
    host_platform_free(&h);

    /* Leaves above max_leaf are not trusted. */
    host_platform_init(&h);
    script_intel(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x14);
    host_cpuid_set(&h, 0x15, 0, 2, 166, 24000000, 0);
    host_cpuid_set(&h, 0x16, 0, 2100, 0, 0, 0);
    h.tsc_per_us = 2500;
    tsc_case(&h, 10, 2500000000ull, TSC_FREQ_CALIBRATED, 10000);
    host_platform_free(&h);

    /* No TSC, or no time to calibrate: unknown, and no stall. */
    host_platform_init(&h);
    script_intel(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x14);
    tsc_case(&h, 0, 0, TSC_FREQ_UNKNOWN, 0);
    host_cpuid_set(&h, 1, 0, 0x00050654, 0, 0, 0);
    tsc_case(&h, 50, 0, TSC_FREQ_UNKNOWN, 0);
    host_platform_free(&h);
}

NB_TEST(machine_tsc_source_names)
{
    CHECK_EQ_STR(tsc_freq_source_name(TSC_FREQ_UNKNOWN), "unknown");
    CHECK_EQ_STR(tsc_freq_source_name(TSC_FREQ_CPUID_15H), "CPUID.15H crystal ratio");
    CHECK_EQ_STR(tsc_freq_source_name(TSC_FREQ_CPUID_16H), "CPUID.16H base frequency");
    CHECK_EQ_STR(tsc_freq_source_name(TSC_FREQ_CALIBRATED), "calibrated against the firmware timer");
}

/* CPUID.1:ECX[31] and leaf 40000000H: the fingerprint names the hypervisor (MSRs are its own). */
NB_TEST(machine_identify_hypervisor)
{
    struct host_platform h;
    host_platform_init(&h);
    script_intel(&h);
    struct machine_info m;
    machine_identify(&h.p, &m);
    CHECK(!m.hypervisor); /* bare metal: bit 31 clear */
    uint32_t r[4];
    h.p.cpuid(h.p.ctx, 1, 0, r);
    host_cpuid_set(&h, 1, 0, r[0], r[1], r[2] | (1u << 31), r[3]);
    /* QEMU TCG's signature, "TCGTCGTCGTCG", in EBX, ECX, EDX. */
    host_cpuid_set(&h, 0x40000000, 0, 0x40000001, 0x54474354, 0x43544743, 0x47435447);
    machine_identify(&h.p, &m);
    CHECK(m.hypervisor);
    CHECK_EQ_STR(m.hypervisor_id, "TCGTCGTCGTCG");
    host_platform_free(&h);
}
