/*
 * test_debug.c — -debug on the host: the options, the harness's arming of
 * one execution (bench_batch.c with a scripted run), the capture of the
 * memory areas, the dump's text, gdb's remote-protocol framing and the
 * stub's commands on a made-up stopped state.
 */
#include "bench_batch.h"
#include "bench_options.h"
#include "debug_dump.h"
#include "debug_stop.h"
#include "gdb_stub.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARSE(o, err, ...)                                                                   \
    ({                                                                                       \
        char *argv_[] = { __VA_ARGS__ };                                                     \
        bench_options_parse((o), (int)NB_ARRAY_SIZE(argv_), argv_, SCOPE_TARGET, (err));     \
    })

NB_TEST(debug_options)
{
    struct bench_options o;
    struct option_error e;
    bench_options_init(&o);
    CHECK(!o.debug);
    CHECK_EQ_INT(o.debug_group, 1);
    CHECK_EQ_INT(o.debug_run, 1);
    CHECK_EQ_INT(o.debug_index, 0);
    CHECK_EQ_INT(o.debug_port, 0x2F8);
    CHECK_EQ_INT(o.debug_wait, 60);
    REQUIRE(PARSE(&o, &e, "-debug_at", "2:base:-3") == NB_OK);
    CHECK(o.debug);
    CHECK_EQ_INT(o.debug_group, 2);
    CHECK_EQ_INT(o.debug_run, 0);
    CHECK_EQ_INT(o.debug_index, -3);
    REQUIRE(PARSE(&o, &e, "-debug_port", "com1", "-debug_gdb") == NB_OK);
    CHECK_EQ_INT(o.debug_port, 0x3F8);
    CHECK(o.debug_gdb);
    REQUIRE(PARSE(&o, &e, "-debug_port", "0x2e8") == NB_OK);
    CHECK_EQ_INT(o.debug_port, 0x2E8);
    static const char *const bad[] = { "1:main", "0:main:0", "1:mainx:0", "1:main:", ":main:0", "1:main:0:1" };
    for (size_t i = 0; i < NB_ARRAY_SIZE(bad); i++) {
        bench_options_init(&o);
        CHECK_EQ_INT(PARSE(&o, &e, "-debug_at", (char *)bad[i]), NB_EINVAL);
        char want[200];
        snprintf(want, sizeof(want),
                 "option -debug_at: '%s' is not GROUP:RUN:INDEX (GROUP 1.., RUN base or main, INDEX a "
                 "measurement: 0 the first, negative a warm-up), e.g. 1:main:0", bad[i]);
        CHECK_EQ_STR(e.message, want);
    }
    CHECK_EQ_INT(PARSE(&o, &e, "-debug_port", "COM5"), NB_EINVAL);
    CHECK_EQ_STR(e.message, "option -debug_port: 'COM5' is not COM1..COM4 or an I/O port (e.g. 0x2f8)");
}

/* A scripted run that records the breakpoint slot's byte at every execution. */
static struct codegen_data batch_data;
static uint8_t slot_byte = DEBUG_SLOT_NOP;
static uint8_t seen[16];
static int calls;

static void slot_run(void)
{
    seen[calls] = slot_byte;
    batch_data.m1[0] = 0;
    batch_data.m2[0] = (uint64_t)(100 + calls);
    calls++;
}

NB_TEST(debug_batch_arms_one_execution_and_repeats_it)
{
    int64_t v[3];
    int64_t *values[1] = { v };
    memset(&batch_data, 0, sizeof(batch_data));
    memset(seen, 0, sizeof(seen));
    calls = 0;
    /* Two warm-ups (-2, -1), three measurements; measurement 1 stops. */
    struct run_batch b = { slot_run, &batch_data, 1, 0, 2, 3, values, false, 0, false, NULL, 0, NULL, NULL,
                           &slot_byte, 1, NULL };
    run_batch_execute(&b);
    CHECK_EQ_INT(calls, 6);
    static const uint8_t want[6] = { 0x90, 0x90, 0x90, 0xCC, 0x90, 0x90 };
    CHECK_EQ_BYTES(seen, want, 6);
    CHECK_EQ_INT(slot_byte, DEBUG_SLOT_NOP);
    /* The stopped execution (call 3) is not kept: measurement 1 is call 4's. */
    CHECK_EQ_INT(v[0], 102);
    CHECK_EQ_INT(v[1], 104);
    CHECK_EQ_INT(v[2], 105);
}

