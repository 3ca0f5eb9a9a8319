/*
 * test_timer_code.c — the local APIC timer as the generated code reaches it
 * (kernel/codegen/timer_code.h), decoded by objdump instruction by
 * instruction: the initial-count write and the pause, through xAPIC MMIO
 * (registers 380H and 390H of the block, SDM vol. 3A table 11-1) and through
 * the x2APIC MSRs 838H and 839H (table 11-6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_objdump.h"
#include "nb_test.h"
#include "timer_code.h"

/* The instructions of an objdump listing (the text after the bytes), joined by "; ". */
static void instructions(const char *listing, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (const char *line = listing; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *tab1 = memchr(line, '\t', len);
        const char *tab2 = tab1 ? memchr(tab1 + 1, '\t', len - (size_t)(tab1 + 1 - line)) : NULL;
        if (tab2) {
            size_t ilen = len - (size_t)(tab2 + 1 - line);
            while (ilen && tab2[ilen] == ' ')
                ilen--;
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%.*s", n ? "; " : "", (int)ilen, tab2 + 1);
        }
        line = end ? end + 1 : NULL;
    }
}

/* Emits with `fn` at the start of a page and decodes what it wrote. */
static size_t decode(uint8_t *page, void (*fn)(struct x86_emitter *, uint64_t, uintptr_t), uint64_t mmio,
                     char *out, size_t cap)
{
    struct x86_emitter e;
    x86_emitter_init(&e, page, 4096);
    fn(&e, mmio, (uintptr_t)page + 0x800);
    if (e.overflow)
        return 0;
    char *listing = host_objdump(page, 0, e.length);
    if (!listing)
        return 0;
    instructions(listing, out, cap);
    free(listing);
    return e.length;
}

static void set_initial(struct x86_emitter *e, uint64_t mmio, uintptr_t left)
{
    (void)left;
    timer_code_set_initial(e, mmio);
}

NB_TEST(timer_code_set_initial_writes_ecx)
{
    static uint8_t page[4096];
    char text[1024];
    /* xAPIC: a 32-bit store of ECX to the initial-count register. */
    CHECK_EQ_INT(decode(page, set_initial, 0xFEE00000u, text, sizeof(text)), 10 + 2);
    CHECK_EQ_STR(text, "movabs rax,0xfee00380; mov    DWORD PTR [rax],ecx");
    /* x2APIC: WRMSR 838H with EDX:EAX = 0:ECX. */
    CHECK_EQ_INT(decode(page, set_initial, 0, text, sizeof(text)), 2 + 2 + 5 + 2);
    CHECK_EQ_STR(text, "mov    eax,ecx; xor    edx,edx; mov    ecx,0x838; wrmsr");
}

NB_TEST(timer_code_pause_keeps_the_count_left)
{
    static uint8_t page[4096];
    char text[1024];
    /* xAPIC: the current count (a 32-bit load, upper half zero) to `left`, then initial count 0. */
    CHECK_EQ_INT(decode(page, timer_code_pause, 0xFEE00000u, text, sizeof(text)), 10 + 2 + 7 + 10 + 6);
    /* The store ends at byte 19: its displacement is 800H - 19. */
    CHECK_EQ_STR(text, "movabs rax,0xfee00390; mov    eax,DWORD PTR [rax]; "
                       "mov    QWORD PTR [rip+0x7ed],rax        # 0x800; "
                       "movabs rax,0xfee00380; mov    DWORD PTR [rax],0x0");
    /* x2APIC: RDMSR 839H (EAX; its upper half zero), then WRMSR 838H with 0. */
    CHECK_EQ_INT(decode(page, timer_code_pause, 0, text, sizeof(text)), 5 + 2 + 7 + 5 + 2 + 2 + 2);
    CHECK_EQ_STR(text, "mov    ecx,0x839; rdmsr; mov    QWORD PTR [rip+0x7f2],rax        # 0x800; "
                       "mov    ecx,0x838; xor    eax,eax; xor    edx,edx; wrmsr");
}
