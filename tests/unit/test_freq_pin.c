/*
 * test_freq_pin.c — -freq base through the seam: the MSR writes that fix the
 * clock at the base frequency with turbo off, and the values restored after
 * (Intel HWP: IA32_HWP_REQUEST min = max = desired = guaranteed performance
 * from IA32_HWP_CAPABILITIES, SDM vol. 3B 15.4.4/15.4.7; without HWP:
 * IA32_PERF_CTL[15:8] = MSR_PLATFORM_INFO[15:8], the maximum non-turbo
 * ratio; turbo off with IA32_MISC_ENABLE[38]. AMD: HWCR[25] CpbDis and
 * P-state 0 through PStateCtl, APM vol. 2 17.1, PPR MSRC001_0062).
 */
#include "freq_pin.h"
#include "host_platform.h"
#include "machine.h"
#include "nb_test.h"

#include <string.h>

static void intel(struct host_platform *h, bool hwp)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", 0x16);
    host_cpuid_set(h, 1, 0, 0x000906EA, 0, 0, 1u << 4);
    host_cpuid_set(h, 6, 0, 2u | (hwp ? 1u << 7 : 0), 0, 1, 0);
    host_msr_set(h, 0x1A0, 0x850089);             /* IA32_MISC_ENABLE, turbo allowed */
    host_msr_set(h, 0xCE, 0x20080C2400ull);       /* MSR_PLATFORM_INFO: base ratio 0x24 */
    host_msr_set(h, 0x199, 0x2A00);               /* IA32_PERF_CTL: ratio 0x2A */
    if (hwp) {
        host_msr_set(h, 0x770, 1);                /* IA32_PM_ENABLE: HWP on */
        host_msr_set(h, 0x771, 0x01081C2D);       /* lowest 1, efficient 8, guaranteed 0x1C, highest 0x2D */
        host_msr_set(h, 0x774, 0x80002D01ull);    /* EPP 0x80, max 0x2D, min 1 */
    }
}

NB_TEST(freq_pin_intel_hwp_min_max_at_guaranteed_and_restored)
{
    struct host_platform h;
    intel(&h, true);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct freq_pin f;
    char what[240];
    REQUIRE(freq_pin_base(&f, &h.p, &m, what, sizeof(what)));
    CHECK_EQ_STR(what, "freq: base: HWP request min = max = desired = 28 (guaranteed performance, "
                       "IA32_HWP_CAPABILITIES), turbo off (IA32_MISC_ENABLE[38])");
    CHECK_EQ_U64(host_msr_get(&h, 0x774), 0x801C1C1Cull);
    CHECK_EQ_U64(host_msr_get(&h, 0x1A0), 0x4000850089ull);
    CHECK_EQ_U64(host_msr_get(&h, 0x199), 0x2A00); /* not touched under HWP */
    freq_pin_restore(&f, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, 0x774), 0x80002D01ull);
    CHECK_EQ_U64(host_msr_get(&h, 0x1A0), 0x850089);
    host_platform_free(&h);
}

NB_TEST(freq_pin_intel_perf_ctl_at_the_non_turbo_ratio_and_restored)
{
    struct host_platform h;
    intel(&h, false);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct freq_pin f;
    char what[240];
    REQUIRE(freq_pin_base(&f, &h.p, &m, what, sizeof(what)));
    CHECK_EQ_STR(what, "freq: base: IA32_PERF_CTL ratio 36 (maximum non-turbo ratio, "
                       "MSR_PLATFORM_INFO[15:8]), turbo off (IA32_MISC_ENABLE[38])");
    CHECK_EQ_U64(host_msr_get(&h, 0x199), 0x2400);
    CHECK_EQ_U64(host_msr_get(&h, 0x1A0), 0x4000850089ull);
    freq_pin_restore(&f, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, 0x199), 0x2A00);
    CHECK_EQ_U64(host_msr_get(&h, 0x1A0), 0x850089);
    host_platform_free(&h);
}

NB_TEST(freq_pin_amd_boost_off_and_pstate_0_restored)
{
    struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "AuthenticAMD", 0x10);
    host_cpuid_set(&h, 1, 0, 0x00A60F12, 0, 0, 1u << 4);
    host_cpuid_set(&h, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
    host_cpuid_set(&h, 0x80000007u, 0, 0, 0, 0, (1u << 9) | (1u << 7)); /* CPB, HwPstate */
    host_msr_set(&h, 0xC0010015u, 0x9000011ull); /* HWCR, CpbDis clear */
    host_msr_set(&h, 0xC0010062u, 2);           /* PStateCtl: P2 */
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct freq_pin f;
    char what[240];
    REQUIRE(freq_pin_base(&f, &h.p, &m, what, sizeof(what)));
    CHECK_EQ_STR(what, "freq: base: P-state 0 (PStateCtl), boost off (HWCR[25] CpbDis)");
    CHECK_EQ_U64(host_msr_get(&h, 0xC0010015u), 0xB000011ull);
    CHECK_EQ_U64(host_msr_get(&h, 0xC0010062u), 0);
    freq_pin_restore(&f, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, 0xC0010015u), 0x9000011ull);
    CHECK_EQ_U64(host_msr_get(&h, 0xC0010062u), 2);
    host_platform_free(&h);
}

NB_TEST(freq_pin_refused_write_undoes_and_says_why)
{
    struct host_platform h;
    intel(&h, false);
    host_msr_fault(&h, 0x199);
    struct machine_info m;
    machine_identify(&h.p, &m);
    struct freq_pin f;
    char what[240];
    CHECK(!freq_pin_base(&f, &h.p, &m, what, sizeof(what)));
    CHECK_EQ_STR(what, "IA32_PERF_CTL (MSR 0x199) cannot be read or written");
    CHECK_EQ_U64(host_msr_get(&h, 0x1A0), 0x850089); /* nothing left changed */
    host_platform_free(&h);
}
