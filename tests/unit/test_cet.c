/*
 * test_cet.c — CR4.CET set by the firmware: nb_run_image says so once in the
 * fingerprint and reports every benchmark as not run (kernel/guard/cet_guard.h);
 * with CR4.CET clear nothing is said and the benchmark runs.
 */
#include "cet_guard.h"
#include "host_nasm.h"
#include "host_platform.h"
#include "nb_main.h"
#include "nb_test.h"

#include <stdlib.h>
#include <string.h>

static void machine(struct host_platform *h, uint64_t cr4)
{
    host_platform_init(h);
    host_cli_trap_install();
    host_cpuid_set_vendor(h, "GenuineIntel", 0x15);
    host_cpuid_set(h, 1, 0, 0x00050654, 0, 0, 1u << 4);
    host_cpuid_set(h, 0x15, 0, 2, 200, 24000000, 0);
    host_msr_fault(h, 0x8B);
    host_control_regs_enable(h, cr4, 1);
    size_t len;
    uint8_t *add = host_nasm(&len, "add rax, rbx\nadd rbx, rax");
    if (add)
        host_fs_add_file(h, "nanobench/code/add.bin", add, len);
    free(add);
    host_fs_add_text(h, NB_SUITE_PATH, "a: -code code/add.bin\nb: -code code/add.bin -unroll_count 2\n");
}

NB_TEST(cet_set_by_firmware_refuses_every_benchmark)
{
    struct host_platform h;
    machine(&h, CR4_CET | (1ull << 5));
    nb_run_image(&h.p);
    const char *text = host_text(&h);
    CHECK(strstr(text, "error: cet: CR4.CET is set (CR4 0x800020): the firmware enabled control-flow "
                       "enforcement, under which indirect-branch tracking and shadow stacks fault in "
                       "the generated code; no benchmark is run (turn CET off in the firmware setup)\n"));
    CHECK(strstr(text, "[a]\nerror: " CET_REFUSED "\n[b]\nerror: " CET_REFUSED "\n"));
    CHECK(!strstr(text, "RDTSC:"));
    CHECK(strstr(text, "2 benchmarks, 2 errors"));
    CHECK(h.cr4 & CR4_CET); /* left as the firmware set it */
    host_platform_free(&h);
}

NB_TEST(cet_clear_says_nothing_and_runs)
{
    struct host_platform h;
    machine(&h, 1ull << 5);
    nb_run_image(&h.p);
    const char *text = host_text(&h);
    CHECK(!strstr(text, "cet:"));
    CHECK(strstr(text, "[a]\nRDTSC: "));
    CHECK(strstr(text, "2 benchmarks, 0 errors"));
    host_platform_free(&h);
}
