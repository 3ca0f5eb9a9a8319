/*
 * test_cycles_template.c — -cycle_by_cycle's template as the code generator
 * emits it (codegen_types.h cycles_global_ctrl), disassembled with binutils'
 * objdump: WRMSR IA32_PERF_GLOBAL_CTRL = enable, LFENCE, the copies, LFENCE,
 * WRMSR IA32_PERF_GLOBAL_CTRL = 0, RAX/RCX/RDX kept, no counter read; and
 * codegen_cycles_tail counts the instructions after the copies that retire
 * before that WRMSR.
 */
#define _GNU_SOURCE
#include "bench_codegen.h"
#include "host_objdump.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instructions of the listing, "mnemonic operands", RIP-relative operands as [rip]. */
static size_t instructions(const char *listing, char out[][64], size_t max)
{
    size_t n = 0;
    for (const char *line = listing; line && *line && n < max;) {
        const char *eol = strchr(line, '\n');
        char text[256];
        snprintf(text, sizeof(text), "%.*s", (int)(eol ? eol - line : (long)strlen(line)), line);
        line = eol ? eol + 1 : NULL;
        char *insn = strchr(text, '\t');
        insn = insn ? strchr(insn + 1, '\t') : NULL;
        if (!insn)
            continue;
        char mnem[16] = "", ops[200] = "";
        if (sscanf(insn + 1, "%15s %199[^\n]", mnem, ops) < 1)
            continue;
        char *rip = strstr(ops, "[rip+");
        if (rip) {
            char *end = strchr(rip, ']');
            char *hash = strstr(ops, "        #");
            if (hash)
                *hash = '\0';
            if (end)
                memmove(rip + 4, end, strlen(end) + 1);
        }
        char *comment = strstr(ops, " #");
        if (comment)
            *comment = '\0';
        /* A row is 64 bytes: a longer line is cut, and then cannot equal the expected one. */
        if (snprintf(out[n++], 64, "%s%s%s", mnem, ops[0] ? " " : "", ops) >= 64)
            out[n - 1][62] = '~';
    }
    return n;
}

NB_TEST(cycles_template_around_the_copies)
{
    static const uint8_t add[] = { 0x48, 0x01, 0xd8 }; /* add rax, rbx */
    struct codegen_params p;
    memset(&p, 0, sizeof(p));
    p.part[PART_MAIN] = add;
    p.part_len[PART_MAIN] = sizeof(add);
    p.copies = 2;
    p.cycles_global_ctrl = 0x70000000full;
    size_t cap = codegen_run_size(&p);
    uint8_t *buf = calloc(1, cap);
    struct codegen_layout layout;
    REQUIRE(codegen_emit_run(buf, cap, &p, &layout));
    char *listing = host_objdump(buf, codegen_code_offset(&p), (size_t)(layout.code_end - (uintptr_t)buf));
    REQUIRE(listing);
    static char ins[4096][64];
    size_t n = instructions(listing, ins, 4096);
    size_t first = 0;
    while (first < n && strcmp(ins[first], "mov ecx,0x38f") != 0)
        first++;
    REQUIRE(first + 25 < n);
    const char *want[] = {
        "mov ecx,0x38f", "mov eax,0xf", "mov edx,0x7", "wrmsr",
        "mov rax,QWORD PTR [rip]", "mov rcx,QWORD PTR [rip]", "mov rdx,QWORD PTR [rip]",
        "lfence",
        "add rax,rbx", "add rax,rbx",
        "lfence",
        "mov QWORD PTR [rip],rax", "mov QWORD PTR [rip],rcx", "mov QWORD PTR [rip],rdx",
        "mov ecx,0x38f", "mov eax,0x0", "mov edx,0x0", "wrmsr",
        "mov rax,QWORD PTR [rip]", "mov rcx,QWORD PTR [rip]", "mov rdx,QWORD PTR [rip]",
    };
    /* The three stores of RAX/RCX/RDX before the first WRMSR come first; skip NOP padding before the copies. */
    size_t k = first, w = 0;
    for (; w < NB_ARRAY_SIZE(want) && k < n; k++) {
        if (!strncmp(ins[k], "nop", 3) || !strncmp(ins[k], "xchg ax,ax", 10) || !strncmp(ins[k], "data16", 6) ||
            !strncmp(ins[k], "cs nop", 6))
            continue;
        if (!CHECK_EQ_STR(ins[k], want[w]))
            nb_test_note("instruction %zu of the template", w);
        w++;
    }
    CHECK_EQ_INT(w, NB_ARRAY_SIZE(want));
    /* no counter is read anywhere */
    for (size_t i = 0; i < n; i++)
        CHECK(strcmp(ins[i], "rdpmc") != 0 && strcmp(ins[i], "rdtsc") != 0);
    /* after the copies, before the WRMSR that stops the counters: LFENCE, 3 stores, 3 MOVs */
    CHECK_EQ_INT(codegen_cycles_tail(&p), 7);
    p.drain_frontend = true;
    CHECK_EQ_INT(codegen_cycles_tail(&p), 7 + 1 + 64 + 128);
    free(listing);
    free(buf);
}
