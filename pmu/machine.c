/*
 * machine.c — machine fingerprint (see machine.h).
 */
#include "machine.h"
#include "cpuid_bits.h"
#include "msr_names.h"
#include "nb_text.h"

static void cpuid(const struct nb_platform *p, uint32_t leaf, uint32_t r[4])
{
    p->cpuid(p->ctx, leaf, 0, r);
}

static void copy_regs(char *out, const uint32_t *regs, int n)
{
    for (int i = 0; i < n; i++)
        nb_memcpy(out + 4 * i, &regs[i], 4);
}

static void trim_brand(char *s)
{
    /* Brand strings are right-justified with leading spaces on older parts. */
    char *start = s;
    while (*start == ' ')
        start++;
    size_t n = nb_strlen(start);
    for (size_t i = 0; i <= n; i++)
        s[i] = start[i];
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
}

void machine_identify(const struct nb_platform *p, struct machine_info *m)
{
    uint32_t r[4];
    nb_memset(m, 0, sizeof(*m));

    cpuid(p, CPUID_LEAF_VENDOR, r);
    m->max_leaf = r[CPUID_EAX];
    uint32_t vendor_regs[3] = { r[CPUID_EBX], r[CPUID_EDX], r[CPUID_ECX] };
    copy_regs(m->vendor, vendor_regs, 3);
    if (nb_strcmp(m->vendor, "GenuineIntel") == 0)
        m->vendor_id = VENDOR_INTEL;
    else if (nb_strcmp(m->vendor, "AuthenticAMD") == 0)
        m->vendor_id = VENDOR_AMD;

    cpuid(p, CPUID_LEAF_FEATURES, r);
    uint32_t eax = r[CPUID_EAX];
    uint32_t base_family = (eax >> 8) & 0xF, base_model = (eax >> 4) & 0xF;
    m->family = base_family == 0xF ? base_family + ((eax >> 20) & 0xFF) : base_family;
    m->model = (base_family == 0x6 || base_family == 0xF) ? (((eax >> 16) & 0xF) << 4) | base_model
                                                          : base_model;
    m->stepping = eax & 0xF;
    m->tsc_present = (r[CPUID_EDX] & CPUID_01_EDX_TSC) != 0;
    /*
     * CPUID.1:ECX[31] is reserved (0) on bare metal and set by hypervisors,
     * which put their signature in leaf 40000000H (the convention Linux's
     * arch/x86/kernel/cpu/hypervisor.c relies on).
     */
    if (r[CPUID_ECX] & CPUID_01_ECX_HYPERVISOR) {
        m->hypervisor = true;
        cpuid(p, CPUID_LEAF_HYPERVISOR, r);
        uint32_t sig[3] = { r[CPUID_EBX], r[CPUID_ECX], r[CPUID_EDX] };
        copy_regs(m->hypervisor_id, sig, 3);
    }

    cpuid(p, CPUID_LEAF_EXT_MAX, r);
    m->max_ext_leaf = r[CPUID_EAX];
    if (m->max_ext_leaf >= CPUID_LEAF_EXT_FEATURES) {
        cpuid(p, CPUID_LEAF_EXT_FEATURES, r);
        m->rdtscp = (r[CPUID_EDX] & CPUID_80000001_EDX_RDTSCP) != 0;
    }
    if (m->max_ext_leaf >= CPUID_LEAF_BRAND_0 + 2) {
        for (uint32_t i = 0; i < 3; i++) {
            cpuid(p, CPUID_LEAF_BRAND_0 + i, r);
            copy_regs(m->brand + 16 * i, r, 4);
        }
        trim_brand(m->brand);
    }
    if (m->max_ext_leaf >= CPUID_LEAF_POWER_MGMT) {
        cpuid(p, CPUID_LEAF_POWER_MGMT, r);
        m->tsc_invariant = (r[CPUID_EDX] & CPUID_80000007_EDX_INVARIANT_TSC) != 0;
    }

    /*
     * Intel: write 0 to IA32_BIOS_SIGN_ID, execute CPUID(1), read the
     * revision from the high half (SDM vol. 3A 10.11.7.1). AMD keeps the
     * patch level in the low half of the same MSR (AMD family 17h+ PPRs, MSR0000_008B PatchLevel).
     */
    uint64_t sign = 0;
    if (m->vendor_id == VENDOR_INTEL) {
        if (p->write_msr(p->ctx, MSR_IA32_BIOS_SIGN_ID, 0) == NB_OK) {
            cpuid(p, CPUID_LEAF_FEATURES, r);
            if (p->read_msr(p->ctx, MSR_IA32_BIOS_SIGN_ID, &sign) == NB_OK) {
                m->microcode = (uint32_t)(sign >> 32);
                m->microcode_known = true;
            }
        }
    } else if (m->vendor_id == VENDOR_AMD) {
        if (p->read_msr(p->ctx, MSR_IA32_BIOS_SIGN_ID, &sign) == NB_OK) {
            m->microcode = (uint32_t)sign;
            m->microcode_known = true;
        }
    }
}

