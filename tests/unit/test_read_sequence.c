/*
 * test_read_sequence.c — the counter reads the code generator emits, checked
 * by disassembling the generated function with binutils' objdump (an
 * independent decoder): m1 reads every counter in order and m2 in reverse
 * order (so RDTSC brackets the others), each with the right ECX (RDPMC index
 * i for PMC i, 1<<30 | i for Intel fixed counter i, the MSR address for
 * RDMSR; SDM vol. 2B RDPMC/RDMSR), and stores EDX:EAX to its own m1/m2 slot.
 * With -no_mem the values go to R8+k (subtract at the start, add at the end).
 */
#define _GNU_SOURCE
#include "bench_codegen.h"
#include "host_objdump.h"
#include "msr_names.h"
#include "nb_test.h"
#include "pmu_msrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct counter_read READS[] = {
    { READ_TSC, 0, "RDTSC", 64, 0, 0 },
    { READ_PMC, 0, "PMC0", 48, 0, 0 },
    { READ_PMC, 3, "PMC3", 48, 0, 0 },
    { READ_PMC, RDPMC_FIXED | 1, "Core cycles", 48, 0, 0 },
    { READ_MSR, MSR_IA32_MPERF, "MPERF", 64, 0, 0 },
};

/* "m1[2].lo" for a RIP-relative store target inside m1/m2, or NULL. */
static const char *slot_name(size_t target, char *buf, size_t cap)
{
    size_t m1 = offsetof(struct codegen_data, m1), m2 = offsetof(struct codegen_data, m2);
    size_t size = sizeof(((struct codegen_data *)0)->m1);
    const char *which = NULL;
    size_t off = 0;
    if (target >= m1 && target < m1 + size) {
        which = "m1";
        off = target - m1;
    } else if (target >= m2 && target < m2 + size) {
        which = "m2";
        off = target - m2;
    }
    if (!which)
        return NULL;
    snprintf(buf, cap, "%s[%zu].%s", which, off / 8, off % 8 ? "hi" : "lo");
    return buf;
}

/*
 * The read-related instructions of a listing, one per line: "ecx=0x3",
 * "rdpmc", "m1[2].lo=eax", "sub r9,rax". Everything else (LFENCEs, saving
 * and restoring registers, the code itself) is left out.
 */
static bool trace_values; /* also "eax=0x..", "edx=0x.." (the top-down reset's WRMSR values) */

static char *read_trace(const char *listing)
{
    size_t cap = strlen(listing) + 1, n = 0;
    char *out = calloc(1, cap);
    const char *line = listing;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char text[256];
        snprintf(text, sizeof(text), "%.*s", (int)len, line);
        line = eol ? eol + 1 : NULL;
        /* "    2003:\tb9 01 00 00 40       \tmov    ecx,0x40000001" */
        char *insn = strchr(text, '\t');
        insn = insn ? strchr(insn + 1, '\t') : NULL;
        if (!insn)
            continue;
        insn++;
        char mnem[16] = "", ops[200] = "";
        if (sscanf(insn, "%15s %199[^\n]", mnem, ops) < 1)
            continue;
        char item[300] = "", slot[32];
        unsigned long long target;
        if (!strcmp(mnem, "rdtsc") || !strcmp(mnem, "rdpmc") || !strcmp(mnem, "rdmsr") ||
            !strcmp(mnem, "wrmsr")) {
            snprintf(item, sizeof(item), "%s", mnem);
        } else if (!strcmp(mnem, "mov") && !strncmp(ops, "ecx,0x", 6)) {
            snprintf(item, sizeof(item), "ecx=%s", ops + 4);
        } else if (trace_values && !strcmp(mnem, "mov") &&
                   (!strncmp(ops, "eax,0x", 6) || !strncmp(ops, "edx,0x", 6))) {
            snprintf(item, sizeof(item), "%.3s=%s", ops, ops + 4);
        } else if (!strcmp(mnem, "mov") && !strncmp(ops, "DWORD PTR [rip+", 15)) {
            const char *hash = strstr(ops, "# 0x");
            const char *reg = strstr(ops, "],");
            if (hash && reg && sscanf(hash + 2, "%llx", &target) == 1 &&
                slot_name((size_t)target, slot, sizeof(slot)))
                snprintf(item, sizeof(item), "%s=%.3s", slot, reg + 2);
        } else if ((!strcmp(mnem, "sub") || !strcmp(mnem, "add")) && strstr(ops, ",rax") &&
                   ops[0] == 'r' && ops[1] >= '0' && ops[1] <= '9') {
            snprintf(item, sizeof(item), "%s %s", mnem, ops);
        }
        if (item[0])
            n += (size_t)snprintf(out + n, cap - n, "%s\n", item);
    }
    return out;
}

static uint64_t topdown_global_ctrl;