NB_TEST(debug_capture_areas_keeps_nonzero_lines)
{
    uint8_t *area = calloc(1, 4096);
    REQUIRE(area);
    struct debug_session s;
    memset(&s, 0, sizeof(s));
    s.area[0] = area;
    s.area_size[0] = 4096;
    s.area_reg[0] = (uint64_t)(uintptr_t)(area + 2048);
    area[2048] = 0x89;
    area[2048 + 7] = 0x11;
    area[2048 - 16 + 15] = 0xFF;
    static struct debug_capture cap;
    debug_capture_areas(&cap, &s);
    CHECK_EQ_INT(cap.n_lines, 2);
    CHECK_EQ_INT(cap.differing[0], 3);
    CHECK_EQ_INT(cap.lines[0].offset, -16);
    CHECK_EQ_INT(cap.lines[0].mask, 0x8000);
    CHECK_EQ_INT(cap.lines[1].offset, 0);
    CHECK_EQ_INT(cap.lines[1].mask, 0x0081);
    CHECK_EQ_INT(cap.lines[1].bytes[7], 0x11);
    free(area);
}

struct lines {
    char text[8192];
    size_t len;
};

static void collect(void *arg, const char *line)
{
    struct lines *l = arg;
    l->len += (size_t)snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", line);
}

/* The line of the dump that starts with `prefix`, or "". */
static const char *line_of(const struct lines *l, const char *prefix, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *p = l->text; *p;) {
        const char *end = strchr(p, '\n');
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            snprintf(out, cap, "%.*s", (int)(end - p), p);
            break;
        }
        p = end + 1;
    }
    return out;
}

NB_TEST(debug_dump_text)
{
    static struct debug_capture cap;
    memset(&cap, 0, sizeof(cap));
    cap.regs[0] = 0x1122334455667788ull; /* RAX */
    cap.regs[3] = 0x1122334455667789ull; /* RBX */
    cap.regs[DBG_RIP] = 0x1000 + 0x30d;
    cap.regs[DBG_RFLAGS] = 0x2d7; /* CF PF AF ZF SF IF OF */
    cap.regs[DBG_CR0] = 0x80010033;
    cap.regs[DBG_EFER] = 0xd00;
    cap.regs[DBG_XCR0] = 7;
    /* XSAVE area: stale bytes everywhere, XSTATE_BV = SSE only: x87 and AVX are in their initial state. */
    memset(cap.xsave, 0x5A, 1024);
    memset(cap.xsave + 512, 0, 64);
    cap.xsave[512] = 0x02;
    cap.xsave[24] = 0x80; /* MXCSR 0x7f80: RC toward zero... set below */
    cap.xsave[25] = 0x7f;
    cap.xsave[26] = cap.xsave[27] = 0;
    cap.n_lines = 1;
    cap.differing[0] = 2;
    cap.lines[0] = (struct debug_line){ 0, 0x0101, -16, { 0xab, 0, 0, 0, 0, 0, 0, 0, 0xcd } };
    struct debug_dump_info in = { .group = 1, .run = 1, .index = 0, .cpu = 2, .code_start = 0x1000,
                                  .area_reg = { 0x200000, 0x300000, 0x400000, 0x500000, 0x600000 },
                                  .xsave_mask = 7, .off_ymm = 576 };
    static struct lines l;
    memset(&l, 0, sizeof(l));
    debug_dump(&cap, &in, collect, &l);
    char line[400];
    CHECK_EQ_STR(line_of(&l, "stopped:", line, sizeof(line)),
                 "stopped: counter group 1, main run, measurement 0, processor 2: after the last copy, before the "
                 "second counter read");
    CHECK_EQ_STR(line_of(&l, "RIP", line, sizeof(line)),
                 "RIP    0x000000000000130d  code+0x30d (the second counter read starts here)");
    CHECK_EQ_STR(line_of(&l, "RFLAGS", line, sizeof(line)), "RFLAGS 0x00000000000002d7  CF PF AF ZF SF IF IOPL=0");
    CHECK_EQ_STR(line_of(&l, "RAX", line, sizeof(line)), "RAX    0x1122334455667788");
    CHECK_EQ_STR(line_of(&l, "RBX", line, sizeof(line)), "RBX    0x1122334455667789");
    CHECK_EQ_STR(line_of(&l, "CR0", line, sizeof(line)), "CR0    0x0000000080010033  PE MP ET NE WP PG");
    CHECK_EQ_STR(line_of(&l, "EFER", line, sizeof(line)), "EFER   0x0000000000000d00  LME LMA NXE");
    CHECK_EQ_STR(line_of(&l, "XCR0", line, sizeof(line)), "XCR0   0x0000000000000007  x87 SSE AVX");
    CHECK_EQ_STR(line_of(&l, "MXCSR", line, sizeof(line)),
                 "MXCSR  0x00007f80  IM DM ZM OM UM PM RC=toward zero");
    /* x87 in its initial state: FCW 0x037F, empty registers, whatever the area holds. */
    CHECK_EQ_STR(line_of(&l, "FCW", line, sizeof(line)), "FCW    0x037f  IM DM ZM OM UM PM PC=extended RC=nearest");
    CHECK_EQ_STR(line_of(&l, "ST3", line, sizeof(line)), "ST3    0x0000_0000000000000000");
    /* SSE in use (the stale 0x5A bytes are its values), the AVX halves initial: zero. */
    CHECK_EQ_STR(line_of(&l, "YMM15", line, sizeof(line)),
                 "YMM15  0x0000000000000000_0000000000000000_5a5a5a5a5a5a5a5a_5a5a5a5a5a5a5a5a");
    CHECK_EQ_STR(line_of(&l, "memory R14", line, sizeof(line)),
                 "memory R14 (initially 0x200000): 2 bytes differ from zero");
    CHECK_EQ_STR(line_of(&l, "  R14", line, sizeof(line)),
                 "  R14-0x10: ab .. .. .. .. .. .. .. cd .. .. .. .. .. .. ..");
    CHECK_EQ_STR(line_of(&l, "memory RDI", line, sizeof(line)),
                 "memory RDI (initially 0x300000): 0 bytes differ from zero");
}

