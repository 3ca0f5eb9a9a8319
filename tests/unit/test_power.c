/*
 * test_power.c — turbo, HWP and APERF/MPERF detection from scripted CPUID
 * and MSRs (SDM vol. 2A CPUID.06H, vol. 4 IA32_MISC_ENABLE / IA32_PM_ENABLE;
 * APM CPUID 8000_0007H and HWCR).
 */
#include "host_platform.h"
#include "nb_test.h"
#include "power.h"

NB_TEST(power_intel_turbo_hwp_aperf)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 6);
    host_cpuid_set(&h, 1, 0, 0x000906EA, 0, 0, 1u << 4);
    host_cpuid_set(&h, 6, 0, (1u << 1) | (1u << 7), 0, 1u << 0, 0);
    host_msr_set(&h, 0x1A0, 0);          /* turbo not disabled */
    host_msr_set(&h, 0x770, 1);          /* HWP enabled */
    host_msr_set(&h, 0xE7, 1000);
    host_msr_set(&h, 0xE8, 2000);
    host_msr_set(&h, 0x34, 5);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct power_info w;
    power_identify(&h.p, &m, &w);
    CHECK_EQ_INT(w.turbo, STATE_ON);
    CHECK_EQ_INT(w.hwp, STATE_ON);
    CHECK(w.aperf_mperf);
    CHECK(w.smi_count);
    CHECK_EQ_U64(w.smis, 5);

    host_msr_set(&h, 0x1A0, 1ull << 38); /* Turbo Mode Disable */
    host_msr_fault(&h, 0x770);
    host_msr_fault(&h, 0xE8);
    host_msr_fault(&h, 0x34);
    power_identify(&h.p, &m, &w);
    CHECK_EQ_INT(w.turbo, STATE_OFF);
    CHECK_EQ_INT(w.hwp, STATE_UNKNOWN);
    CHECK(!w.aperf_mperf);
    CHECK(!w.smi_count);
    host_platform_free(&h);
}

NB_TEST(power_amd_core_performance_boost)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "AuthenticAMD", 6);
    host_cpuid_set(&h, 1, 0, 0x00A20F10, 0, 0, 1u << 4);
    host_cpuid_set(&h, 0x80000000u, 0, 0x80000007u, 0, 0, 0);
    host_cpuid_set(&h, 0x80000007u, 0, 0, 0, 0, 1u << 9);
    host_msr_set(&h, 0xC0010015u, 1ull << 25); /* CpbDis */
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct power_info w;
    power_identify(&h.p, &m, &w);
    CHECK_EQ_INT(w.turbo, STATE_OFF);
    CHECK(!w.smi_count); /* MSR_SMI_COUNT is Intel's */
    host_msr_set(&h, 0xC0010015u, 0);
    power_identify(&h.p, &m, &w);
    CHECK_EQ_INT(w.turbo, STATE_ON);
    CHECK_EQ_STR(tristate_name(w.hwp), "off");
    host_platform_free(&h);
}
