/*
 * lfence_serialise.c — see lfence_serialise.h.
 */
#include "lfence_serialise.h"

#include "nb_text.h"

void lfence_session_begin(struct lfence_session *s, const struct nb_platform *p, const struct machine_info *m)
{
    nb_memset(s, 0, sizeof(*s));
    if (m->vendor_id == VENDOR_INTEL) {
        s->state = LFENCE_INTEL;
        return;
    }
    if (m->vendor_id != VENDOR_AMD || m->family < 0x10) {
        s->state = LFENCE_NOT_APPLICABLE;
        return;
    }
    if (m->max_ext_leaf >= CPUID_LEAF_AMD_EXT_FEATURES_2) {
        uint32_t r[4];
        p->cpuid(p->ctx, CPUID_LEAF_AMD_EXT_FEATURES_2, 0, r);
        if (r[0] & CPUID_80000021_EAX_LFENCE_ALWAYS_SERIALIZING) {
            s->state = LFENCE_CPUID;
            return;
        }
    }
    uint64_t v = 0, back = 0;
    if (p->read_msr(p->ctx, MSR_AMD_DE_CFG, &v) != NB_OK) {
        s->state = LFENCE_NOT_SERIALISING;
        nb_snprintf(s->why, sizeof(s->why), "DE_CFG (MSR 0xc0011029) cannot be read");
        return;
    }
    if (v & DE_CFG_LFENCE_SERIALIZE) {
        s->state = LFENCE_ALREADY_SET;
        return;
    }
    if (p->write_msr(p->ctx, MSR_AMD_DE_CFG, v | DE_CFG_LFENCE_SERIALIZE) != NB_OK) {
        s->state = LFENCE_NOT_SERIALISING;
        nb_snprintf(s->why, sizeof(s->why), "setting DE_CFG[1] faulted");
        return;
    }
    /* A hypervisor may ignore the write: only a read-back proves it. */
    if (p->read_msr(p->ctx, MSR_AMD_DE_CFG, &back) != NB_OK || !(back & DE_CFG_LFENCE_SERIALIZE)) {
        s->state = LFENCE_NOT_SERIALISING;
        nb_snprintf(s->why, sizeof(s->why), "DE_CFG[1] did not stick (read back 0x%llx)",
                    (unsigned long long)back);
        return;
    }
    s->state = LFENCE_SET_FOR_SESSION;
    s->saved_de_cfg = v;
}

void lfence_session_end(struct lfence_session *s, const struct nb_platform *p)
{
    if (s->state == LFENCE_SET_FOR_SESSION)
        p->write_msr(p->ctx, MSR_AMD_DE_CFG, s->saved_de_cfg);
    s->state = LFENCE_NOT_APPLICABLE;
}

void lfence_describe(const struct lfence_session *s, char *out, size_t cap)
{
    switch (s->state) {
    case LFENCE_INTEL:
        nb_snprintf(out, cap, "lfence: dispatch-serialising (Intel)");
        return;
    case LFENCE_CPUID:
        nb_snprintf(out, cap, "lfence: dispatch-serialising (CPUID 8000_0021H EAX[2])");
        return;
    case LFENCE_ALREADY_SET:
        nb_snprintf(out, cap, "lfence: dispatch-serialising (DE_CFG[1] set by the firmware)");
        return;
    case LFENCE_SET_FOR_SESSION:
        nb_snprintf(out, cap, "lfence: dispatch-serialising (DE_CFG[1] set for this session, restored at the end)");
        return;
    case LFENCE_NOT_SERIALISING:
        nb_snprintf(out, cap, "lfence: NOT known to serialise: %s; the measured code may leak past "
                              "the counter reads", s->why);
        return;
    default:
        nb_snprintf(out, cap, "lfence: not checked (not an Intel or AMD family 10h+ processor)");
        return;
    }
}
