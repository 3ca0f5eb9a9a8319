/*
 * test_lfence_serialise.c — LFENCE made dispatch-serialising on AMD for the
 * session (pmu/lfence_serialise.h): every case of the fingerprint line, the
 * write checked by reading it back, and the firmware's value restored.
 */
#include "host_platform.h"
#include "lfence_serialise.h"
#include "nb_test.h"

static void amd_cpu(struct host_platform *h, uint32_t family_signature, uint32_t max_ext)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "AuthenticAMD", 0x10);
    host_cpuid_set(h, 1, 0, family_signature, 0, 0, 1u << 4);
    host_cpuid_set(h, 0x80000000u, 0, max_ext, 0, 0, 0);
}

static void describe(struct host_platform *h, struct lfence_session *s, char *line, size_t cap)
{
    struct machine_info m;
    machine_identify(&h->p, &m);
    lfence_session_begin(s, &h->p, &m);
    lfence_describe(s, line, cap);
}

NB_TEST(lfence_set_for_the_session_and_restored)
{
    struct host_platform h;
    amd_cpu(&h, 0x00A20F10, 0x80000020u); /* Zen 3, family 19h */
    host_msr_set(&h, MSR_AMD_DE_CFG, 0x1000);
    struct lfence_session s;
    char line[200];
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: dispatch-serialising (DE_CFG[1] set for this session, restored at the end)");
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_DE_CFG), 0x1002);
    lfence_session_end(&s, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_DE_CFG), 0x1000);
    host_platform_free(&h);
}

NB_TEST(lfence_firmware_or_cpuid_already_serialise)
{
    struct host_platform h;
    struct lfence_session s;
    char line[200];
    amd_cpu(&h, 0x00A20F10, 0x80000020u);
    host_msr_set(&h, MSR_AMD_DE_CFG, 0x2);
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: dispatch-serialising (DE_CFG[1] set by the firmware)");
    lfence_session_end(&s, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, MSR_AMD_DE_CFG), 0x2);
    host_platform_free(&h);

    amd_cpu(&h, 0x00B40F40, 0x80000021u); /* Zen 5, family 1Ah */
    host_cpuid_set(&h, 0x80000021u, 0, CPUID_80000021_EAX_LFENCE_ALWAYS_SERIALIZING, 0, 0, 0);
    host_msr_fault(&h, MSR_AMD_DE_CFG); /* never touched */
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: dispatch-serialising (CPUID 8000_0021H EAX[2])");
    host_platform_free(&h);
}

static void ignore_de_cfg(struct host_platform *h, uint32_t msr, uint64_t value)
{
    (void)value;
    if (msr == MSR_AMD_DE_CFG)
        host_msr_set(h, MSR_AMD_DE_CFG, 0);
}

NB_TEST(lfence_a_write_that_faults_or_does_not_stick_is_said)
{
    struct host_platform h;
    struct lfence_session s;
    char line[200];
    amd_cpu(&h, 0x00800F10, 0x80000020u); /* Zen, family 17h */
    host_msr_reserved(&h, MSR_AMD_DE_CFG, DE_CFG_LFENCE_SERIALIZE);
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: NOT known to serialise: setting DE_CFG[1] faulted; the measured code may "
                       "leak past the counter reads");
    host_platform_free(&h);

    amd_cpu(&h, 0x00800F10, 0x80000020u);
    h.on_msr_write = ignore_de_cfg; /* a hypervisor that drops the write */
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: NOT known to serialise: DE_CFG[1] did not stick (read back 0x0); the "
                       "measured code may leak past the counter reads");
    host_platform_free(&h);

    amd_cpu(&h, 0x00800F10, 0x80000020u);
    host_msr_fault(&h, MSR_AMD_DE_CFG);
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: NOT known to serialise: DE_CFG (MSR 0xc0011029) cannot be read; the "
                       "measured code may leak past the counter reads");
    host_platform_free(&h);
}

NB_TEST(lfence_intel_and_old_amd)
{
    struct host_platform h;
    struct lfence_session s;
    char line[200];
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x16);
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: dispatch-serialising (Intel)");
    host_platform_free(&h);
    amd_cpu(&h, 0x00000F60, 0x80000008u); /* family 0Fh (QEMU's TCG default) */
    describe(&h, &s, line, sizeof(line));
    CHECK_EQ_STR(line, "lfence: not checked (not an Intel or AMD family 10h+ processor)");
    host_platform_free(&h);
}