/* gdb's framing: checksums, escapes, bad packets. */
static enum gdb_rx_event feed(struct gdb_rx *rx, const char *bytes, size_t n)
{
    enum gdb_rx_event ev = GDB_RX_NONE, last = GDB_RX_NONE;
    for (size_t i = 0; i < n; i++)
        if ((ev = gdb_rx_byte(rx, (uint8_t)bytes[i])) != GDB_RX_NONE)
            last = ev;
    return last;
}

NB_TEST(gdb_proto_framing)
{
    static struct gdb_rx rx;
    gdb_rx_init(&rx);
    CHECK_EQ_INT(feed(&rx, "$g#67", 5), GDB_RX_PACKET);
    CHECK_EQ_STR(rx.buf, "g");
    CHECK_EQ_INT(feed(&rx, "$g#68", 5), GDB_RX_BAD_CHECKSUM);
    CHECK_EQ_INT(feed(&rx, "$g#6x", 5), GDB_RX_BAD_CHECKSUM);
    CHECK_EQ_INT(feed(&rx, "+", 1), GDB_RX_ACK);
    CHECK_EQ_INT(feed(&rx, "-", 1), GDB_RX_NACK);
    CHECK_EQ_INT(feed(&rx, "\x03", 1), GDB_RX_INTERRUPT);
    /* '}' escapes: "}]" is ']' ^ 0x20 = '}'; the checksum covers the bytes as sent. */
    char pkt[32];
    unsigned sum = ('M' + '}' + ']') & 0xFF;
    snprintf(pkt, sizeof(pkt), "$M}]#%02x", sum);
    CHECK_EQ_INT(feed(&rx, pkt, strlen(pkt)), GDB_RX_PACKET);
    CHECK_EQ_STR(rx.buf, "M}");
    /* A '$' inside a packet starts a new one. */
    CHECK_EQ_INT(feed(&rx, "$xx$?#3f", 8), GDB_RX_PACKET);
    CHECK_EQ_STR(rx.buf, "?");
    /* Too long: dropped, and the buffer never overflows. */
    static char big[GDB_PACKET_MAX + 100];
    big[0] = '$';
    memset(big + 1, 'a', GDB_PACKET_MAX + 10);
    unsigned s2 = 0;
    for (int i = 0; i < GDB_PACKET_MAX + 10; i++)
        s2 += 'a';
    snprintf(big + 1 + GDB_PACKET_MAX + 10, 8, "#%02x", s2 & 0xFF);
    CHECK_EQ_INT(feed(&rx, big, strlen(big)), GDB_RX_OVERFLOW);
    CHECK_EQ_INT(rx.len, GDB_PACKET_MAX);
    /* Framing escapes '#', '$', '}' and '*' and round-trips. */
    char out[64];
    size_t n = gdb_frame("a#b$c}d*", 8, out, sizeof(out));
    CHECK_EQ_INT(n, 1 + 12 + 3);
    CHECK_EQ_INT(feed(&rx, out, n), GDB_RX_PACKET);
    CHECK_EQ_STR(rx.buf, "a#b$c}d*");
    CHECK_EQ_INT(gdb_frame("abc", 3, out, 5), 0);
}

