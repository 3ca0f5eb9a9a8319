/*
 * test_counters.c — the image's PMU bring-up on a fake machine whose counter
 * 0 "counts" (an MSR write hook): detection, probe, the default config chosen
 * from nanobench/configs/cpu_map.txt by family/model (and core type), the
 * fingerprint lines, and the counter state restored at the end.
 */
#include "bench_counters.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_msrs.h"

#include <string.h>

/* While enabled, counter 0 counts the probe loop: 2002 retired instructions. */
static void counting_pmc(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
}

static void skylake(struct host_platform *h, uint32_t core_type)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", 0x1A);
    host_cpuid_set(h, 1, 0, 0x00050654, 0, 0, 1u << 4); /* family 6 model 0x55 */
    host_cpuid_set(h, 0xA, 0, 0x07300404, 0, 0, 0x603);
    host_cpuid_set(h, 0x1A, 0, core_type << 24, 0, 0, 0);
    host_msr_fault(h, 0x8B);
    host_msr_set(h, MSR_IA32_PERF_GLOBAL_CTRL, 0xF);
    h->on_msr_write = counting_pmc;
    host_fs_add_text(h, "nanobench/configs/cpu_map.txt",
                     "# test map\nintel 6 0x55 Skylake\namd 0x19 0x21 Zen3\n");
    host_fs_add_text(h, "nanobench/configs/ctr_Skylake.txt", "# restrictions\nD1 0-3\nC0.01 1\n");
}

/* What nb_run_image does first: identify the machine, then bring up the counters. */
static void bring_up(struct host_platform *h, struct report *r, struct counter_env *env)
{
    struct machine_info m;
    machine_identify(&h->p, &m);
    report_init(r, &h->p);
    counters_init(env, &h->p, &m, r);
}

NB_TEST(counters_init_probes_and_picks_the_default_config)
{
    struct host_platform h;
    skylake(&h, 0);
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(env.usable);
    CHECK_EQ_STR(host_text(&h), "power: turbo off, HWP off, APERF/MPERF no\n"
                                "smi: not checked (the code does not run in ring 0)\n"
                                "pmu: intel, 4 general-purpose counters (48 bits), 3 fixed; probe ok\n"
                                "pmu: default config configs/cfg_Skylake_common.txt\n"
                                "pmu: chosen by cpu_map.txt: intel family 0x6 model 0x55\n"
                                "pmu: counter restrictions: configs/ctr_Skylake.txt (2 rules), "
                                "for every config\n");
    CHECK(env.desc.ctr_rules == env.ctr_rules);
    /* Programming a group changes the global control; finishing puts it back. */
    pmu_program_group(&env.session, NULL, NULL, true);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0x700000000ull);
    counters_finish(&env);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERF_GLOBAL_CTRL), 0xF);
    host_platform_free(&h);
}

NB_TEST(counters_init_unknown_model_gets_the_architectural_events_and_one_line)
{
    struct host_platform h;
    skylake(&h, 0);
    host_cpuid_set(&h, 1, 0, 0x000C06C1, 0, 0, 1u << 4); /* family 6 model 0xCC: not in the map */
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(strstr(host_text(&h),
                 "pmu: default config built-in architectural events\n"
                 "warning: pmu: intel family 0x6 model 0xcc is not in cpu_map.txt: measuring the "
                 "architectural events only (CPUID.0AH); pass this processor's events with "
                 "-config FILE\n"));
    CHECK_EQ_STR(env.default_config, "");
    counters_finish(&env);
    host_platform_free(&h);
}

NB_TEST(counters_init_without_the_restrictions_file_says_so)
{
    struct host_platform h;
    skylake(&h, 0);
    host_fs_add_text(&h, "nanobench/configs/cpu_map.txt", "intel 6 0x55 SkylakeX\n");
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(strstr(host_text(&h), "pmu: chosen by cpu_map.txt: intel family 0x6 model 0x55\n"
                                "warning: pmu: no configs/ctr_SkylakeX.txt on the image: events are "
                                "not held to the counters the vendor lists\n"));
    CHECK(env.desc.ctr_rules == NULL);
    counters_finish(&env);
    host_platform_free(&h);
}

NB_TEST(counters_init_unknown_model_has_no_restrictions_and_says_so)
{
    struct host_platform h;
    skylake(&h, 0);
    host_cpuid_set(&h, 1, 0, 0x000C06C1, 0, 0, 1u << 4); /* family 6 model 0xCC */
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(strstr(host_text(&h), "with -config FILE\n"
                                "pmu: counter restrictions: none known for this model\n"));
    CHECK(env.desc.ctr_rules == NULL);
    counters_finish(&env);
    host_platform_free(&h);
}

NB_TEST(counters_init_listed_model_says_which_line_chose_the_config)
{
    struct host_platform h;
    skylake(&h, 0x40);
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(strstr(host_text(&h), "pmu: default config configs/cfg_Skylake_common.txt\n"
                                "pmu: chosen by cpu_map.txt: intel family 0x6 model 0x55\n"));
    counters_finish(&env);
    host_platform_free(&h);
}

NB_TEST(counters_init_unknown_family_uses_architectural_events)
{
    struct host_platform h;
    skylake(&h, 0);
    host_cpuid_set(&h, 1, 0, 0x00B00F00, 0, 0, 1u << 4); /* display family 0x1A: not in the map */
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(strstr(host_text(&h), "pmu: default config built-in architectural events\n"
                                "warning: pmu: no config for intel family 0x1a model 0x0 in "
                                "cpu_map.txt (no model of that family is listed): measuring the "
                                "architectural events only (CPUID.0AH); pass this processor's "
                                "events with -config FILE\n"));
    counters_finish(&env);
    host_platform_free(&h);
}

NB_TEST(counters_init_without_counting_pmu_says_why)
{
    struct host_platform h;
    skylake(&h, 0);
    h.on_msr_write = NULL; /* counters keep values but never count */
    struct report r;
    struct counter_env env;
    bring_up(&h, &r, &env);
    CHECK(!env.usable);
    CHECK_EQ_STR(host_text(&h), "power: turbo off, HWP off, APERF/MPERF no\n"
                                "smi: not checked (the code does not run in ring 0)\n"
                                "pmu: none usable: counter 0 counted 0 retired instructions for a loop "
                                "of 2000 to 100000; measuring RDTSC only\n");
    counters_finish(&env);
    host_platform_free(&h);
}