/* The trace of one generated run function. */
static char *generate(bool no_mem)
{
    static const uint8_t nop = 0x90;
    struct codegen_params p;
    memset(&p, 0, sizeof(p));
    p.part[PART_MAIN] = &nop;
    p.part_len[PART_MAIN] = 1;
    p.copies = 1;
    p.no_mem = no_mem;
    p.reads = READS;
    p.n_reads = NB_ARRAY_SIZE(READS);
    p.topdown_global_ctrl = topdown_global_ctrl;
    size_t cap = codegen_run_size(&p);
    uint8_t *buf = calloc(1, cap);
    struct codegen_layout layout;
    char *trace = NULL;
    if (codegen_emit_run(buf, cap, &p, &layout)) {
        char *listing = host_objdump(buf, codegen_code_offset(&p), (size_t)(layout.code_end - (uintptr_t)buf));
        if (listing)
            trace = read_trace(listing);
        free(listing);
    }
    free(buf);
    return trace;
}

NB_TEST(read_sequence_m1_in_order_m2_reversed)
{
    char *trace = generate(false);
    REQUIRE(trace);
    CHECK_EQ_STR(trace,
                 /* m1: RDTSC first */
                 "rdtsc\nm1[0].lo=eax\nm1[0].hi=edx\n"
                 "ecx=0x0\nrdpmc\nm1[1].lo=eax\nm1[1].hi=edx\n"
                 "ecx=0x3\nrdpmc\nm1[2].lo=eax\nm1[2].hi=edx\n"
                 "ecx=0x40000001\nrdpmc\nm1[3].lo=eax\nm1[3].hi=edx\n"
                 "ecx=0xe7\nrdmsr\nm1[4].lo=eax\nm1[4].hi=edx\n"
                 /* m2: the same reads in reverse, RDTSC last */
                 "ecx=0xe7\nrdmsr\nm2[4].lo=eax\nm2[4].hi=edx\n"
                 "ecx=0x40000001\nrdpmc\nm2[3].lo=eax\nm2[3].hi=edx\n"
                 "ecx=0x3\nrdpmc\nm2[2].lo=eax\nm2[2].hi=edx\n"
                 "ecx=0x0\nrdpmc\nm2[1].lo=eax\nm2[1].hi=edx\n"
                 "rdtsc\nm2[0].lo=eax\nm2[0].hi=edx\n");
    free(trace);
}

NB_TEST(read_sequence_no_mem_accumulates_in_r8_to_r12)
{
    char *trace = generate(true);
    REQUIRE(trace);
    CHECK_EQ_STR(trace,
                 /* start: subtract each reading from R8+k, in order */
                 "rdtsc\nsub r8,rax\n"
                 "ecx=0x0\nrdpmc\nsub r9,rax\n"
                 "ecx=0x3\nrdpmc\nsub r10,rax\n"
                 "ecx=0x40000001\nrdpmc\nsub r11,rax\n"
                 "ecx=0xe7\nrdmsr\nsub r12,rax\n"
                 /* end: add, in reverse order; then the totals go to m2 */
                 "ecx=0xe7\nrdmsr\nadd r12,rax\n"
                 "ecx=0x40000001\nrdpmc\nadd r11,rax\n"
                 "ecx=0x3\nrdpmc\nadd r10,rax\n"
                 "ecx=0x0\nrdpmc\nadd r9,rax\n"
                 "rdtsc\nadd r8,rax\n");
    free(trace);
}

/*
 * Intel top-down: before m1 (never before m2) the counters stop, FIXED_CTR3
 * and then IA32_PERF_METRICS are zeroed, and the group's global enable comes
 * back (Linux resets both with the PMU disabled at every read).
 */
NB_TEST(read_sequence_topdown_reset_before_m1)
{
    topdown_global_ctrl = 0x1000800000001ull;
    trace_values = true;
    char *trace = generate(false);
    topdown_global_ctrl = 0;
    trace_values = false;
    REQUIRE(trace);
    const char *reset = "ecx=0x38f\neax=0x0\nedx=0x0\nwrmsr\n"
                        "ecx=0x30c\neax=0x0\nedx=0x0\nwrmsr\n"
                        "ecx=0x329\neax=0x0\nedx=0x0\nwrmsr\n"
                        "ecx=0x38f\neax=0x1\nedx=0x10008\nwrmsr\n"
                        "rdtsc\nm1[0].lo=eax\n";
    const char *at = strstr(trace, reset);
    CHECK(at != NULL);
    /* Once: m2 reads without it. */
    CHECK(at && strstr(at + strlen(reset), "ecx=0x30c") == NULL);
    CHECK(at && strstr(trace, "ecx=0x30c") == at + strlen("ecx=0x38f\neax=0x0\nedx=0x0\nwrmsr\n"));
    free(trace);
}
