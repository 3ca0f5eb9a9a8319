/*
 * mica_decode.c — see mica_decode.h. The static facts of an instruction are
 * decoded once per address (struct mica_static); per record only the
 * addresses, the branch outcome and the REP count are worked out.
 */
#include "mica_decode.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

enum mem_kind {
    MEM_NORMAL,     /* seg + base + index * scale + disp */
    MEM_PUSH,       /* RSP - size: the push happens before the store */
};

struct memop {
    enum mem_kind kind;
    int8_t base, index;     /* trace register index, -1 none, -2 RIP */
    uint8_t base_bits, index_bits;
    uint8_t scale;
    uint8_t seg;            /* 0, 1 = FS, 2 = GS */
    int64_t disp;
    uint32_t size;
};

struct mica_static {
    uint8_t len, category;
    const char *iclass;
    bool cond_br, real_rep, cmps;
    uint8_t count_bits;     /* RCX or ECX for REP */
    uint8_t n_reads;        /* 0..2 */
    bool has_write;
    struct memop read[2], write;
    uint8_t address_bits;
    /* Everything of struct mica_rec that does not depend on the record. */
    struct mica_rec proto;
};

static ZydisDecoder zdec;
static bool zdec_ready;
static char *iclass_names[ZYDIS_MNEMONIC_MAX_VALUE + 1];
static int8_t category_map[ZYDIS_CATEGORY_MAX_VALUE + 1];

static void setup(void)
{
    if (zdec_ready)
        return;
    ZydisDecoderInit(&zdec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    for (int c = 0; c <= ZYDIS_CATEGORY_MAX_VALUE; c++) {
        const char *s = ZydisCategoryGetString((ZydisInstructionCategory)c);
        int id = s ? mica_category_from_name(s) : -1;
        category_map[c] = (int8_t)(id < 0 ? MICA_CAT_INVALID : id);
    }
    zdec_ready = true;
}

/* XED spells an iclass in capitals; a few differ from the mnemonic. */
static const char *iclass_of(const ZydisDecodedInstruction *in)
{
    bool far = in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_CALL:
        return far ? "CALL_FAR" : "CALL_NEAR";
    case ZYDIS_MNEMONIC_RET:
        return far ? "RET_FAR" : "RET_NEAR";
    case ZYDIS_MNEMONIC_JMP:
        if (far)
            return "JMP_FAR";
        break;
    case ZYDIS_MNEMONIC_MOVSD:
        /* The SSE2 scalar move, not the string instruction. */
        if (in->meta.category != ZYDIS_CATEGORY_STRINGOP)
            return "MOVSD_XMM";
        break;
    case ZYDIS_MNEMONIC_CMPSD:
        if (in->meta.category != ZYDIS_CATEGORY_STRINGOP)
            return "CMPSD_XMM";
        break;
    default:
        break;
    }
    char **slot = &iclass_names[in->mnemonic];
    if (!*slot) {
        const char *m = ZydisMnemonicGetString(in->mnemonic);
        char *s = strdup(m ? m : "INVALID");
        if (!s)
            abort();
        for (char *p = s; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        *slot = s;
    }
    return *slot;
}

/* §1.3: the registers ilp and reg track. */
static bool tracked(ZydisRegister r)
{
    switch (ZydisRegisterGetClass(r)) {
    case ZYDIS_REGCLASS_GPR8:
    case ZYDIS_REGCLASS_GPR16:
    case ZYDIS_REGCLASS_GPR32:
    case ZYDIS_REGCLASS_GPR64:
    case ZYDIS_REGCLASS_X87:
    case ZYDIS_REGCLASS_MMX:
    case ZYDIS_REGCLASS_XMM:
    case ZYDIS_REGCLASS_YMM:
    case ZYDIS_REGCLASS_ZMM:
    case ZYDIS_REGCLASS_MASK:
        return true;
    default:
        /* Pin 3.x REG_is_fr also takes the x87 control group and MXCSR. */
        return r == ZYDIS_REGISTER_X87CONTROL || r == ZYDIS_REGISTER_X87STATUS ||
               r == ZYDIS_REGISTER_X87TAG || r == ZYDIS_REGISTER_MXCSR;
    }
}

static void add_reg(uint16_t *list, uint8_t *n, ZydisRegister r)
{
    if (r == ZYDIS_REGISTER_NONE || !tracked(r))
        return;
    for (unsigned i = 0; i < *n; i++)
        if (list[i] == (uint16_t)r)
            return;
    if (*n < MICA_MAX_REGS)
        list[(*n)++] = (uint16_t)r;
}

/* Trace register index of a general-purpose register, its width in bits. */
static int8_t trace_reg(ZydisRegister r, uint8_t *bits)
{
    if (r == ZYDIS_REGISTER_NONE)
        return -1;
    if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP) {
        *bits = r == ZYDIS_REGISTER_RIP ? 64 : 32;
        return -2;
    }
    ZydisRegisterClass c = ZydisRegisterGetClass(r);
    if (c != ZYDIS_REGCLASS_GPR16 && c != ZYDIS_REGCLASS_GPR32 && c != ZYDIS_REGCLASS_GPR64)
        return -1; /* a VSIB vector index: not computable from the trace, left out */
    *bits = (uint8_t)ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r);
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    return (int8_t)(big - ZYDIS_REGISTER_RAX);
}

