/*
 * test_cpu_platform.c — -cpu N: CPUID, MSR and TSC calls of a cpu_platform
 * run on processor N (through run_on_cpu); firmware services (files, memory,
 * text) stay with the boot processor's platform.
 */
#include "cpu_platform.h"
#include "host_mp.h"
#include "host_platform.h"
#include "nb_test.h"

#include <string.h>

NB_TEST(cpu_platform_forwards_processor_calls)
{
    struct host_platform h;
    host_platform_init(&h);
    host_mp_install(&h, 2); /* two processors; host_mp.ran_on: where each call ran */
    host_msr_set(&h, 0x186, 0x4300c0);
    host_cpuid_set(&h, 1, 0, 0x906ea, 0x01000800, 0, 0);

    struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, 1);
    uint64_t value = 0;
    CHECK_EQ_INT(cp.p.read_msr(cp.p.ctx, 0x186, &value), NB_OK);
    CHECK_EQ_U64(value, 0x4300c0);
    CHECK_EQ_INT(cp.p.write_msr(cp.p.ctx, 0x187, 7), NB_OK);
    CHECK_EQ_U64(host_msr_get(&h, 0x187), 7);
    uint32_t regs[4];
    cp.p.cpuid(cp.p.ctx, 1, 0, regs);
    CHECK_EQ_U64(regs[1], 0x01000800);
    REQUIRE(host_mp.n_ran == 3);
    CHECK(host_mp.ran_on[0] == 1 && host_mp.ran_on[1] == 1 && host_mp.ran_on[2] == 1);

    /* Firmware services are not forwarded. */
    host_mp.n_ran = 0;
    void *m = cp.p.alloc_data(cp.p.ctx, 4096);
    CHECK(m != NULL);
    cp.p.free_mem(cp.p.ctx, m, 4096);
    cp.p.write_text(cp.p.ctx, "x", 1);
    CHECK_EQ_INT(host_mp.n_ran, 0);
    CHECK_EQ_STR(host_raw_text(&h), "x");
    CHECK_EQ_INT(cp.p.current_cpu(cp.p.ctx), 1);
    CHECK_EQ_INT(cp.p.cpu_count(cp.p.ctx), 2);

    /* A processor that does not exist: the call fails instead of running here. */
    struct cpu_platform missing;
    cpu_platform_init(&missing, &h.p, 5);
    CHECK_EQ_INT(missing.p.read_msr(missing.p.ctx, 0x186, &value), NB_EINVAL);
    CHECK_EQ_U64(value, 0);
    host_platform_free(&h);
}

NB_TEST(cpu_helpers_without_mp_support)
{
    struct host_platform h;
    host_platform_init(&h);
    h.p.cpu_count = NULL;
    h.p.current_cpu = NULL;
    h.p.run_on_cpu = NULL;
    CHECK_EQ_INT(nb_cpu_count(&h.p), 1);
    CHECK_EQ_INT(nb_current_cpu(&h.p), 0);
    CHECK_EQ_INT(nb_run_on_cpu(&h.p, 1, (void (*)(void *))0, NULL), NB_EINVAL);
    host_platform_free(&h);
}

/* CR4 and XCR0 are per processor: a cpu_platform reads and writes them on N. */
NB_TEST(cpu_platform_forwards_control_registers)
{
    struct host_platform h;
    host_platform_init(&h);
    host_mp_install(&h, 2); /* two processors; host_mp.ran_on: where each call ran */
    host_cpuid_set(&h, 0xD, 0, 0x7, 832, 832, 0);
    host_control_regs_enable(&h, 0x40620, 0x1);
    struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, 1);
    REQUIRE(cp.p.read_cr4 != NULL);
    CHECK_EQ_U64(cp.p.read_cr4(cp.p.ctx), 0x40620);
    cp.p.write_cr4(cp.p.ctx, 0x40660);
    CHECK_EQ_U64(h.cr4, 0x40660);
    CHECK_EQ_U64(cp.p.read_xcr0(cp.p.ctx), 0x1);
    cp.p.write_xcr0(cp.p.ctx, 0x7);
    CHECK_EQ_U64(h.xcr0, 0x7);
    REQUIRE(host_mp.n_ran == 4);
    CHECK(host_mp.ran_on[0] == 1 && host_mp.ran_on[1] == 1 && host_mp.ran_on[2] == 1 && host_mp.ran_on[3] == 1);
    CHECK_EQ_INT(h.bad_xcr_accesses, 0);
    host_platform_free(&h);

    /* Without control-register access (user mode) there is nothing to forward. */
    host_platform_init(&h);
    cpu_platform_init(&cp, &h.p, 0);
    CHECK(cp.p.read_cr4 == NULL && cp.p.write_xcr0 == NULL);
    host_platform_free(&h);
}

struct local_seen {
    const struct nb_platform *local;
    unsigned on_cpu;
    uint64_t msr;
};

static void read_locally(const struct nb_platform *local, void *arg)
{
    struct local_seen *seen = arg;
    seen->local = local;
    seen->on_cpu = host_mp.current;
    /* Three MSR accesses, all local: no further processor calls. */
    local->write_msr(local->ctx, 0x187, 9);
    local->write_msr(local->ctx, 0x188, 10);
    local->read_msr(local->ctx, 0x187, &seen->msr);
}

/* A whole batch of processor work (a counter group's MSRs) is one call on processor N. */
NB_TEST(cpu_platform_runs_a_batch_in_one_call)
{
    struct host_platform h;
    host_platform_init(&h);
    host_mp_install(&h, 2); /* two processors; host_mp.ran_on: where each call ran */
    struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, 1);
    struct local_seen seen = { 0 };
    CHECK_EQ_INT(nb_run_locally(&cp.p, read_locally, &seen), NB_OK);
    CHECK_EQ_INT(host_mp.n_ran, 1);
    CHECK_EQ_INT(host_mp.ran_on[0], 1);
    CHECK(seen.local == &h.p);
    CHECK_EQ_INT(seen.on_cpu, 1);
    CHECK_EQ_U64(seen.msr, 9);
    /* The boot processor's own platform runs the batch in place. */
    host_mp.n_ran = 0;
    CHECK_EQ_INT(nb_run_locally(&h.p, read_locally, &seen), NB_OK);
    CHECK_EQ_INT(host_mp.n_ran, 0);
    CHECK(seen.local == &h.p);
    host_platform_free(&h);
}