void machine_tsc_frequency(const struct nb_platform *p, struct machine_info *m, uint32_t calibrate_ms)
{
    uint32_t r[4];
    if (m->max_leaf >= CPUID_LEAF_TSC_CRYSTAL) {
        /* TSC Hz = crystal Hz * EBX / EAX (SDM vol. 3B 19.7.3); ECX may be 0 (unknown). */
        cpuid(p, CPUID_LEAF_TSC_CRYSTAL, r);
        if (r[CPUID_EAX] && r[CPUID_EBX] && r[CPUID_ECX]) {
            m->tsc_hz = (uint64_t)r[CPUID_ECX] * r[CPUID_EBX] / r[CPUID_EAX];
            m->tsc_source = TSC_FREQ_CPUID_15H;
            return;
        }
    }
    if (m->max_leaf >= CPUID_LEAF_FREQUENCY && m->vendor_id == VENDOR_INTEL) {
        cpuid(p, CPUID_LEAF_FREQUENCY, r);
        if (r[CPUID_EAX] & 0xFFFF) {
            m->tsc_hz = (uint64_t)(r[CPUID_EAX] & 0xFFFF) * 1000000u;
            m->tsc_source = TSC_FREQ_CPUID_16H;
            return;
        }
    }
    if (!m->tsc_present || calibrate_ms == 0)
        return;
    uint64_t start = p->read_tsc(p->ctx);
    p->stall_us(p->ctx, calibrate_ms * 1000u);
    uint64_t ticks = p->read_tsc(p->ctx) - start;
    m->tsc_hz = ticks * 1000u / calibrate_ms;
    m->tsc_source = TSC_FREQ_CALIBRATED;
}

/*
 * AMD P-state 0 definition, MSR C001_0064h (PPR for family 17h/19h:
 * CoreCOF = CpuFid[7:0] / CpuDfsId[13:8] * 200 MHz; family 1Ah:
 * CoreCOF = CpuFid[11:0] * 5 MHz). Bit 63 PstateEn.
 */
#define MSR_AMD_PSTATE_DEF0 0xC0010064u
#define AMD_PSTATE_EN (1ull << 63)

static uint64_t amd_p0_hz(const struct nb_platform *p, const struct machine_info *m)
{
    uint64_t v = 0;
    if (m->vendor_id != VENDOR_AMD || m->family < 0x17 || p->read_msr(p->ctx, MSR_AMD_PSTATE_DEF0, &v) != NB_OK ||
        !(v & AMD_PSTATE_EN))
        return 0;
    if (m->family >= 0x1A)
        return (v & 0xFFF) * 5000000ull;
    uint64_t fid = v & 0xFF, dfs = (v >> 8) & 0x3F;
    return dfs ? fid * 200000000ull / dfs : 0;
}

void machine_tsc_sources(const struct nb_platform *p, const struct machine_info *m,
                         uint32_t calibrate_ms, struct tsc_sources *out)
{
    uint32_t r[4];
    out->cpuid_15h_hz = out->cpuid_16h_hz = out->amd_p0_hz = out->calibrated_hz = 0;
    if (m->max_leaf >= CPUID_LEAF_TSC_CRYSTAL) {
        cpuid(p, CPUID_LEAF_TSC_CRYSTAL, r);
        if (r[CPUID_EAX] && r[CPUID_EBX] && r[CPUID_ECX])
            out->cpuid_15h_hz = (uint64_t)r[CPUID_ECX] * r[CPUID_EBX] / r[CPUID_EAX];
    }
    if (m->vendor_id == VENDOR_INTEL && m->max_leaf >= CPUID_LEAF_FREQUENCY) {
        cpuid(p, CPUID_LEAF_FREQUENCY, r);
        out->cpuid_16h_hz = (uint64_t)(r[CPUID_EAX] & 0xFFFF) * 1000000u;
    }
    out->amd_p0_hz = amd_p0_hz(p, m);
    if (m->tsc_present && calibrate_ms) {
        uint64_t start = p->read_tsc(p->ctx);
        p->stall_us(p->ctx, calibrate_ms * 1000u);
        out->calibrated_hz = (p->read_tsc(p->ctx) - start) * 1000u / calibrate_ms;
    }
}

const char *tsc_freq_source_name(enum tsc_freq_source s)
{
    switch (s) {
    case TSC_FREQ_CPUID_15H: return "CPUID.15H crystal ratio";
    case TSC_FREQ_CPUID_16H: return "CPUID.16H base frequency";
    case TSC_FREQ_CALIBRATED: return "calibrated against the firmware timer";
    default: return "unknown";
    }
}