static struct memop memop_of(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *o)
{
    struct memop m = { 0 };
    m.base = trace_reg(o->mem.base, &m.base_bits);
    m.index = trace_reg(o->mem.index, &m.index_bits);
    m.scale = o->mem.scale;
    m.disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
    m.seg = o->mem.segment == ZYDIS_REGISTER_FS ? 1 : o->mem.segment == ZYDIS_REGISTER_GS ? 2 : 0;
    m.size = o->size / 8;
    /* The stack store of PUSH/CALL: Zydis gives [rsp], the store goes below it. */
    if (o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && m.base == NB_TRACE_RSP &&
        (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
        (in->meta.category == ZYDIS_CATEGORY_PUSH || in->meta.category == ZYDIS_CATEGORY_CALL))
        m.kind = MEM_PUSH;
    return m;
}

/* Is r the base of a hidden memory operand (XED's BASE0/BASE1)? */
static bool hidden_base(const ZydisDecodedOperand *ops, unsigned n, ZydisRegister r)
{
    for (unsigned i = 0; i < n; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
            ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && ops[i].mem.base == r)
            return true;
    return false;
}

static int decode_static(const uint8_t *bytes, size_t n, uint64_t pc, bool nop_mem,
                         struct mica_static *s, char *err, size_t errlen)
{
    setup();
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (ZYAN_FAILED(ZydisDecoderDecodeFull(&zdec, bytes, n, &in, ops))) {
        int k = snprintf(err, errlen, "undecodable instruction at 0x%llx:",
                         (unsigned long long)pc);
        for (size_t i = 0; i < n && k > 0 && (size_t)k < errlen; i++)
            k += snprintf(err + k, errlen - (size_t)k, " %02x", bytes[i]);
        return -1;
    }
    memset(s, 0, sizeof(*s));
    struct mica_rec *p = &s->proto;
    s->len = in.length;
    s->category = (uint8_t)category_map[in.meta.category];
    s->iclass = iclass_of(&in);
    s->cond_br = in.meta.category == ZYDIS_CATEGORY_COND_BR;
    s->address_bits = in.address_width;
    bool string = in.meta.category == ZYDIS_CATEGORY_STRINGOP;
    bool nop = in.meta.category == ZYDIS_CATEGORY_NOP || in.meta.category == ZYDIS_CATEGORY_WIDENOP;
    s->cmps = string && in.mnemonic >= ZYDIS_MNEMONIC_CMPSB && in.mnemonic <= ZYDIS_MNEMONIC_CMPSW &&
              in.meta.category == ZYDIS_CATEGORY_STRINGOP;
    s->real_rep = string && (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                                              ZYDIS_ATTRIB_HAS_REPNE));
    s->count_bits = in.address_width == 32 ? 32 : 64;
    p->len = in.length;
    p->category = s->category;
    p->iclass = s->iclass;
    unsigned reg_ops = 0;
    for (unsigned i = 0; i < in.operand_count; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        bool rd = o->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
        bool wr = o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            if (!(o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
                  hidden_base(ops, in.operand_count, o->reg.value)))
                reg_ops++;
            if (rd)
                add_reg(p->regs_read, &p->n_regs_read, o->reg.value);
            if (wr)
                add_reg(p->regs_written, &p->n_regs_written, o->reg.value);
        } else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY) {
            /* Address registers are read (LEA's too); string ops also move them. */
            add_reg(p->regs_read, &p->n_regs_read, o->mem.base);
            add_reg(p->regs_read, &p->n_regs_read, o->mem.index);
            if (string)
                add_reg(p->regs_written, &p->n_regs_written, o->mem.base);
            if (o->mem.type != ZYDIS_MEMOP_TYPE_MEM)
                continue; /* LEA's address generation, MIB: no access */
            if (nop && !nop_mem)
                continue; /* -mica_nop_mem off: a NOP's operand is no read */
            if (rd && s->n_reads < 2)
                s->read[s->n_reads++] = memop_of(&in, o);
            if (wr && !s->has_write) {
                s->write = memop_of(&in, o);
                s->has_write = true;
            }
        }
    }
    p->n_reg_operands = (uint8_t)(reg_ops > 255 ? 255 : reg_ops);
    p->mem_read = s->n_reads > 0;
    p->has_read2 = s->n_reads > 1;
    p->mem_write = s->has_write;
    p->read_size = s->n_reads ? s->read[0].size : 0;
    p->write_size = s->has_write ? s->write.size : 0;
    return 0;
}

