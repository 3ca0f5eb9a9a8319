/*
 * gen_selftest — `gen_configs selftest`: table-driven checks of the select-value
 * decoder, the line formatter/parser and the config checker against hand-made
 * encodings from the Intel SDM vol. 3B (IA32_PERFEVTSELx) and AMD APM vol. 2
 * (PERF_CTLx) bit layouts. Needs no libpfm4; run by `make gen-configs-check`.
 */
#include "gen_selftest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_evtsel.h"
#include "gen_msr.h"
#include "gen_ppr.h"
#include "gen_verify.h"

/* Select bits nanoBench sets itself: USR (16), OS (17), INT (20), EN (22). */
#define SEL_USR_OS_INT_EN 0x530000ull

struct decode_case {
    enum gen_vendor vendor;
    uint64_t raw;
    const char *want; /* formatted entry, or NULL when decode must refuse */
};

static const struct decode_case decode_cases[] = {
    /* PMU-FACTS: 0E.01.CMSK=1.INV with USR+OS is 0x01C3010E (UOPS_ISSUED.STALL_CYCLES) */
    {GEN_VENDOR_INTEL, 0x01C3010Eull, "0E.01.CMSK=1.INV"},
    /* INST_RETIRED.ANY_P, SDM table of architectural events: C0H umask 00H */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | 0x00C0, "C0.00"},
    /* BR_MISP_RETIRED.ALL_BRANCHES: C5H umask 00H */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | 0x00C5, "C5.00"},
    /* EDGE (18) and AnyThread (21) */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | (1ull << 18) | (1ull << 21) | 0x013C,
     "3C.01.AnyT.EDG"},
    /* CYCLE_ACTIVITY.STALLS_MEM_ANY on Skylake: A3H umask 14H cmask 20 */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | (20ull << 24) | 0x14A3, "A3.14.CMSK=20"},
    /* PC (19) is ignored like USR/OS/INT/EN */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | (1ull << 19) | 0x01D1, "D1.01"},
    /* IN_TX (32) / IN_TXCP (33) have no modifier */
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | (1ull << 32) | 0x01C4, NULL},
    {GEN_VENDOR_INTEL, SEL_USR_OS_INT_EN | (1ull << 33) | 0x01C4, NULL},
    /* PMU-FACTS: AMD 1CF.04 with USR+OS is 0x1004304CF */
    {GEN_VENDOR_AMD, 0x1004304CFull, "1CF.04"},
    /* Zen Retired Instructions: PPR event C0H */
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | 0x00C0, "0C0.00"},
    /* AMD event[11:8] at PERF_CTL[35:32]: 28FH umask 04H (Zen 3 OP_CACHE_HIT_MISS) */
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | (2ull << 32) | 0x048F, "28F.04"},
    /* AMD EDGE + INV + CMASK */
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | (1ull << 18) | (1ull << 23) | (3ull << 24) | 0x0076,
     "076.00.CMSK=3.EDG.INV"},
    /* AMD counter mask above nanoBench's 7 bits, HostOnly (41), AnyThread bit (21) */
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | (0x80ull << 24) | 0x00C0, NULL},
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | (1ull << 41) | 0x00C0, NULL},
    {GEN_VENDOR_AMD, SEL_USR_OS_INT_EN | (1ull << 21) | 0x00C0, NULL},
};

struct parse_case {
    const char *line;
    int ok;
};

