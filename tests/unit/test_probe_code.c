/*
 * test_probe_code.c — the PMU probe in ring 0: pmu_probe hands the whole
 * sequence (which MSRs, which values) to one procedure, and the procedure the
 * kernel generates for it (kernel/codegen/probe_code.h) is checked instruction by
 * instruction with objdump: interrupts off, counter zeroed, programmed,
 * enabled globally, the loop, disabled in the reverse order, read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host_objdump.h"
#include "host_platform.h"
#include "nb_test.h"
#include "pmu.h"
#include "pmu_msrs.h"
#include "probe_code.h"

struct seen {
    struct pmu_probe_sequence s;
    uint64_t answer;
};

static bool fake_count(void *arg, const struct pmu_probe_sequence *s, uint64_t *count)
{
    struct seen *seen = arg;
    seen->s = *s;
    *count = seen->answer;
    return true;
}

NB_TEST(probe_gives_one_procedure_the_whole_sequence)
{
    struct host_platform h;
    host_platform_init(&h);
    struct pmu_desc d;
    memset(&d, 0, sizeof(d));
    d.vendor = VENDOR_INTEL;
    d.version = 4;
    d.n_gp = 4;
    d.gp_width = 48;
    d.n_fixed = 3;
    struct seen seen = { .answer = 2000 };
    struct pmu_probe_loop loop = { fake_count, NULL, &seen, 1875, 2125 };
    char why[200] = "";
    host_msr_set(&h, MSR_IA32_PERFEVTSEL0, 0x1234);
    REQUIRE(pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_U64(seen.s.ctl_msr, 0x186);
    CHECK_EQ_U64(seen.s.ctr_msr, 0xC1);
    CHECK_EQ_U64(seen.s.global_msr, 0x38F);
    CHECK_EQ_U64(seen.s.ctl_value, 0x4300C0); /* INST_RETIRED, USR|OS|EN (SDM vol. 3B 20.2.1) */
    CHECK_EQ_U64(seen.s.global_value, 0x1);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_PERFEVTSEL0), 0x1234); /* left as found */
    seen.answer = 2500;
    CHECK(!pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_STR(why, "counter 0 counted 2500 retired instructions for a loop of 1875 to 2125");

    /* AMD without PerfMonV2: no global control; PerfCtrExtCore's interleaved MSRs. */
    memset(&d, 0, sizeof(d));
    d.vendor = VENDOR_AMD;
    d.n_gp = 6;
    d.gp_width = 48;
    d.amd_ext_core = true;
    seen.answer = 2000;
    REQUIRE(pmu_probe(&h.p, &d, &loop, why, sizeof(why)));
    CHECK_EQ_U64(seen.s.ctl_msr, 0xC0010200);
    CHECK_EQ_U64(seen.s.ctr_msr, 0xC0010201);
    CHECK_EQ_U64(seen.s.global_msr, 0);
    CHECK_EQ_U64(seen.s.ctl_value, 0x4300C0); /* APM vol. 2 13.2.1: USR bit 16, OS 17, EN 22 */
    host_platform_free(&h);
}

NB_TEST(probe_procedure_disassembles_as_intended)
{
    uint8_t buf[PROBE_CODE_MAX];
    struct pmu_probe_sequence s = { 0x186, 0xC1, 0x38F, 0x4300C0, 0x1 };
    REQUIRE(probe_code_emit(buf, sizeof(buf), &s, 1000) != NULL);
    char *listing = host_objdump(buf, 0, sizeof(buf));
    REQUIRE(listing != NULL);
    /* The mnemonics and operands in order, from the first instruction to the RET. */
    static const char *const want[] = {
        "pushf", "cli",
        "mov    ecx,0x38f", "mov    eax,0x0", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0xc1", "mov    eax,0x0", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0x186", "mov    eax,0x4300c0", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0x38f", "mov    eax,0x1", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0x3e9", "dec    ecx", "jne",
        "mov    ecx,0x38f", "mov    eax,0x0", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0x186", "mov    eax,0x0", "mov    edx,0x0", "wrmsr",
        "mov    ecx,0xc1", "rdmsr", "shl    rdx,0x20", "or     rax,rdx", "popf", "ret",
    };
    const char *at = listing;
    for (size_t i = 0; i < NB_ARRAY_SIZE(want); i++) {
        const char *hit = strstr(at, want[i]);
        if (!CHECK(hit != NULL)) {
            nb_test_note("instruction %zu '%s' not found after offset %zu of:\n%s", i, want[i],
                         (size_t)(at - listing), listing);
            break;
        }
        at = hit + strlen(want[i]);
    }
    free(listing);
    /* Too small a buffer is refused, not overrun. */
    CHECK(probe_code_emit(buf, 16, &s, 1000) == NULL);
}