static uint64_t value_of(int8_t idx, uint8_t bits, const uint64_t *regs, uint64_t next_pc)
{
    uint64_t v = idx == -2 ? next_pc : regs[idx];
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static uint64_t ea_of(const struct mica_decoder *d, const struct mica_static *s,
                      const struct memop *m, const uint64_t *regs, uint64_t pc)
{
    uint64_t next_pc = pc + s->len;
    uint64_t ea = (uint64_t)m->disp;
    if (m->base != -1)
        ea += value_of(m->base, m->base_bits, regs, next_pc);
    if (m->index != -1)
        ea += value_of(m->index, m->index_bits, regs, next_pc) * m->scale;
    if (m->kind == MEM_PUSH)
        ea -= m->size;
    if (s->address_bits == 32)
        ea &= 0xffffffffull;
    if (m->seg == 1)
        ea += d->fs_base;
    else if (m->seg == 2)
        ea += d->gs_base;
    return ea;
}

void mica_decoder_init(struct mica_decoder *d, uint64_t fs_base, uint64_t gs_base)
{
    memset(d, 0, sizeof(*d));
    d->fs_base = fs_base;
    d->gs_base = gs_base;
    d->nop_mem = true;
}

/* A fresh slot in d->st (not in the pc map). */
static uint32_t new_static(struct mica_decoder *d)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 256;
        d->st = realloc(d->st, d->cap * sizeof(*d->st));
        if (!d->st)
            abort();
    }
    return (uint32_t)d->n++;
}

/* The static facts of the instruction at pc, decoded when new or changed; NULL with err. */
static struct mica_static *lookup(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                                  bool changed, char *err, size_t errlen)
{
    bool fresh;
    uint32_t *idx = mica_map_put(&d->by_pc, pc, &fresh);
    if (fresh)
        *idx = new_static(d);
    struct mica_static *s = &d->st[*idx];
    if (fresh || changed) {
        if (!bytes || n == 0) {
            snprintf(err, errlen, "no instruction bytes recorded for 0x%llx",
                     (unsigned long long)pc);
            s->len = 0; /* undecodable until bytes come */
            return NULL;
        }
        if (decode_static(bytes, n, pc, d->nop_mem, s, err, errlen) < 0) {
            s->len = 0;
            return NULL;
        }
    } else if (s->len == 0) {
        snprintf(err, errlen, "undecodable instruction at 0x%llx", (unsigned long long)pc);
        return NULL;
    }
    return s;
}