static const struct parse_case parse_cases[] = {
    {"0E.01.CMSK=1.INV UOPS_ISSUED.STALL_CYCLES", 1},
    {"B7.01.MSR_RSP0=0x10001 OFFCORE_RESPONSE_0.DMND_DATA_RD.ANY_RESPONSE", 1},
    {"CD.01.MSR_3F6H=0x3 MEM_TRANS_RETIRED.LOAD_LATENCY", 1},
    {"C6.01.MSR_PF=0x400106 FRONTEND_RETIRED.IDQ_4_BUBBLES", 1},
    {"3C.00.CMSK=1.AnyT.EDG.INV.TakenAlone.CTR=2 X", 1},
    {"0C0.00 RETIRED_INSTRUCTIONS", 1},
    /* counter sets (configs/README.md "Format"): ranges and lists, ascending */
    {"48.01.CTR=0-3 L1D_PEND_MISS.PENDING", 1},
    {"48.01.CTR=0,1,2,3 X", 1},
    {"48.01.CTR=0-1,4 X", 1},
    {"48.01.CTR=3-1 X", 0},         /* descending range */
    {"48.01.CTR=2,1 X", 0},         /* not ascending */
    {"48.01.CTR=0-3,2 X", 0},       /* overlap */
    {"48.01.CTR=0, X", 0},          /* trailing comma */
    {"48.01.CTR=32 X", 0},          /* beyond 31 */
    {"48.01.CTR= X", 0},            /* empty set */
    {"C0.0 X", 0},                  /* umask width */
    {"C0 X", 0},                    /* no umask */
    {"c0.00 X", 0},                 /* lower-case hex */
    {"C0.00 LsNotHaltedCyc", 1},    /* nanoBench's AMD names are CamelCase */
    {"C0.00 bad-name", 0},          /* '-' is not a name character */
    {"C0.00  X", 0},                /* two spaces */
    {"C0.00", 0},                   /* no name */
    {"C0.00.INV.CMSK=1 X", 0},      /* out of grammar order */
    {"C0.00.INV.INV X", 0},         /* repeated */
    {"C0.00.CMSK=0 X", 0},          /* zero counter mask */
    {"C0.00.CMSK=256 X", 0},        /* too wide */
    {"C0.00.FOO X", 0},             /* unknown modifier */
    {"C0.00.MSR_RSP0=10001 X", 0},  /* MSR value without 0x */
    {"0C0.00.AnyT X", 0},           /* AnyThread on AMD */
    {"0C0.00.MSR_RSP0=0x1 X", 0},   /* MSR modifier on AMD */
    {"0C0.00.CMSK=128 X", 0},       /* AMD counter mask is 7 bits in nanoBench */
    {"0C00.00 X", 0},               /* 4 hex digits */
};

static int failures, passes;

static void check(int cond, const char *what, const char *detail)
{
    if (cond) {
        passes++;
        return;
    }
    failures++;
    fprintf(stderr, "selftest FAILED: %s: %s\n", what, detail);
}

static void test_decode(void)
{
    for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        const struct decode_case *c = &decode_cases[i];
        struct gen_evtsel e, back;
        char buf[GEN_LINE_MAX], line[GEN_LINE_MAX + 8], name[GEN_NAME_MAX], what[64];
        const char *why = NULL;
        enum gen_vendor v;
        int r = gen_evtsel_decode(c->vendor, c->raw, &e, &why);

        snprintf(what, sizeof(what), "decode 0x%llX", (unsigned long long)c->raw);
        if (!c->want) {
            check(r != 0 && why, what, "accepted bits nanoBench cannot express");
            continue;
        }
        if (r != 0) {
            check(0, what, why ? why : "refused");
            continue;
        }
        gen_evtsel_format(c->vendor, &e, buf, sizeof(buf));
        check(strcmp(buf, c->want) == 0, what, buf);
        /* The formatted line parses back to the same vendor and programming. */
        snprintf(line, sizeof(line), "%s NAME", buf);
        r = gen_evtsel_parse(line, &v, &back, name, sizeof(name), &why);
        check(r == 0 && v == c->vendor && gen_evtsel_same(&e, &back), "round trip", line);
    }
}

static void test_parse(void)
{
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const struct parse_case *c = &parse_cases[i];
        struct gen_evtsel e;
        char name[GEN_NAME_MAX];
        const char *why = NULL;
        enum gen_vendor v;
        int r = gen_evtsel_parse(c->line, &v, &e, name, sizeof(name), &why);

        check((r == 0) == c->ok, c->ok ? "parse should accept" : "parse should refuse",
              c->line);
    }
}

static void test_same(void)
{
    struct gen_evtsel a, b;

    gen_evtsel_init(&a);
    gen_evtsel_init(&b);
    a.event = 0xB7;
    a.umask = 0x01;
    a.has_msr[GEN_MSR_RSP0] = true;
    a.msr[GEN_MSR_RSP0] = 0x10001;
    b.event = 0xBB;
    b.umask = 0x01;
    b.has_msr[GEN_MSR_RSP1] = true;
    b.msr[GEN_MSR_RSP1] = 0x10001;
    check(gen_evtsel_same(&a, &b), "same", "RSP0 and RSP1 with one value");
    b.msr[GEN_MSR_RSP1] = 0x10002;
    check(!gen_evtsel_same(&a, &b), "same", "different offcore values");
}

/* Counter sets: format is the canonical ranges form, parse accepts lists. */
static void test_ctr(void)
{
    static const struct {
        uint32_t mask;
        const char *text;
    } cases[] = {{0x1, "0"}, {0x4, "2"}, {0xF, "0-3"}, {0x13, "0-1,4"},
                 {0x2A, "1,3,5"}, {0xFE, "1-7"}, {0x80000001u, "0,31"}};
    uint32_t m = 0;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[96];
        gen_ctr_format(cases[i].mask, buf, sizeof(buf));
        check(strcmp(buf, cases[i].text) == 0, "ctr format", buf);
        check(gen_ctr_parse(cases[i].text, strlen(cases[i].text), &m) == 0 &&
                  m == cases[i].mask, "ctr parse", cases[i].text);
    }
    check(gen_ctr_parse("0,1,2,3", 7, &m) == 0 && m == 0xF, "ctr parse", "0,1,2,3");
}

