/*
 * test_xsave_state.c — the XCR0 the image enables for a scripted CPUID
 * (SDM vol. 1 13.3 consistency rules), and the CR4/XCR0/IA32_XFD writes of a
 * session on the fake platform, which faults (counts) on any XSETBV a real
 * processor would reject.
 */
#include "host_platform.h"
#include "nb_test.h"
#include "xsave_state.h"

#include <string.h>

#define LEAF1_ECX_XSAVE (1u << 26)
#define LEAF1_EDX_FXSR (1u << 24)
#define CR4_FIRMWARE 0x220ull /* PAE, OSFXSR: what OVMF leaves */

/* A CPU with leaf 0DH: supported XCR0 bits, the area size for what we enable, XFD or not. */
static void script(struct host_platform *h, bool xsave, uint64_t supported, uint32_t size, bool xfd)
{
    host_platform_init(h);
    host_cpuid_set_vendor(h, "GenuineIntel", 0x20);
    host_cpuid_set(h, 1, 0, 0x000806F8, 0, xsave ? LEAF1_ECX_XSAVE : 0, LEAF1_EDX_FXSR);
    host_cpuid_set(h, 0xD, 0, (uint32_t)supported, size, size, (uint32_t)(supported >> 32));
    host_cpuid_set(h, 0xD, 1, xfd ? 0x1F : 0x0F, 0, 0, 0);
}

static uint64_t choose(struct host_platform *h)
{
    struct xsave_cpu cpu;
    xsave_read_cpu(&h->p, &cpu);
    return xsave_choose_xcr0(&cpu);
}

NB_TEST(xsave_choose_for_scripted_cpus)
{
    struct host_platform h;
    /* Sapphire Rapids: x87 SSE AVX AVX-512 PKRU AMX -> everything but PKRU. */
    script(&h, true, 0x602E7, 11008, true);
    CHECK_EQ_U64(choose(&h), 0x600E7);
    host_platform_free(&h);
    /* Zen 4: x87 SSE AVX AVX-512 PKRU (and MPX-free). */
    script(&h, true, 0x2E7, 2440, false);
    CHECK_EQ_U64(choose(&h), 0xE7);
    host_platform_free(&h);
    /* Skylake client: x87 SSE AVX MPX -> MPX stays off. */
    script(&h, true, 0x1F, 1088, false);
    CHECK_EQ_U64(choose(&h), 0x7);
    host_platform_free(&h);
    /* AVX2-only (QEMU max). */
    script(&h, true, 0x7, 832, false);
    CHECK_EQ_U64(choose(&h), 0x7);
    host_platform_free(&h);
    /* No XSAVE: FXSAVE only. */
    script(&h, false, 0x7, 832, false);
    CHECK_EQ_U64(choose(&h), 0);
    host_platform_free(&h);
}

NB_TEST(xsave_choose_keeps_xcr0_consistent)
{
    struct host_platform h;
    struct {
        uint64_t supported, expected;
    } cases[] = {
        { 0x27, 0x7 },        /* opmask alone: AVX-512 needs all three bits */
        { 0xE3, 0x3 },        /* AVX-512 without AVX */
        { 0xE5, 0x1 },        /* AVX without SSE, so no AVX-512 either */
        { 0x20007, 0x7 },     /* TILECFG without TILEDATA */
        { 0x60007, 0x60007 }, /* AMX with AVX only */
        { 0x6, 0x7 },         /* bit 0 is always set */
        { 0xFFFFFFFFFFFFFFFFull, 0x600E7 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        script(&h, true, cases[i].supported, 4096, false);
        CHECK_EQ_U64(choose(&h), cases[i].expected);
        host_platform_free(&h);
    }
}

static uint64_t xcr0_at_size_read;
static void note_size_read(struct host_platform *h, uint32_t leaf, uint32_t subleaf)
{
    if (leaf == 0xD && subleaf == 0)
        xcr0_at_size_read = h->xcr0;
}

NB_TEST(xsave_session_sapphire_rapids_enables_and_restores)
{
    struct host_platform h;
    script(&h, true, 0x602E7, 11008, true);
    host_control_regs_enable(&h, CR4_FIRMWARE, 0x1); /* XCR0 at its reset value */
    host_msr_set(&h, MSR_IA32_XFD, XCR0_TILEDATA);   /* the firmware armed AMX's XFD */
    h.on_cpuid = note_size_read;
    struct xsave_session s;
    xsave_session_begin(&s, &h.p);
    CHECK_EQ_U64(h.cr4, CR4_FIRMWARE | CR4_OSXMMEXCPT | CR4_OSXSAVE);
    CHECK_EQ_U64(h.xcr0, 0x600E7);
    CHECK_EQ_U64(s.xcr0, 0x600E7);
    CHECK_EQ_INT(s.area_size, 11008);
    CHECK_EQ_U64(xcr0_at_size_read, 0x600E7); /* EBX read after XSETBV */
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_XFD), 0);
    char line[128];
    xsave_describe(&s, true, line, sizeof(line));
    CHECK_EQ_STR(line, "xsave: XCR0 0x600e7 (x87 SSE AVX opmask ZMM_Hi256 Hi16_ZMM TILECFG "
                       "TILEDATA), 11008-byte area");
    xsave_session_end(&s, &h.p);
    CHECK_EQ_U64(host_msr_get(&h, MSR_IA32_XFD), XCR0_TILEDATA);
    CHECK_EQ_U64(h.xcr0, 0x1);
    CHECK_EQ_U64(h.cr4, CR4_FIRMWARE);
    CHECK_EQ_INT(h.bad_xcr_accesses, 0);
    /* XFD written twice (disarm, restore), XCR0 twice, CR4 twice. */
    CHECK_EQ_INT(h.n_writes, 2);
    CHECK_EQ_INT(h.xcr0_writes, 2);
    CHECK_EQ_INT(h.cr4_writes, 2);
    host_platform_free(&h);
}