int mica_decode(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                bool changed, const uint64_t *regs, uint64_t next_rip, struct mica_rec *out,
                char *err, size_t errlen)
{
    struct mica_static *s = lookup(d, pc, bytes, n, changed, err, errlen);
    if (!s)
        return -1;
    *out = s->proto;
    out->pc = pc;
    out->read1_ea = s->n_reads ? ea_of(d, s, &s->read[0], regs, pc) : 0;
    out->read2_ea = s->n_reads > 1 ? ea_of(d, s, &s->read[1], regs, pc) : 0;
    out->write_ea = s->has_write ? ea_of(d, s, &s->write, regs, pc) : 0;
    out->taken = s->cond_br && next_rip != pc + s->len;
    out->counts_hpc = true;
    if (s->real_rep) {
        /* Each iteration traps with RIP still on the instruction: the first
         * one is the record whose predecessor was elsewhere (§1.2). */
        bool first = !d->have_prev || d->prev_pc != pc;
        uint64_t count = regs[NB_TRACE_RCX];
        if (s->count_bits == 32)
            count &= 0xffffffffull;
        out->counts_hpc = first && count > 0;
    }
    d->prev_pc = pc;
    d->have_prev = true;
    return 0;
}

/* The k-th (0-based) access with that store flag, or the first access of any kind; 0 if none. */
static uint64_t access_of(const struct mica_access *acc, size_t n_acc, bool store, unsigned k)
{
    for (size_t i = 0; i < n_acc; i++)
        if (acc[i].is_store == store && k-- == 0)
            return acc[i].addr;
    return n_acc ? acc[0].addr : 0;
}

int mica_decode_static_add(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                           uint32_t *handle, char *err, size_t errlen)
{
    uint32_t h = new_static(d);
    struct mica_static *s = &d->st[h];
    if (decode_static(bytes, n, pc, d->nop_mem, s, err, errlen) < 0) {
        s->len = 0;
        return -1;
    }
    *handle = h;
    return 0;
}

bool mica_decode_is_rep(const struct mica_decoder *d, uint32_t handle)
{
    return d->st[handle].real_rep;
}

void mica_decode_fill(struct mica_decoder *d, uint32_t handle, uint64_t pc,
                      const struct mica_access *acc, size_t n_acc, uint64_t next_rip,
                      struct mica_rec *out)
{
    const struct mica_static *s = &d->st[handle];
    *out = s->proto;
    out->pc = pc;
    out->read1_ea = out->read2_ea = out->write_ea = 0;
    if (n_acc == 0) {
        /* No access seen, no address known: not a memory instruction this time. */
        out->mem_read = out->has_read2 = out->mem_write = false;
        out->read_size = out->write_size = 0;
    } else {
        if (s->n_reads > 1) {
            /* CMPS: QEMU loads [RDI] first, then [RSI]; MICA's read1 is [RSI]. */
            out->read1_ea = access_of(acc, n_acc, false, s->cmps ? 1 : 0);
            out->read2_ea = access_of(acc, n_acc, false, s->cmps ? 0 : 1);
        } else if (s->n_reads) {
            out->read1_ea = access_of(acc, n_acc, false, 0);
        }
        if (s->has_write)
            out->write_ea = access_of(acc, n_acc, true, 0);
    }
    out->taken = s->cond_br && next_rip != pc + s->len;
    out->counts_hpc = true;
    if (s->real_rep) {
        /* No RCX here: a REP that made no access had count 0. */
        bool first = !d->have_prev || d->prev_pc != pc;
        out->counts_hpc = first && n_acc > 0;
    }
    d->prev_pc = pc;
    d->have_prev = true;
}

int mica_decode_accesses(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                         bool changed, const struct mica_access *acc, size_t n_acc,
                         uint64_t next_rip, struct mica_rec *out, char *err, size_t errlen)
{
    struct mica_static *s = lookup(d, pc, bytes, n, changed, err, errlen);
    if (!s)
        return -1;
    mica_decode_fill(d, (uint32_t)(s - d->st), pc, acc, n_acc, next_rip, out);
    return 0;
}

void mica_decoder_free(struct mica_decoder *d)
{
    mica_map_free(&d->by_pc);
    free(d->st);
    memset(d, 0, sizeof(*d));
}

const char *mica_decode_reg_name(unsigned id)
{
    const char *s = ZydisRegisterGetString((ZydisRegister)id);
    return s ? s : "?";
}