static uint64_t stub_regs[DBG_SLOTS];
static uint8_t stub_xsave[4096] __attribute__((aligned(64)));
static uint8_t stub_code[64];

static void stub_init(struct gdb_stub *s)
{
    memset(s, 0, sizeof(*s));
    memset(stub_regs, 0, sizeof(stub_regs));
    memset(stub_xsave, 0x77, sizeof(stub_xsave));
    memset(stub_xsave + 512, 0, 64); /* XSTATE_BV 0: every component in its initial state */
    memset(stub_code, 0x90, sizeof(stub_code));
    s->regs = stub_regs;
    s->xsave = stub_xsave;
    s->xsave_mask = 7;
    s->off_ymm = 576;
    s->code_start = 0x1d5c9000;
    s->ranges[0] = (struct gdb_range){ (uint64_t)(uintptr_t)stub_code, (uint64_t)(uintptr_t)stub_code + 64 };
    s->n_ranges = 1;
}

static const char *command(struct gdb_stub *s, const char *pkt, enum gdb_action *action)
{
    size_t n;
    enum gdb_action a = gdb_stub_command(s, pkt, strlen(pkt), &n);
    if (action)
        *action = a;
    s->reply[n] = '\0';
    return s->reply;
}

NB_TEST(gdb_stub_commands)
{
    static struct gdb_stub s;
    stub_init(&s);
    stub_regs[0] = 0x1122334455667788ull; /* RAX */
    stub_regs[3] = 1;                     /* RBX */
    stub_regs[DBG_RIP] = 0x1d5c930d;
    stub_regs[DBG_RFLAGS] = 0x202;
    enum gdb_action a;
    CHECK_EQ_STR(command(&s, "?", &a), "S05");
    CHECK_EQ_STR(command(&s, "qSupported:multiprocess+;xmlRegisters=i386", NULL),
                 "PacketSize=1000;qXfer:features:read+");
    CHECK_EQ_STR(command(&s, "qAttached", NULL), "1");
    CHECK_EQ_STR(command(&s, "qOffsets", NULL), "Text=1d5c9000;Data=1d5c9000;Bss=1d5c9000");
    CHECK_EQ_STR(command(&s, "Hg0", NULL), "OK");
    CHECK_EQ_STR(command(&s, "vMustReplyEmpty", NULL), "");
    CHECK_EQ_STR(command(&s, "qTStatus", NULL), "");
    /* g: 16 GPRs, rip, eflags, 6 selectors, 8 ST, 8 x87 words, 16 XMM, MXCSR, 16 YMM halves. */
    const char *g = command(&s, "g", NULL);
    CHECK_EQ_INT(strlen(g), 2 * (16 * 8 + 8 + 4 + 6 * 4 + 8 * 10 + 8 * 4 + 16 * 16 + 4 + 16 * 16));
    CHECK(strncmp(g, "88776655443322110100000000000000", 32) == 0); /* rax, rbx (little-endian) */
    CHECK_EQ_STR(command(&s, "p10", NULL), "0d935c1d00000000");             /* rip */
    CHECK_EQ_STR(command(&s, "p11", NULL), "02020000");                     /* eflags */
    CHECK_EQ_STR(command(&s, "p20", NULL), "7f030000");                     /* fctrl: initial 0x37f */
    CHECK_EQ_STR(command(&s, "p22", NULL), "ffff0000");                     /* ftag: all empty */
    CHECK_EQ_STR(command(&s, "p28", NULL), "00000000000000000000000000000000"); /* xmm0: initial */
    CHECK_EQ_STR(command(&s, "p49", NULL), "E01");                          /* past ymm15h */
    /* P writes: rbx, and xmm1 (SSE becomes in use: the other XMMs read zero, not stale bytes). */
    CHECK_EQ_STR(command(&s, "P1=0200000000000000", NULL), "OK");
    CHECK_EQ_U64(stub_regs[3], 2);
    CHECK_EQ_STR(command(&s, "P29=00112233445566778899aabbccddeeff", NULL), "OK");
    CHECK_EQ_INT(stub_xsave[512] & 2, 2);
    CHECK_EQ_STR(command(&s, "p29", NULL), "00112233445566778899aabbccddeeff");
    CHECK_EQ_STR(command(&s, "p28", NULL), "00000000000000000000000000000000");
    /* Memory: inside the code only. */
    char pkt[64];
    uint64_t code = (uint64_t)(uintptr_t)stub_code;
    snprintf(pkt, sizeof(pkt), "m%llx,4", (unsigned long long)code);
    CHECK_EQ_STR(command(&s, pkt, NULL), "90909090");
    snprintf(pkt, sizeof(pkt), "m%llx,4", (unsigned long long)code + 62);
    CHECK_EQ_STR(command(&s, pkt, NULL), "E14");
    CHECK_EQ_STR(command(&s, "m0,8", NULL), "E14");
    snprintf(pkt, sizeof(pkt), "M%llx,2:0102", (unsigned long long)code + 2);
    CHECK_EQ_STR(command(&s, pkt, NULL), "OK");
    CHECK_EQ_INT(stub_code[3], 2);
    /* Z0/z0: INT3 in, the byte back. */
    snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)code + 8);
    CHECK_EQ_STR(command(&s, pkt, NULL), "OK");
    CHECK_EQ_INT(stub_code[8], 0xCC);
    CHECK(gdb_stub_has_breakpoint(&s, code + 8));
    pkt[0] = 'z';
    CHECK_EQ_STR(command(&s, pkt, NULL), "OK");
    CHECK_EQ_INT(stub_code[8], 0x90);
    CHECK(!gdb_stub_has_breakpoint(&s, code + 8));
    CHECK_EQ_STR(command(&s, "Z0,0,1", NULL), "E14");
    CHECK_EQ_STR(command(&s, "Z2,0,1", NULL), ""); /* watchpoints: not supported */
    /* s sets TF, c clears it. */
    command(&s, "s", &a);
    CHECK_EQ_INT(a, GDB_STEP);
    CHECK_EQ_U64(stub_regs[DBG_RFLAGS], 0x302);
    command(&s, "c", &a);
    CHECK_EQ_INT(a, GDB_CONTINUE);
    CHECK_EQ_U64(stub_regs[DBG_RFLAGS], 0x202);
    command(&s, "D", &a);
    CHECK_EQ_INT(a, GDB_DETACH);
}

