/*
 * gdb_stub.c — gdb's remote protocol on the stopped benchmark (see gdb_stub.h).
 */
#include "gdb_stub.h"
#include "debug_code.h"
#include "nb_text.h"

/*
 * gdb's amd64 register numbering (the order of the target description
 * below): rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip eflags cs ss ds es fs
 * gs st0..st7 fctrl fstat ftag fiseg fioff foseg fooff fop xmm0..xmm15
 * mxcsr, then ymm0h..ymm15h with AVX.
 */
#define REG_RIP 16
#define REG_EFLAGS 17
#define REG_CS 18
#define REG_ST0 24
#define REG_FCTRL 32
#define REG_FOP 39
#define REG_XMM0 40
#define REG_MXCSR 56
#define REG_YMM0H 57
#define REGS_SSE 57
#define REGS_AVX 73

static const uint8_t GPR_SLOT[16] = { 0, 3, 1, 2, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t SEG_SLOT[6] = { DBG_CS, DBG_SS, DBG_DS, DBG_ES, DBG_FS, DBG_GS };

/* FXSAVE64 layout (SDM vol. 1 table 10-2) and the XSAVE header (13.4.2). */
#define FX_FCW 0u
#define FX_FSW 2u
#define FX_FTW 4u
#define FX_FOP 6u
#define FX_FIP 8u
#define FX_FDP 16u
#define FX_MXCSR 24u
#define FX_ST0 32u
#define FX_XMM0 160u
#define XSTATE_BV 512u
#define FCW_INIT 0x037Fu

static const char XML_HEAD[] =
    "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
    "<target version=\"1.0\"><architecture>i386:x86-64</architecture>"
    "<feature name=\"org.gnu.gdb.i386.core\">"
    "<flags id=\"i386_eflags\" size=\"4\">"
    "<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>"
    "<field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>"
    "<field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>"
    "<field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>"
    "<field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>"
    "<field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>"
    "<field name=\"AC\" start=\"18\" end=\"18\"/><field name=\"ID\" start=\"21\" end=\"21\"/></flags>"
    "<reg name=\"rax\" bitsize=\"64\" type=\"int64\"/><reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/><reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/><reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/><reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>"
    "<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/><reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/><reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/><reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/><reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>"
    "<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>"
    "<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/><reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/><reg name=\"es\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/><reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/></feature>"
    "<feature name=\"org.gnu.gdb.i386.sse\">"
    "<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/><vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
    "<vector id=\"v16i8\" type=\"int8\" count=\"16\"/><vector id=\"v8i16\" type=\"int16\" count=\"8\"/>"
    "<vector id=\"v4i32\" type=\"int32\" count=\"4\"/><vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
    "<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/><field name=\"v2_double\" type=\"v2d\"/>"
    "<field name=\"v16_int8\" type=\"v16i8\"/><field name=\"v8_int16\" type=\"v8i16\"/>"
    "<field name=\"v4_int32\" type=\"v4i32\"/><field name=\"v2_int64\" type=\"v2i64\"/>"
    "<field name=\"uint128\" type=\"uint128\"/></union>"
    "<reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/><reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\"/><reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\"/>"
    "<reg name=\"mxcsr\" bitsize=\"32\" type=\"int\" group=\"vector\"/></feature>";
static const char XML_AVX[] =
    "<feature name=\"org.gnu.gdb.i386.avx\">"
    "<reg name=\"ymm0h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm1h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm2h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm3h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm4h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm5h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm6h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm7h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm8h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm9h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm10h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm11h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm12h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm13h\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"ymm14h\" bitsize=\"128\" type=\"uint128\"/><reg name=\"ymm15h\" bitsize=\"128\" type=\"uint128\"/>"
    "</feature>";
static const char XML_TAIL[] = "</target>";

const char *gdb_stub_target_xml(bool avx, size_t *len)
{
    static char xml[sizeof(XML_HEAD) + sizeof(XML_AVX) + sizeof(XML_TAIL)];
    size_t n = nb_snprintf(xml, sizeof(xml), "%s%s%s", XML_HEAD, avx ? XML_AVX : "", XML_TAIL);
    *len = n;
    return xml;
}

static bool has_avx(const struct gdb_stub *s)
{
    return (s->xsave_mask & 4) && s->off_ymm;
}

static unsigned n_regs(const struct gdb_stub *s)
{
    return has_avx(s) ? REGS_AVX : REGS_SSE;
}

static uint64_t load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static void store(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* XSTATE_BV bit of an XSAVE component: set when the area holds it (always with FXSAVE). */
static bool in_use(const struct gdb_stub *s, unsigned component)
{
    return !s->xsave_mask || ((load(s->xsave + XSTATE_BV, 8) >> component) & 1);
}

/* Before writing a component in its initial state: its storage gets the initial values, its bit is set. */
static void make_in_use(struct gdb_stub *s, unsigned component)
{
    if (in_use(s, component))
        return;
    if (component == 0) {
        for (unsigned i = 0; i < FX_MXCSR; i++)
            s->xsave[i] = 0;
        store(s->xsave + FX_FCW, FCW_INIT, 2);
        for (unsigned i = FX_ST0; i < FX_XMM0; i++)
            s->xsave[i] = 0;
    } else if (component == 1) {
        for (unsigned i = 0; i < 256; i++)
            s->xsave[FX_XMM0 + i] = 0;
    } else if (component == 2) {
        for (unsigned i = 0; i < 256; i++)
            s->xsave[s->off_ymm + i] = 0;
    }
    store(s->xsave + XSTATE_BV, load(s->xsave + XSTATE_BV, 8) | 1ull << component, 8);
}

/* The full tag word from FXSAVE's abridged one: 11b empty, 00b valid (SDM vol. 1 10.5.1.1). */
static uint32_t full_tag(uint8_t abridged)
{
    uint32_t tag = 0;
    for (int i = 0; i < 8; i++)
        if (!((abridged >> i) & 1))
            tag |= 3u << (2 * i);
    return tag;
}

/* Register n into out (little-endian, as gdb wants it); its size, or 0 for no such register. */
static unsigned reg_get(const struct gdb_stub *s, unsigned n, uint8_t out[16])
{
    for (int i = 0; i < 16; i++)
        out[i] = 0;
    if (n < 16) {
        store(out, s->regs[GPR_SLOT[n]], 8);
        return 8;
    }
    if (n == REG_RIP) {
        store(out, s->regs[DBG_RIP], 8);
        return 8;
    }
    if (n == REG_EFLAGS) {
        store(out, s->regs[DBG_RFLAGS], 4);
        return 4;
    }
    if (n >= REG_CS && n < REG_ST0) {
        store(out, s->regs[SEG_SLOT[n - REG_CS]], 4);
        return 4;
    }
    bool x87 = in_use(s, 0);
    if (n >= REG_ST0 && n < REG_FCTRL) {
        if (x87)
            for (int i = 0; i < 10; i++)
                out[i] = s->xsave[FX_ST0 + 16 * (n - REG_ST0) + (unsigned)i];
        return 10;
    }
    if (n >= REG_FCTRL && n <= REG_FOP) {
        const uint8_t *x = s->xsave;
        uint32_t v = 0;
        switch (n - REG_FCTRL) {
        case 0: v = x87 ? (uint32_t)load(x + FX_FCW, 2) : FCW_INIT; break;
        case 1: v = x87 ? (uint32_t)load(x + FX_FSW, 2) : 0; break;
        case 2: v = full_tag(x87 ? x[FX_FTW] : 0); break;
        case 3: v = x87 ? (uint32_t)load(x + FX_FIP + 4, 4) : 0; break;
        case 4: v = x87 ? (uint32_t)load(x + FX_FIP, 4) : 0; break;
        case 5: v = x87 ? (uint32_t)load(x + FX_FDP + 4, 4) : 0; break;
        case 6: v = x87 ? (uint32_t)load(x + FX_FDP, 4) : 0; break;
        default: v = x87 ? (uint32_t)load(x + FX_FOP, 2) & 0x7FFu : 0; break;
        }
        store(out, v, 4);
        return 4;
    }
    if (n >= REG_XMM0 && n < REG_MXCSR) {
        if (in_use(s, 1))
            for (int i = 0; i < 16; i++)
                out[i] = s->xsave[FX_XMM0 + 16 * (n - REG_XMM0) + (unsigned)i];
        return 16;
    }
    if (n == REG_MXCSR) {
        store(out, load(s->xsave + FX_MXCSR, 4), 4);
        return 4;
    }
    if (has_avx(s) && n >= REG_YMM0H && n < REGS_AVX) {
        if (in_use(s, 2))
            for (int i = 0; i < 16; i++)
                out[i] = s->xsave[s->off_ymm + 16 * (n - REG_YMM0H) + (unsigned)i];
        return 16;
    }
    return 0;
}

/* Writes register n from in (its size as reg_get says); false for no such register. */
static bool reg_set(struct gdb_stub *s, unsigned n, const uint8_t *in)
{
    uint8_t tmp[16];
    unsigned size = reg_get(s, n, tmp);
    if (!size)
        return false;
    if (n < 16)
        s->regs[GPR_SLOT[n]] = load(in, 8);
    else if (n == REG_RIP)
        s->regs[DBG_RIP] = load(in, 8);
    else if (n == REG_EFLAGS)
        s->regs[DBG_RFLAGS] = load(in, 4);
    else if (n < REG_ST0)
        ; /* selectors stay: IRET needs the code's CS and SS */
    else if (n < REG_FCTRL) {
        make_in_use(s, 0);
        for (unsigned i = 0; i < 10; i++)
            s->xsave[FX_ST0 + 16 * (n - REG_ST0) + i] = in[i];
    } else if (n <= REG_FOP) {
        make_in_use(s, 0);
        uint32_t v = (uint32_t)load(in, 4);
        switch (n - REG_FCTRL) {
        case 0: store(s->xsave + FX_FCW, v, 2); break;
        case 1: store(s->xsave + FX_FSW, v, 2); break;
        case 2: {
            uint8_t abridged = 0;
            for (int i = 0; i < 8; i++)
                if (((v >> (2 * i)) & 3) != 3)
                    abridged |= (uint8_t)(1u << i);
            s->xsave[FX_FTW] = abridged;
            break;
        }
        case 3: store(s->xsave + FX_FIP + 4, v, 4); break;
        case 4: store(s->xsave + FX_FIP, v, 4); break;
        case 5: store(s->xsave + FX_FDP + 4, v, 4); break;
        case 6: store(s->xsave + FX_FDP, v, 4); break;
        default: store(s->xsave + FX_FOP, v & 0x7FFu, 2); break;
        }
    } else if (n < REG_MXCSR) {
        make_in_use(s, 1);
        for (unsigned i = 0; i < 16; i++)
            s->xsave[FX_XMM0 + 16 * (n - REG_XMM0) + i] = in[i];
    } else if (n == REG_MXCSR) {
        store(s->xsave + FX_MXCSR, load(in, 4) & 0xFFFFu, 4); /* reserved bits must stay 0 (#GP) */
    } else {
        make_in_use(s, 2);
        for (unsigned i = 0; i < 16; i++)
            s->xsave[s->off_ymm + 16 * (n - REG_YMM0H) + i] = in[i];
    }
    return true;
}

static bool readable(const struct gdb_stub *s, uint64_t addr, uint64_t len)
{
    for (size_t i = 0; i < s->n_ranges; i++)
        if (addr >= s->ranges[i].start && len <= s->ranges[i].end - s->ranges[i].start &&
            addr - s->ranges[i].start <= s->ranges[i].end - s->ranges[i].start - len)
            return true;
    return false;
}

bool gdb_stub_has_breakpoint(const struct gdb_stub *s, uint64_t addr)
{
    for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
        if (s->bp[i].addr && s->bp[i].addr == addr)
            return true;
    return false;
}

void gdb_stub_remove_breakpoints(struct gdb_stub *s)
{
    for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
        if (s->bp[i].addr) {
            *(volatile uint8_t *)(uintptr_t)s->bp[i].addr = s->bp[i].saved;
            s->bp[i].addr = 0;
        }
}

static size_t reply_text(struct gdb_stub *s, const char *text)
{
    return nb_snprintf(s->reply, sizeof(s->reply), "%s", text);
}

/* "addr,len" at p; false when malformed. */
static bool addr_len(const char **p, const char *end, uint64_t *addr, uint64_t *len)
{
    if (!gdb_parse_hex(p, end, addr) || *p >= end || **p != ',')
        return false;
    (*p)++;
    return gdb_parse_hex(p, end, len);
}

static bool starts(const char *pkt, size_t len, const char *prefix)
{
    size_t n = nb_strlen(prefix);
    return len >= n && nb_strncmp(pkt, prefix, n) == 0;
}

#define TF_BIT (1ull << 8)

static size_t cmd_breakpoint(struct gdb_stub *s, const char *pkt, size_t len)
{
    const char *p = pkt + 1, *end = pkt + len;
    uint64_t type, addr, kind;
    if (!gdb_parse_hex(&p, end, &type) || p >= end || *p++ != ',' || !addr_len(&p, end, &addr, &kind))
        return reply_text(s, "E01");
    if (type != 0)
        return 0; /* only software breakpoints: empty reply */
    if (!readable(s, addr, 1))
        return reply_text(s, "E14");
    if (pkt[0] == 'Z') {
        if (gdb_stub_has_breakpoint(s, addr))
            return reply_text(s, "OK");
        for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
            if (!s->bp[i].addr) {
                volatile uint8_t *b = (volatile uint8_t *)(uintptr_t)addr;
                s->bp[i].addr = addr;
                s->bp[i].saved = *b;
                *b = DEBUG_INT3;
                return reply_text(s, "OK");
            }
        return reply_text(s, "E12");
    }
    for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
        if (s->bp[i].addr == addr) {
            *(volatile uint8_t *)(uintptr_t)addr = s->bp[i].saved;
            s->bp[i].addr = 0;
        }
    return reply_text(s, "OK");
}

static size_t cmd_xfer(struct gdb_stub *s, const char *pkt, size_t len)
{
    static const char prefix[] = "qXfer:features:read:target.xml:";
    if (!starts(pkt, len, prefix))
        return reply_text(s, "E00");
    const char *p = pkt + sizeof(prefix) - 1, *end = pkt + len;
    uint64_t off, want;
    if (!addr_len(&p, end, &off, &want))
        return reply_text(s, "E01");
    size_t xml_len;
    const char *xml = gdb_stub_target_xml(has_avx(s), &xml_len);
    if (off >= xml_len)
        return reply_text(s, "l");
    size_t n = xml_len - (size_t)off;
    if (want < n)
        n = (size_t)want;
    if (n > sizeof(s->reply) - 2)
        n = sizeof(s->reply) - 2;
    s->reply[0] = off + n < xml_len ? 'm' : 'l';
    nb_memcpy(s->reply + 1, xml + off, n);
    return n + 1;
}

enum gdb_action gdb_stub_command(struct gdb_stub *s, const char *pkt, size_t len, size_t *reply_len)
{
    const char *end = pkt + len;
    const char *p = pkt + 1;
    uint8_t buf[16];
    *reply_len = 0;
    if (len == 0)
        return GDB_STAY;
    switch (pkt[0]) {
    case '?':
        *reply_len = reply_text(s, "S05");
        return GDB_STAY;
    case 'g': {
        size_t n = 0;
        for (unsigned r = 0; r < n_regs(s); r++) {
            unsigned size = reg_get(s, r, buf);
            gdb_hex_bytes(s->reply + n, buf, size);
            n += 2 * size;
        }
        *reply_len = n;
        return GDB_STAY;
    }
    case 'G': {
        size_t at = 1;
        for (unsigned r = 0; r < n_regs(s); r++) {
            unsigned size = reg_get(s, r, buf);
            if (at + 2 * size > len || !gdb_unhex_bytes(buf, pkt + at, size)) {
                *reply_len = reply_text(s, "E01");
                return GDB_STAY;
            }
            at += 2 * size;
            reg_set(s, r, buf);
        }
        *reply_len = reply_text(s, "OK");
        return GDB_STAY;
    }
    case 'p': {
        uint64_t n;
        unsigned size;
        if (!gdb_parse_hex(&p, end, &n) || n >= n_regs(s) || !(size = reg_get(s, (unsigned)n, buf))) {
            *reply_len = reply_text(s, "E01");
            return GDB_STAY;
        }
        gdb_hex_bytes(s->reply, buf, size);
        *reply_len = 2 * size;
        return GDB_STAY;
    }
    case 'P': {
        uint64_t n;
        unsigned size;
        if (!gdb_parse_hex(&p, end, &n) || p >= end || *p++ != '=' || n >= n_regs(s) ||
            !(size = reg_get(s, (unsigned)n, buf)) || (size_t)(end - p) < 2 * size ||
            !gdb_unhex_bytes(buf, p, size)) {
            *reply_len = reply_text(s, "E01");
            return GDB_STAY;
        }
        reg_set(s, (unsigned)n, buf);
        *reply_len = reply_text(s, "OK");
        return GDB_STAY;
    }
    case 'm': {
        uint64_t addr, n;
        if (!addr_len(&p, end, &addr, &n) || n > (sizeof(s->reply) - 8) / 2) {
            *reply_len = reply_text(s, "E01");
            return GDB_STAY;
        }
        if (!readable(s, addr, n)) {
            *reply_len = reply_text(s, "E14");
            return GDB_STAY;
        }
        for (uint64_t i = 0; i < n; i++) {
            uint8_t b = *(volatile const uint8_t *)(uintptr_t)(addr + i);
            gdb_hex_bytes(s->reply + 2 * i, &b, 1);
        }
        *reply_len = (size_t)(2 * n);
        return GDB_STAY;
    }
    case 'M': {
        uint64_t addr, n;
        if (!addr_len(&p, end, &addr, &n) || p >= end || *p++ != ':' || (uint64_t)(end - p) < 2 * n) {
            *reply_len = reply_text(s, "E01");
            return GDB_STAY;
        }
        if (!readable(s, addr, n)) {
            *reply_len = reply_text(s, "E14");
            return GDB_STAY;
        }
        for (uint64_t i = 0; i < n; i++) {
            uint8_t b;
            if (!gdb_unhex_bytes(&b, p + 2 * i, 1)) {
                *reply_len = reply_text(s, "E01");
                return GDB_STAY;
            }
            *(volatile uint8_t *)(uintptr_t)(addr + i) = b;
        }
        *reply_len = reply_text(s, "OK");
        return GDB_STAY;
    }
    case 's':
    case 'c': {
        uint64_t addr;
        if (p < end && gdb_parse_hex(&p, end, &addr))
            s->regs[DBG_RIP] = addr;
        if (pkt[0] == 's')
            s->regs[DBG_RFLAGS] |= TF_BIT;
        else
            s->regs[DBG_RFLAGS] &= ~TF_BIT;
        return pkt[0] == 's' ? GDB_STEP : GDB_CONTINUE;
    }
    case 'Z':
    case 'z':
        *reply_len = cmd_breakpoint(s, pkt, len);
        return GDB_STAY;
    case 'D':
        *reply_len = reply_text(s, "OK");
        return GDB_DETACH;
    case 'k':
        return GDB_DETACH;
    case 'H':
        *reply_len = reply_text(s, "OK");
        return GDB_STAY;
    case 'q':
        if (starts(pkt, len, "qSupported"))
            *reply_len = reply_text(s, "PacketSize=1000;qXfer:features:read+");
        else if (starts(pkt, len, "qAttached"))
            *reply_len = reply_text(s, "1");
        else if (starts(pkt, len, "qOffsets"))
            *reply_len = nb_snprintf(s->reply, sizeof(s->reply), "Text=%llx;Data=%llx;Bss=%llx",
                                     (unsigned long long)s->code_start, (unsigned long long)s->code_start,
                                     (unsigned long long)s->code_start);
        else if (starts(pkt, len, "qXfer:"))
            *reply_len = cmd_xfer(s, pkt, len);
        return GDB_STAY;
    default:
        return GDB_STAY; /* the empty reply: not supported */
    }
}

/* Sends a packet and keeps it for a resend after '-'. */
static size_t frame_len;

static void send_bytes(struct gdb_stub *s, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        debug_uart_put(&s->uart, (uint8_t)b[i]);
}

static void send_packet(struct gdb_stub *s, const char *payload, size_t len)
{
    frame_len = gdb_frame(payload, len, s->frame, sizeof(s->frame));
    send_bytes(s, s->frame, frame_len);
}

void gdb_stub_exited(struct gdb_stub *s)
{
    if (s->waiting && !s->detached) {
        send_packet(s, "W00", 3);
        s->waiting = false;
    }
}

enum gdb_action gdb_stub_session(struct gdb_stub *s, uint64_t (*read_tsc)(void *ctx), void *tsc_ctx,
                                 uint64_t wait_ticks, bool *came)
{
    uint8_t c;
    *came = s->attached;
    if (s->detached)
        return GDB_DETACH;
    if (!s->attached) {
        uint64_t t0 = read_tsc(tsc_ctx);
        while (!debug_uart_poll(&s->uart, &c))
            if (read_tsc(tsc_ctx) - t0 >= wait_ticks)
                return GDB_DETACH;
        s->attached = *came = true;
        gdb_rx_init(&s->rx);
        gdb_rx_byte(&s->rx, c);
    }
    if (s->waiting) {
        send_packet(s, "S05", 3);
        s->waiting = false;
    }
    for (;;) {
        if (!debug_uart_poll(&s->uart, &c))
            continue;
        switch (gdb_rx_byte(&s->rx, c)) {
        case GDB_RX_PACKET: {
            debug_uart_put(&s->uart, '+');
            size_t n;
            enum gdb_action a = gdb_stub_command(s, s->rx.buf, s->rx.len, &n);
            if (a == GDB_CONTINUE || a == GDB_STEP) {
                s->waiting = true;
                return a;
            }
            if (!(a == GDB_DETACH && s->rx.buf[0] == 'k'))
                send_packet(s, s->reply, n);
            if (a == GDB_DETACH) {
                gdb_stub_remove_breakpoints(s);
                s->detached = true;
                return a;
            }
            break;
        }
        case GDB_RX_BAD_CHECKSUM:
        case GDB_RX_OVERFLOW:
            debug_uart_put(&s->uart, '-');
            break;
        case GDB_RX_NACK:
            send_bytes(s, s->frame, frame_len);
            break;
        case GDB_RX_INTERRUPT:
            send_packet(s, "S05", 3);
            break;
        default:
            break;
        }
    }
}
