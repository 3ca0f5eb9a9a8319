/*
 * steps_list.c — the listing of a -debug_trace file (see steps_list.h).
 */
#include "steps_list.h"
#include "mica_decode.h"
#include "mica_trace.h"

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <string.h>

static const char *const REG_NAMES[NB_TRACE_NREGS] = { "RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
                                                       "R8",  "R9",  "R10", "R11", "R12", "R13", "R14", "R15",
                                                       "RFLAGS" };

struct step {
    uint64_t rip;
    uint64_t regs[NB_TRACE_NREGS];
    uint8_t bytes[NB_TRACE_MAX_INSN_BYTES];
    uint8_t n_bytes;
    bool changed;
};

struct lister {
    const char *name;
    FILE *text, *csv;
    uint64_t first_rip, n;
    struct mica_decoder dec;
    ZydisDecoder zdec;
    ZydisFormatter fmt;
};

/* The value a MOV/PUSH of a register or an immediate stores; false when it is not one of those. */
static bool stored_value(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, const uint64_t *regs,
                         uint32_t size, uint64_t *value)
{
    if (in->mnemonic != ZYDIS_MNEMONIC_MOV && in->mnemonic != ZYDIS_MNEMONIC_PUSH &&
        in->mnemonic != ZYDIS_MNEMONIC_MOVNTI)
        return false;
    for (unsigned i = 0; i < in->operand_count_visible; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        if (!(o->actions & ZYDIS_OPERAND_ACTION_MASK_READ) || o->type == ZYDIS_OPERAND_TYPE_MEMORY)
            continue;
        uint64_t v;
        if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            v = o->imm.value.u;
        } else if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, o->reg.value);
            if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15 || (o->reg.value >= ZYDIS_REGISTER_AH &&
                                                                          o->reg.value <= ZYDIS_REGISTER_BH))
                return false;
            v = regs[big - ZYDIS_REGISTER_RAX];
        } else {
            return false;
        }
        *value = size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
        return true;
    }
    return false;
}

/* CSV field: quoted when it has a comma or a quote. */
static void csv_field(FILE *f, const char *s, bool last)
{
    if (strpbrk(s, ",\"")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static int emit_step(struct lister *l, const struct step *s, const uint64_t *after, char *err, size_t errlen)
{
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    char text[160] = "(undecodable)";
    bool decoded = ZYAN_SUCCESS(ZydisDecoderDecodeFull(&l->zdec, s->bytes, s->n_bytes, &in, ops));
    if (decoded)
        ZydisFormatterFormatInstruction(&l->fmt, &in, ops, in.operand_count_visible, text, sizeof(text), s->rip,
                                        NULL);
    unsigned len = decoded ? in.length : s->n_bytes;
    char bytes[64] = "";
    for (unsigned i = 0, k = 0; i < len; i++)
        k += (unsigned)snprintf(bytes + k, sizeof(bytes) - k, "%s%02x", i ? " " : "", s->bytes[i]);

    char changes[1024] = "", writes[160] = "";
    size_t k = 0;
    if (!after) {
        snprintf(changes, sizeof(changes), "?");
    } else {
        for (int r = 0; r < NB_TRACE_NREGS; r++)
            if (after[r] != s->regs[r] && k < sizeof(changes))
                k += (size_t)snprintf(changes + k, sizeof(changes) - k, "%s%s 0x%llx->0x%llx", k ? " " : "",
                                      REG_NAMES[r], (unsigned long long)s->regs[r], (unsigned long long)after[r]);
    }
    struct mica_rec rec;
    char derr[160];
    uint64_t next = after ? 0 : s->rip;
    if (decoded && mica_decode(&l->dec, s->rip, s->bytes, s->n_bytes, s->changed, s->regs, next, &rec, derr,
                               sizeof(derr)) == 0 &&
        rec.mem_write) {
        uint64_t v;
        int n = snprintf(writes, sizeof(writes), "[0x%llx] %u byte%s", (unsigned long long)rec.write_ea,
                         rec.write_size, rec.write_size == 1 ? "" : "s");
        if (stored_value(&in, ops, s->regs, rec.write_size, &v))
            snprintf(writes + n, sizeof(writes) - (size_t)n, " = 0x%llx", (unsigned long long)v);
    }
    l->n++;
    unsigned long long off = (unsigned long long)(s->rip - l->first_rip);
    if (l->text)
        fprintf(l->text, "%5llu  0x%016llx  +0x%-5llx %-30s  %-28s %s%s%s\n", (unsigned long long)l->n,
                (unsigned long long)s->rip, off, bytes, text, changes, writes[0] ? (changes[0] ? "  " : "") : "",
                writes[0] ? writes : "");
    if (l->csv) {
        char num[32], addr[32], offs[32];
        snprintf(num, sizeof(num), "%llu", (unsigned long long)l->n);
        snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)s->rip);
        snprintf(offs, sizeof(offs), "0x%llx", off);
        csv_field(l->csv, num, false);
        csv_field(l->csv, addr, false);
        csv_field(l->csv, offs, false);
        csv_field(l->csv, bytes, false);
        csv_field(l->csv, text, false);
        csv_field(l->csv, changes, false);
        csv_field(l->csv, writes, true);
    }
    (void)err;
    (void)errlen;
    return 0;
}

int steps_list(const char *name, const uint8_t *buf, size_t size, FILE *text, FILE *csv, uint64_t *steps,
               char *err, size_t errlen)
{
    struct mica_trace t;
    *steps = 0;
    if (mica_trace_open(&t, name, buf, size) < 0) {
        snprintf(err, errlen, "%s", t.err);
        return -1;
    }
    uint64_t sentinel = 0;
    for (int b = 7; b >= 0; b--)
        sentinel = sentinel << 8 | buf[NB_TRACE_SENTINEL_OFFSET + (unsigned)b];
    struct lister l = { .name = name, .text = text, .csv = csv };
    mica_decoder_init(&l.dec, t.h.fs_base, t.h.gs_base);
    ZydisDecoderInit(&l.zdec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ZydisFormatterInit(&l.fmt, ZYDIS_FORMATTER_STYLE_INTEL);
    if (csv)
        fprintf(csv, "step,address,offset,bytes,instruction,changes,writes\n");
    if (text)
        fprintf(text, " step  address             offset   bytes                           instruction"
                      "                   changes, memory writes\n");
    struct step prev;
    bool have = false;
    int rc, status = 0;
    struct mica_trace_insn insn;
    while ((rc = mica_trace_next(&t, &insn)) > 0) {
        if (!l.n && !have)
            l.first_rip = insn.rip;
        if (have && emit_step(&l, &prev, insn.regs, err, errlen) < 0) {
            status = -1;
            break;
        }
        have = false;
        if (sentinel && insn.rip == sentinel)
            continue; /* the state after the last instruction, not an instruction of the code */
        prev.rip = insn.rip;
        memcpy(prev.regs, insn.regs, sizeof(prev.regs));
        prev.n_bytes = insn.bytes ? insn.n_bytes : 0;
        if (insn.bytes)
            memcpy(prev.bytes, insn.bytes, insn.n_bytes);
        prev.changed = insn.bytes_changed;
        have = true;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", t.err);
        status = -1;
    } else if (have && status == 0) {
        emit_step(&l, &prev, NULL, err, errlen);
    }
    *steps = l.n;
    mica_decoder_free(&l.dec);
    mica_trace_close(&t);
    return status;
}