NB_TEST(xsave_session_keeps_firmware_osxsave)
{
    struct host_platform h;
    script(&h, true, 0x7, 832, false);
    /* The firmware already runs with OSXSAVE and SSE state only. */
    host_control_regs_enable(&h, CR4_FIRMWARE | CR4_OSXMMEXCPT | CR4_OSXSAVE, 0x3);
    struct xsave_session s;
    xsave_session_begin(&s, &h.p);
    CHECK_EQ_INT(h.cr4_writes, 0);
    CHECK_EQ_U64(h.xcr0, 0x7);
    CHECK_EQ_INT(h.n_writes, 0); /* no IA32_XFD on this CPU */
    char line[128];
    xsave_describe(&s, true, line, sizeof(line));
    CHECK_EQ_STR(line, "xsave: XCR0 0x7 (x87 SSE AVX), 832-byte area");
    xsave_session_end(&s, &h.p);
    CHECK_EQ_U64(h.xcr0, 0x3);
    CHECK_EQ_INT(h.cr4_writes, 0);
    CHECK_EQ_INT(h.bad_xcr_accesses, 0);
    host_platform_free(&h);
}

NB_TEST(xsave_session_without_xsave_or_ring0)
{
    struct host_platform h;
    script(&h, false, 0, 0, false);
    host_control_regs_enable(&h, 0x20, 0x1); /* not even OSFXSR */
    struct xsave_session s;
    xsave_session_begin(&s, &h.p);
    CHECK_EQ_U64(h.cr4, 0x20 | CR4_OSFXSR | CR4_OSXMMEXCPT);
    CHECK_EQ_INT(h.xcr0_writes, 0);
    CHECK_EQ_U64(s.xcr0, 0);
    CHECK_EQ_INT(s.area_size, FXSAVE_AREA_SIZE);
    char line[128];
    xsave_describe(&s, true, line, sizeof(line));
    CHECK_EQ_STR(line, "xsave: none (CPUID.01H:ECX.XSAVE[26] = 0); benchmarks get x87/SSE "
                       "state only (FXSAVE64)");
    xsave_session_end(&s, &h.p);
    CHECK_EQ_U64(h.cr4, 0x20);
    CHECK_EQ_INT(h.bad_xcr_accesses, 0);
    host_platform_free(&h);

    /* No control-register access (user mode): nothing is touched. */
    script(&h, true, 0x7, 832, false);
    xsave_session_begin(&s, &h.p);
    CHECK(!s.managed);
    CHECK_EQ_U64(s.xcr0, 0);
    xsave_describe(&s, false, line, sizeof(line));
    CHECK_EQ_STR(line, "xsave: none (not in ring 0); benchmarks get x87/SSE state only (FXSAVE64)");
    xsave_session_end(&s, &h.p);
    host_platform_free(&h);
}
