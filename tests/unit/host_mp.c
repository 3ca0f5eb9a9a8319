/*
 * host_mp.c — the fake multiprocessor firmware of host unit tests (host_mp.h).
 */
#include "host_mp.h"

#include "pmu_msrs.h"

#include <string.h>

struct host_mp host_mp;

static unsigned mp_cpu_count(void *ctx)
{
    (void)ctx;
    return host_mp.n_cpus;
}

static unsigned mp_current_cpu(void *ctx)
{
    (void)ctx;
    return host_mp.current;
}

static int mp_run_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    (void)ctx;
    if (cpu >= host_mp.n_cpus)
        return NB_EINVAL;
    if (host_mp.n_ran < HOST_MP_LOG)
        host_mp.ran_on[host_mp.n_ran++] = cpu;
    unsigned saved = host_mp.current;
    if (cpu != saved) {
        host_mp.calls++;
        if (host_mp.wake)
            host_mp.wake(cpu);
        if (host_mp.switched)
            host_mp.switched(saved, cpu);
    }
    host_mp.current = cpu;
    fn(arg);
    host_mp.current = saved;
    if (cpu != saved && host_mp.switched)
        host_mp.switched(cpu, saved);
    return NB_OK;
}

void host_mp_install(struct host_platform *h, unsigned n_cpus)
{
    memset(&host_mp, 0, sizeof(host_mp));
    host_mp.n_cpus = n_cpus;
    h->p.cpu_count = mp_cpu_count;
    h->p.current_cpu = mp_current_cpu;
    h->p.run_on_cpu = mp_run_on_cpu;
}

uint32_t host_mp_apic_id(void *ctx)
{
    (void)ctx;
    return host_mp.apic_id_base + host_mp.current;
}

/* The architectural PMU's MSRs (SDM vol. 3B 20.2): counters, event selects, fixed counters, their controls. */
static bool pmu_msr(uint32_t msr)
{
    return (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + 8) ||
           (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + 8) ||
           (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + 4) || msr == MSR_IA32_FIXED_CTR_CTRL ||
           msr == MSR_IA32_PERF_GLOBAL_CTRL;
}

static int watched_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    host_mp.pmu_elsewhere += pmu_msr(msr) && host_mp.current != host_mp.pmu_cpu;
    return host_mp.next_read_msr(ctx, msr, value);
}

static int watched_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    host_mp.pmu_elsewhere += pmu_msr(msr) && host_mp.current != host_mp.pmu_cpu;
    return host_mp.next_write_msr(ctx, msr, value);
}

void host_mp_watch_pmu(struct host_platform *h, unsigned cpu)
{
    host_mp.pmu_cpu = cpu;
    host_mp.pmu_elsewhere = 0;
    host_mp.next_read_msr = h->p.read_msr;
    host_mp.next_write_msr = h->p.write_msr;
    h->p.read_msr = watched_read_msr;
    h->p.write_msr = watched_write_msr;
}
