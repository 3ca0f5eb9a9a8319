/*
 * bench_cpu_state.c — the processor state the code needs, checked where it
 * runs (see bench_cpu_state.h).
 */
#include "bench_cpu_state.h"
#include "lfence_serialise.h"
#include "xsave_state.h"

void bench_cpu_state_enter(struct bench_cpu_state *s, const struct nb_platform *local, uint64_t xcr0,
                           bool de_cfg_lfence)
{
    *s = (struct bench_cpu_state){ 0 };
    if (xcr0 && local->read_cr4 && local->write_cr4 && local->read_xcr0 && local->write_xcr0) {
        s->cr4 = local->read_cr4(local->ctx);
        /* XSETBV and XGETBV raise #UD unless CR4.OSXSAVE is set (SDM vol. 2C XSETBV). */
        if (!(s->cr4 & CR4_OSXSAVE)) {
            local->write_cr4(local->ctx, s->cr4 | CR4_OSXSAVE);
            s->cr4_changed = true;
        }
        s->xcr0 = s->cr4_changed ? XCR0_RESET : local->read_xcr0(local->ctx);
        if (s->cr4_changed || s->xcr0 != xcr0) {
            local->write_xcr0(local->ctx, xcr0);
            s->xcr0_changed = true;
        }
    }
    if (de_cfg_lfence && local->read_msr && local->write_msr &&
        local->read_msr(local->ctx, MSR_AMD_DE_CFG, &s->de_cfg) == NB_OK &&
        !(s->de_cfg & DE_CFG_LFENCE_SERIALIZE))
        s->de_cfg_changed =
            local->write_msr(local->ctx, MSR_AMD_DE_CFG, s->de_cfg | DE_CFG_LFENCE_SERIALIZE) == NB_OK;
}

void bench_cpu_state_leave(struct bench_cpu_state *s, const struct nb_platform *local)
{
    if (s->xcr0_changed)
        local->write_xcr0(local->ctx, s->xcr0);
    if (s->cr4_changed)
        local->write_cr4(local->ctx, s->cr4);
    if (s->de_cfg_changed)
        local->write_msr(local->ctx, MSR_AMD_DE_CFG, s->de_cfg);
    *s = (struct bench_cpu_state){ 0 };
}