NB_TEST(gdb_stub_target_description)
{
    static struct gdb_stub s;
    stub_init(&s);
    size_t len;
    const char *xml = gdb_stub_target_xml(true, &len);
    CHECK(strstr(xml, "<architecture>i386:x86-64</architecture>") != NULL);
    CHECK(strstr(xml, "org.gnu.gdb.i386.avx") != NULL);
    CHECK(strstr(xml, "<reg name=\"ymm15h\"") != NULL);
    CHECK(!strpbrk(xml, "#$}*")); /* nothing to escape */
    /* Read in 1000-byte pieces, the way gdb asks, it comes back whole. */
    static char whole[16384];
    size_t got = 0;
    for (;;) {
        char pkt[80];
        snprintf(pkt, sizeof(pkt), "qXfer:features:read:target.xml:%zx,3e8", got);
        size_t n;
        gdb_stub_command(&s, pkt, strlen(pkt), &n);
        REQUIRE(n >= 1 && (s.reply[0] == 'm' || s.reply[0] == 'l'));
        memcpy(whole + got, s.reply + 1, n - 1);
        got += n - 1;
        if (s.reply[0] == 'l')
            break;
    }
    CHECK_EQ_INT(got, len);
    CHECK(memcmp(whole, xml, len) == 0);
    /* Without AVX: no avx feature, 57 registers. */
    s.xsave_mask = 3;
    CHECK_EQ_STR(command(&s, "p38", NULL), "77777777"); /* mxcsr: register 56, the last */
    CHECK_EQ_STR(command(&s, "p39", NULL), "E01");
}

