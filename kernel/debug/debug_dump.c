/*
 * debug_dump.c — -debug's dump text (see debug_dump.h).
 */
#include "debug_dump.h"
#include "nb_text.h"

#define LINE_MAX 320

static const char *const GPR[16] = { "RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
                                     "R8",  "R9",  "R10", "R11", "R12", "R13", "R14", "R15" };

const char *debug_gpr_name(unsigned r)
{
    return r < 16 ? GPR[r] : "?";
}

/* The order a reader expects: RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8..R15. */
static const unsigned GPR_ORDER[16] = { 0, 3, 1, 2, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15 };

struct bit_name {
    unsigned bit;
    const char *name;
};

/* RFLAGS (SDM vol. 1 3.4.3). */
static const struct bit_name RFLAGS_BITS[] = {
    { 0, "CF" }, { 2, "PF" },  { 4, "AF" },  { 6, "ZF" },  { 7, "SF" },  { 8, "TF" },  { 9, "IF" },
    { 10, "DF" }, { 11, "OF" }, { 14, "NT" }, { 16, "RF" }, { 17, "VM" }, { 18, "AC" }, { 19, "VIF" },
    { 20, "VIP" }, { 21, "ID" }, { 0, NULL },
};
/* CR0, CR4 (SDM vol. 3A 2.5), IA32_EFER (vol. 3A 2.2.1, vol. 4 table 2-2), XCR0 (vol. 1 13.3). */
static const struct bit_name CR0_BITS[] = {
    { 0, "PE" }, { 1, "MP" }, { 2, "EM" }, { 3, "TS" }, { 4, "ET" }, { 5, "NE" }, { 16, "WP" },
    { 18, "AM" }, { 29, "NW" }, { 30, "CD" }, { 31, "PG" }, { 0, NULL },
};
static const struct bit_name CR4_BITS[] = {
    { 0, "VME" }, { 1, "PVI" }, { 2, "TSD" }, { 3, "DE" }, { 4, "PSE" }, { 5, "PAE" }, { 6, "MCE" },
    { 7, "PGE" }, { 8, "PCE" }, { 9, "OSFXSR" }, { 10, "OSXMMEXCPT" }, { 11, "UMIP" }, { 12, "LA57" },
    { 13, "VMXE" }, { 14, "SMXE" }, { 16, "FSGSBASE" }, { 17, "PCIDE" }, { 18, "OSXSAVE" }, { 20, "SMEP" },
    { 21, "SMAP" }, { 22, "PKE" }, { 23, "CET" }, { 24, "PKS" }, { 0, NULL },
};
static const struct bit_name EFER_BITS[] = {
    { 0, "SCE" }, { 8, "LME" }, { 10, "LMA" }, { 11, "NXE" }, { 12, "SVME" }, { 14, "FFXSR" }, { 15, "TCE" },
    { 0, NULL },
};
static const struct bit_name XCR0_BITS[] = {
    { 0, "x87" }, { 1, "SSE" }, { 2, "AVX" }, { 3, "BNDREGS" }, { 4, "BNDCSR" }, { 5, "opmask" },
    { 6, "ZMM_Hi256" }, { 7, "Hi16_ZMM" }, { 9, "PKRU" }, { 17, "TILECFG" }, { 18, "TILEDATA" }, { 0, NULL },
};
/* MXCSR (SDM vol. 1 10.2.3): flags, DAZ, masks; RC and FZ separately. */
static const struct bit_name MXCSR_BITS[] = {
    { 0, "IE" }, { 1, "DE" }, { 2, "ZE" }, { 3, "OE" }, { 4, "UE" }, { 5, "PE" }, { 6, "DAZ" },
    { 7, "IM" }, { 8, "DM" }, { 9, "ZM" }, { 10, "OM" }, { 11, "UM" }, { 12, "PM" }, { 15, "FZ" },
    { 0, NULL },
};
/* x87 FPU control and status words (SDM vol. 1 8.1.3, 8.1.5). */
static const struct bit_name FCW_BITS[] = {
    { 0, "IM" }, { 1, "DM" }, { 2, "ZM" }, { 3, "OM" }, { 4, "UM" }, { 5, "PM" }, { 0, NULL },
};
static const struct bit_name FSW_BITS[] = {
    { 0, "IE" }, { 1, "DE" }, { 2, "ZE" }, { 3, "OE" }, { 4, "UE" }, { 5, "PE" }, { 6, "SF" }, { 7, "ES" },
    { 8, "C0" }, { 9, "C1" }, { 10, "C2" }, { 14, "C3" }, { 15, "B" }, { 0, NULL },
};
static const char *const ROUNDING[4] = { "nearest", "down", "up", "toward zero" };
static const char *const PRECISION[4] = { "single", "reserved", "double", "extended" };