/*
 * MSR config values against hand-computed ones: AMD family 19h L3 select for
 * l3_lookup_state.all_coherent_accesses_to_l3 (event 04H, umask FFH): EventSel 04H |
 * UnitMask FFH << 8 | Enable bit 22 | EnAllSlices bit 46 | EnAllCores bit 47 |
 * ThreadMask 3 << 56; Skylake CBo UNC_CBO_CACHE_LOOKUP.ANY_MESI (34H/8FH) with the
 * enable bit 22 = 408F34H, the value of nanoBench's README example.
 */
static void test_msr_values(void)
{
    check(gen_msr_amd_l3_ctl(0x04, 0xFF) == 0x0300C0000040FF04ull, "msr", "AMD L3 select");
    check(gen_msr_amd_l3_ctl(0x04, 0x01) == 0x0300C00000400104ull, "msr", "AMD L3 miss");
    check(gen_msr_intel_unc_ctl(0x34, 0x8F) == 0x408F34ull, "msr", "SKL CBo lookup");
}

/* Write text to a temporary config and return what the checker counts. */
static int verify_text(const char *text)
{
    char path[] = "/tmp/gen_selftest_XXXXXX";
    int fd = mkstemp(path), problems;
    FILE *f, *devnull;

    if (fd < 0 || !(f = fdopen(fd, "w")))
        return -1;
    fputs(text, f);
    fclose(f);
    devnull = fopen("/dev/null", "w");
    problems = gen_verify_config(path, devnull ? devnull : stderr);
    if (devnull)
        fclose(devnull);
    unlink(path);
    return problems;
}

static void test_verify(void)
{
    check(verify_text("# vendor: intel\nC0.00 A\n0E.01 B\n") == 0, "verify", "good file");
    check(verify_text("C0.00 A\n0E.01 A\n") > 0, "verify", "duplicate name");
    check(verify_text("C0.00 A\nC0.00 B\n") > 0, "verify", "duplicate programming");
    check(verify_text("C0.00 A\n0C0.00 B\n") > 0, "verify", "mixed code widths");
    check(verify_text("# vendor: amd\nC0.00 A\n") > 0, "verify", "Intel width, AMD file");
    check(verify_text("# only comments\n") > 0, "verify", "no events");
}

/* The alias comments gen_ppr.c writes, as the host checks read them back. */
static void test_ppr_alias(void)
{
    char alias[64] = "";

    check(gen_ppr_alias_comment("# FpuPipeAssignment.Total0: AMD's PPR name (nanoBench's); libpfm4 "
                                "calls it FPU_PIPE_ASSIGNMENT.TOTAL0", alias, sizeof(alias)) &&
              strcmp(alias, "FPU_PIPE_ASSIGNMENT.TOTAL0") == 0,
          "ppr", "libpfm4 alias");
    check(gen_ppr_alias_comment("# ExRetInstr: AMD's PPR name (Linux's, in CamelCase); Linux calls it "
                                "EX_RET_INSTR", alias, sizeof(alias)) &&
              strcmp(alias, "EX_RET_INSTR") == 0,
          "ppr", "Linux alias");
    check(!gen_ppr_alias_comment("# ExNoRetire.All: Linux's encoding and AMD's PPR name; libpfm4 "
                                 "amd64_fam19h_zen4 does not list this event", alias, sizeof(alias)),
          "ppr", "no alias for an event the source lacks");
    check(!gen_ppr_alias_comment("# FpRetSseAvxOps.All: exact only with AMD's MergeEvent counter "
                                 "pairing (libpfm4)", alias, sizeof(alias)),
          "ppr", "merge comment");
    check(!gen_ppr_alias_comment("# X: AMD's PPR name (nanoBench's); libpfm4 calls it "
                                 "A_NAME_LONGER_THAN_THE_BUFFER_GIVEN_TO_IT_BY_THE_CALLER_HERE",
                                 alias, 32),
          "ppr", "alias too long for the buffer");
}

int gen_selftest(void)
{
    test_decode();
    test_parse();
    test_same();
    test_ctr();
    test_msr_values();
    test_verify();
    test_ppr_alias();
    printf("gen_configs selftest: %d passed, %d failed\n", passes, failures);
    return failures != 0;
}