/*
 * The stop handler as objdump decodes it: the system registers it reads,
 * the APIC timer paused and restarted, XSAVE64/XRSTOR64 at the absolute
 * save address, the call, the frame written back and IRETQ; within the
 * DEBUG_HANDLER_MAX bytes the generator budgets.
 */
#include "bench_codegen.h"
#include "host_objdump.h"

NB_TEST(debug_handler_decodes)
{
    static uint8_t buf[3 * 4096 + 4096];
    struct codegen_params p;
    memset(&p, 0, sizeof(p));
    p.debug = true;
    p.watchdog = true;
    p.lapic_mmio_base = 0xFEE00000u;
    p.xsave_mask = 7;
    p.debug_stop = 0x1122334455667788ull;
    p.debug_save = 0x0000000012345000ull;
    struct x86_emitter e;
    x86_emitter_init(&e, buf + 3 * 4096, 4096);
    uintptr_t gate3, gate1;
    debug_code_handler(&e, buf, &p, &gate3, &gate1);
    REQUIRE(!e.overflow);
    CHECK(e.length < 1024);
    CHECK_EQ_INT(gate1, (uintptr_t)(buf + 3 * 4096));
    CHECK_EQ_INT(gate3 - gate1, 13); /* the vector store (11) and a 2-byte JMP over the other one */
    char *text = host_objdump(buf, 3 * 4096, 3 * 4096 + e.length);
    REQUIRE(text);
    static const char *const want[] = { "mov    rax,cr0", "mov    rax,cr2", "mov    rax,cr3", "mov    rax,cr4",
                                        "mov    rax,cr8", "mov    rax,dr6", "mov    rax,dr7", "mov    rax,ds",
                                        "xgetbv", "rdmsr", "xsave64 [rcx]", "xrstor64 [rcx]", "call   rax",
                                        "movabs rax,0x1122334455667788", "movabs rcx,0x12345000",
                                        "movabs rax,0xfee00390", "iretq" };
    for (size_t i = 0; i < NB_ARRAY_SIZE(want); i++)
        if (!strstr(text, want[i])) {
            nb_test_note("missing: %s", want[i]);
            CHECK(strstr(text, want[i]) != NULL);
        }
    free(text);
}

/* AVX-512: ZMM0-31 from the three components, and the opmasks (standard-form offsets of Skylake-X). */
NB_TEST(debug_dump_avx512)
{
    static struct debug_capture cap;
    memset(&cap, 0, sizeof(cap));
    cap.regs[DBG_XCR0] = 0xE7;
    /* XSTATE_BV: x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM. */
    cap.xsave[512] = 0xE7;
    cap.xsave[160 + 16 * 1] = 0x11;       /* XMM1 byte 0 */
    cap.xsave[576 + 16 * 1] = 0x22;       /* YMM1 bits 128.. */
    cap.xsave[1152 + 32 * 1] = 0x33;      /* ZMM1 bits 256.. */
    cap.xsave[1088 + 8 * 7] = 0x44;       /* K7 */
    cap.xsave[1664 + 64 * 15 + 63] = 0x55; /* ZMM31's top byte */
    struct debug_dump_info in = { .xsave_mask = 0xE7, .off_ymm = 576, .off_opmask = 1088,
                                  .off_zmm_hi256 = 1152, .off_hi16_zmm = 1664 };
    static struct lines l;
    memset(&l, 0, sizeof(l));
    debug_dump(&cap, &in, collect, &l);
    char line[400];
    CHECK_EQ_STR(line_of(&l, "ZMM1 ", line, sizeof(line)),
                 "ZMM1   0x0000000000000000_0000000000000000_0000000000000000_0000000000000033_"
                 "0000000000000000_0000000000000022_0000000000000000_0000000000000011");
    CHECK_EQ_STR(line_of(&l, "ZMM31", line, sizeof(line)),
                 "ZMM31  0x5500000000000000_0000000000000000_0000000000000000_0000000000000000_"
                 "0000000000000000_0000000000000000_0000000000000000_0000000000000000");
    CHECK_EQ_STR(line_of(&l, "K7", line, sizeof(line)), "K7     0x0000000000000044");
    CHECK_EQ_STR(line_of(&l, "YMM", line, sizeof(line)), ""); /* ZMM replaces YMM and XMM */
}