struct out {
    debug_line_fn fn;
    void *arg;
};

static void emit(const struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(const struct out *o, const char *fmt, ...)
{
    char line[LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    nb_vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    o->fn(o->arg, line);
}

/* " NAME NAME ..." for the set bits that have a name. */
static void bit_names(char *buf, size_t cap, uint64_t value, const struct bit_name *bits)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const struct bit_name *b = bits; b->name; b++)
        if ((value >> b->bit) & 1 && n < cap)
            n += nb_snprintf(buf + n, cap - n, " %s", b->name);
}

static uint64_t load(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* "0x" and `qwords` 64-bit words, most significant first, '_' between. */
static void hex_wide(char *buf, size_t cap, const uint8_t *const *parts, const unsigned *part_qwords, int n_parts)
{
    size_t n = nb_snprintf(buf, cap, "0x");
    for (int p = n_parts - 1; p >= 0; p--)
        for (unsigned q = part_qwords[p]; q-- > 0;)
            if (n < cap)
                n += nb_snprintf(buf + n, cap - n, "%016llx%s",
                                 (unsigned long long)(parts[p] ? load(parts[p] + 8 * q, 8) : 0),
                                 (p == 0 && q == 0) ? "" : "_");
}

static const uint8_t ZERO[64];

/* `name` padded with spaces to 6 characters (nb_snprintf has no '-' flag). */
static const char *pad6(const char *name, char buf[16])
{
    size_t n = nb_snprintf(buf, 16, "%s", name);
    while (n < 6)
        buf[n++] = ' ';
    buf[n] = '\0';
    return buf;
}

static void dump_where(const struct debug_capture *cap, const struct debug_dump_info *in, const struct out *o)
{
    emit(o, "stopped: counter group %lld, %s run, %s %lld, processor %u: after the last copy, before the "
            "second counter read",
         (long long)in->group, in->run ? "main" : "base", in->index < 0 ? "warm-up" : "measurement",
         (long long)in->index, in->cpu);
    uint64_t rip = cap->regs[DBG_RIP];
    emit(o, "RIP    0x%016llx  code+0x%llx (the second counter read starts here)", (unsigned long long)rip,
         (unsigned long long)(rip - in->code_start));
    char names[160];
    bit_names(names, sizeof(names), cap->regs[DBG_RFLAGS], RFLAGS_BITS);
    emit(o, "RFLAGS 0x%016llx %s IOPL=%u", (unsigned long long)cap->regs[DBG_RFLAGS], names,
         (unsigned)(cap->regs[DBG_RFLAGS] >> 12) & 3u);
}

static void dump_gprs(const struct debug_capture *cap, const struct debug_dump_info *in, const struct out *o)
{
    for (int i = 0; i < 16; i++) {
        unsigned r = GPR_ORDER[i];
        char pad[16];
        emit(o, "%s 0x%016llx", pad6(GPR[r], pad), (unsigned long long)cap->regs[r]);
    }
    if (in->no_mem) {
        for (size_t k = 0; k < in->n_reads && k < 6; k++)
            emit(o, "-no_mem: R%zu holds %s so far: minus the first reading (the second is added after this point)",
                 8 + k, in->reads[k].name);
    }
}

static void dump_system(const struct debug_capture *cap, const struct out *o)
{
    const uint64_t *r = cap->regs;
    emit(o, "CS 0x%04llx  SS 0x%04llx  DS 0x%04llx  ES 0x%04llx  FS 0x%04llx  GS 0x%04llx",
         (unsigned long long)r[DBG_CS], (unsigned long long)r[DBG_SS], (unsigned long long)r[DBG_DS],
         (unsigned long long)r[DBG_ES], (unsigned long long)r[DBG_FS], (unsigned long long)r[DBG_GS]);
    char names[200];
    bit_names(names, sizeof(names), r[DBG_CR0], CR0_BITS);
    emit(o, "CR0    0x%016llx %s", (unsigned long long)r[DBG_CR0], names);
    emit(o, "CR2    0x%016llx", (unsigned long long)r[DBG_CR2]);
    emit(o, "CR3    0x%016llx", (unsigned long long)r[DBG_CR3]);
    bit_names(names, sizeof(names), r[DBG_CR4], CR4_BITS);
    emit(o, "CR4    0x%016llx %s", (unsigned long long)r[DBG_CR4], names);
    emit(o, "CR8    0x%016llx", (unsigned long long)r[DBG_CR8]);
    bit_names(names, sizeof(names), r[DBG_EFER], EFER_BITS);
    emit(o, "EFER   0x%016llx %s", (unsigned long long)r[DBG_EFER], names);
    bit_names(names, sizeof(names), r[DBG_XCR0], XCR0_BITS);
    emit(o, "XCR0   0x%016llx %s", (unsigned long long)r[DBG_XCR0], r[DBG_XCR0] ? names : " (no XSAVE: FXSAVE64)");
    emit(o, "DR6    0x%016llx", (unsigned long long)r[DBG_DR6]);
    emit(o, "DR7    0x%016llx", (unsigned long long)r[DBG_DR7]);
}

/* XSAVE's header: XSTATE_BV at byte 512 (SDM vol. 1 13.4.2); a clear bit: the component is in its initial state. */
#define XSAVE_XSTATE_BV 512u
/* FXSAVE64 layout (SDM vol. 1 table 10-2). */
#define FX_FCW 0u
#define FX_FSW 2u
#define FX_FTW 4u
#define FX_FOP 6u
#define FX_MXCSR 24u
#define FX_ST0 32u
#define FX_XMM0 160u
#define FCW_INIT 0x037Fu

static void dump_x87_sse(const struct debug_capture *cap, const struct debug_dump_info *in, const struct out *o,
                         uint64_t bv)
{
    const uint8_t *x = cap->xsave;
    bool x87 = (bv & 1) != 0;
    unsigned mxcsr = (unsigned)load(x + FX_MXCSR, 4);
    char names[160];
    bit_names(names, sizeof(names), mxcsr, MXCSR_BITS);
    emit(o, "MXCSR  0x%08x %s RC=%s", mxcsr, names, ROUNDING[(mxcsr >> 13) & 3]);
    unsigned fcw = x87 ? (unsigned)load(x + FX_FCW, 2) : FCW_INIT;
    unsigned fsw = x87 ? (unsigned)load(x + FX_FSW, 2) : 0;
    unsigned ftw = x87 ? x[FX_FTW] : 0;
    bit_names(names, sizeof(names), fcw, FCW_BITS);
    emit(o, "FCW    0x%04x %s PC=%s RC=%s", fcw, names, PRECISION[(fcw >> 8) & 3], ROUNDING[(fcw >> 10) & 3]);
    bit_names(names, sizeof(names), fsw, FSW_BITS);
    emit(o, "FSW    0x%04x %s TOP=%u", fsw, names, (fsw >> 11) & 7u);
    emit(o, "FTW    0x%02x (abridged: bit i set when physical register i holds a value)", ftw);
    for (int i = 0; i < 8; i++) {
        const uint8_t *st = x87 ? x + FX_ST0 + 16 * i : ZERO;
        emit(o, "ST%d    0x%04llx_%016llx", i, (unsigned long long)load(st + 8, 2),
             (unsigned long long)load(st, 8));
    }
    (void)in;
}

static void dump_vectors(const struct debug_capture *cap, const struct debug_dump_info *in, const struct out *o,
                         uint64_t bv)
{
    const uint8_t *x = cap->xsave;
    uint64_t m = in->xsave_mask;
    bool avx = (m & 4) && in->off_ymm, avx512 = (m & 0xE0) == 0xE0 && in->off_zmm_hi256 && in->off_hi16_zmm;
    const char *kind = avx512 ? "ZMM" : avx ? "YMM" : "XMM";
    int n = avx512 ? 32 : 16;
    char hex[200];
    for (int i = 0; i < n; i++) {
        const uint8_t *parts[3] = { NULL, NULL, NULL };
        unsigned qwords[3] = { 2, 2, 4 };
        int n_parts = 1;
        if (i < 16) {
            parts[0] = (!m || (bv & 2)) ? x + FX_XMM0 + 16 * i : NULL;
            if (avx) {
                parts[1] = (bv & 4) ? x + in->off_ymm + 16 * i : NULL;
                n_parts = 2;
            }
            if (avx512) {
                parts[2] = (bv & 0x40) ? x + in->off_zmm_hi256 + 32 * i : NULL;
                n_parts = 3;
            }
        } else {
            /* ZMM16-31: all 64 bytes in Hi16_ZMM. */
            parts[0] = (bv & 0x80) ? x + in->off_hi16_zmm + 64 * (i - 16) : NULL;
            qwords[0] = 8;
        }
        hex_wide(hex, sizeof(hex), parts, qwords, n_parts);
        char name[16], pad[16];
        nb_snprintf(name, sizeof(name), "%s%d", kind, i);
        emit(o, "%s %s", pad6(name, pad), hex);
    }
    if (avx512 && in->off_opmask)
        for (int k = 0; k < 8; k++)
            emit(o, "K%d     0x%016llx", k,
                 (unsigned long long)((bv & 0x20) ? load(x + in->off_opmask + 8 * k, 8) : 0));
}

static const char *const AREA_REG[DEBUG_AREAS] = { "R14", "RDI", "RSI", "RBP", "RSP" };

static void dump_memory(const struct debug_capture *cap, const struct debug_dump_info *in, const struct out *o)
{
    for (int a = 0; a < DEBUG_AREAS; a++) {
        unsigned long long n = (unsigned long long)cap->differing[a];
        emit(o, "memory %s (initially 0x%llx): %llu byte%s differ%s from zero", AREA_REG[a],
             (unsigned long long)in->area_reg[a], n, n == 1 ? "" : "s", n == 1 ? "s" : "");
        for (size_t i = 0; i < cap->n_lines; i++) {
            const struct debug_line *l = &cap->lines[i];
            if (l->area != a)
                continue;
            char line[LINE_MAX];
            uint64_t mag = l->offset < 0 ? (uint64_t)0 - (uint64_t)l->offset : (uint64_t)l->offset;
            size_t len = nb_snprintf(line, sizeof(line), "  %s%c0x%llx:", AREA_REG[a], l->offset < 0 ? '-' : '+',
                                     (unsigned long long)mag);
            for (int b = 0; b < DEBUG_LINE_BYTES && len < sizeof(line); b++) {
                if ((l->mask >> b) & 1)
                    len += nb_snprintf(line + len, sizeof(line) - len, " %02x", l->bytes[b]);
                else
                    len += nb_snprintf(line + len, sizeof(line) - len, " ..");
            }
            o->fn(o->arg, line);
        }
    }
    if (cap->truncated)
        emit(o, "memory: more than %u lines of 16 bytes differ from zero; the ones after them are not shown",
             DEBUG_MAX_LINES);
}

void debug_dump(const struct debug_capture *cap, const struct debug_dump_info *info, debug_line_fn fn, void *arg)
{
    struct out o = { fn, arg };
    uint64_t bv = info->xsave_mask ? load(cap->xsave + XSAVE_XSTATE_BV, 8) : ~0ull;
    dump_where(cap, info, &o);
    dump_gprs(cap, info, &o);
    dump_system(cap, &o);
    dump_x87_sse(cap, info, &o, bv);
    dump_vectors(cap, info, &o, bv);
    dump_memory(cap, info, &o);
}
