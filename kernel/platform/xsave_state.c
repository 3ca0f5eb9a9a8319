/*
 * xsave_state.c — enabling XSAVE state components (see xsave_state.h).
 */
#include "xsave_state.h"
#include "cpuid_bits.h"
#include "nb_text.h"

void xsave_read_cpu(const struct nb_platform *p, struct xsave_cpu *cpu)
{
    uint32_t r[4];
    nb_memset(cpu, 0, sizeof(*cpu));
    p->cpuid(p->ctx, CPUID_LEAF_VENDOR, 0, r);
    uint32_t max_leaf = r[0];
    if (max_leaf < CPUID_LEAF_FEATURES)
        return;
    p->cpuid(p->ctx, CPUID_LEAF_FEATURES, 0, r);
    cpu->fxsr = (r[3] & CPUID_01_EDX_FXSR) != 0;
    if (!(r[2] & CPUID_01_ECX_XSAVE) || max_leaf < CPUID_LEAF_XSAVE)
        return;
    cpu->xsave = true;
    p->cpuid(p->ctx, CPUID_LEAF_XSAVE, 0, r);
    cpu->supported = (uint64_t)r[3] << 32 | r[0];
    p->cpuid(p->ctx, CPUID_LEAF_XSAVE, 1, r);
    cpu->xfd = (r[0] & CPUID_0D_1_EAX_XFD) != 0;
}

uint64_t xsave_choose_xcr0(const struct xsave_cpu *cpu)
{
    if (!cpu->xsave)
        return 0;
    /* SDM vol. 1 13.3: XCR0[0] must be 1 (XSETBV #GP otherwise). */
    uint64_t x = (cpu->supported & XCR0_WANTED) | XCR0_X87;
    /* XCR0[2] = 1 needs XCR0[1] = 1. */
    if (!(x & XCR0_SSE))
        x &= ~XCR0_AVX;
    /* XCR0[7:5] are all 1 or all 0, and all 1 needs XCR0[2] = 1. */
    if ((x & XCR0_AVX512) != XCR0_AVX512 || !(x & XCR0_AVX))
        x &= ~XCR0_AVX512;
    /* XCR0[17] and XCR0[18] must be equal. */
    if ((x & XCR0_AMX) != XCR0_AMX)
        x &= ~XCR0_AMX;
    return x;
}

void xsave_session_begin(struct xsave_session *s, const struct nb_platform *p)
{
    nb_memset(s, 0, sizeof(*s));
    s->area_size = FXSAVE_AREA_SIZE;
    if (!p->read_cr4 || !p->write_cr4 || !p->read_xcr0 || !p->write_xcr0)
        return;
    struct xsave_cpu cpu;
    xsave_read_cpu(p, &cpu);
    uint64_t xcr0 = xsave_choose_xcr0(&cpu);

    s->managed = true;
    s->old_cr4 = p->read_cr4(p->ctx);
    /* XGETBV needs CR4.OSXSAVE; without it XCR0 holds whatever it had, the reset value at best. */
    s->old_xcr0 = (s->old_cr4 & CR4_OSXSAVE) ? p->read_xcr0(p->ctx) : XCR0_RESET;

    /*
     * OSFXSR: FXSAVE/FXRSTOR save SSE state and SSE instructions work;
     * OSXMMEXCPT: an unmasked SIMD exception is #XM, not #UD (SDM vol. 3A 2.5).
     */
    uint64_t cr4 = s->old_cr4 | CR4_OSXMMEXCPT;
    if (cpu.fxsr)
        cr4 |= CR4_OSFXSR;
    if (xcr0)
        cr4 |= CR4_OSXSAVE;
    if (cr4 != s->old_cr4)
        p->write_cr4(p->ctx, cr4);
    if (!xcr0)
        return;
    if (xcr0 != s->old_xcr0 || !(s->old_cr4 & CR4_OSXSAVE))
        p->write_xcr0(p->ctx, xcr0);
    s->xcr0 = xcr0;
    /* EBX: the XSAVE area size for the components enabled in XCR0 now (SDM vol. 2A CPUID, leaf 0DH). */
    uint32_t r[4];
    p->cpuid(p->ctx, CPUID_LEAF_XSAVE, 0, r);
    s->area_size = r[1];
    /* A component armed in IA32_XFD faults with #NM on first use (and in XRSTOR): disarm ours. */
    if (cpu.xfd && p->read_msr(p->ctx, MSR_IA32_XFD, &s->old_xfd) == NB_OK && (s->old_xfd & xcr0)) {
        if (p->write_msr(p->ctx, MSR_IA32_XFD, s->old_xfd & ~xcr0) == NB_OK)
            s->xfd_changed = true;
    }
}

void xsave_session_end(struct xsave_session *s, const struct nb_platform *p)
{
    if (!s->managed)
        return;
    if (s->xfd_changed)
        p->write_msr(p->ctx, MSR_IA32_XFD, s->old_xfd);
    /* XSETBV while CR4.OSXSAVE is still set; the reset value when the firmware had it clear. */
    if (s->xcr0 && s->xcr0 != s->old_xcr0)
        p->write_xcr0(p->ctx, s->old_xcr0);
    if (p->read_cr4(p->ctx) != s->old_cr4)
        p->write_cr4(p->ctx, s->old_cr4);
    s->managed = false;
    s->xcr0 = 0;
    s->area_size = FXSAVE_AREA_SIZE;
}

static const struct {
    uint64_t bits;
    const char *name;
} COMPONENTS[] = {
    { XCR0_X87, "x87" },         { XCR0_SSE, "SSE" },
    { XCR0_AVX, "AVX" },         { XCR0_OPMASK, "opmask" },
    { XCR0_ZMM_HI256, "ZMM_Hi256" }, { XCR0_HI16_ZMM, "Hi16_ZMM" },
    { XCR0_TILECFG, "TILECFG" }, { XCR0_TILEDATA, "TILEDATA" },
};

void xsave_describe(const struct xsave_session *s, bool ring0, char *buf, size_t cap)
{
    if (!s->xcr0) {
        nb_snprintf(buf, cap, "xsave: none (%s); benchmarks get x87/SSE state only (FXSAVE64)",
                    !ring0 ? "not in ring 0" : !s->managed ? "no control-register access"
                                                           : "CPUID.01H:ECX.XSAVE[26] = 0");
        return;
    }
    char names[96] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof(COMPONENTS) / sizeof(COMPONENTS[0]); i++) {
        if (s->xcr0 & COMPONENTS[i].bits)
            used += (size_t)nb_snprintf(names + used, sizeof(names) - used, "%s%s",
                                        used ? " " : "", COMPONENTS[i].name);
    }
    nb_snprintf(buf, cap, "xsave: XCR0 0x%llx (%s), %u-byte area", (unsigned long long)s->xcr0,
                names, (unsigned)s->area_size);
}
