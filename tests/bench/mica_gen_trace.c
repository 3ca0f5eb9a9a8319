/*
 * mica_gen_trace.c — writes a synthetic single-step trace for the MICA
 * speed benchmark and the nb_mica command-line test: a loop of 11 real
 * instructions (strided load and store over 8 MiB, push/pop, imul, a
 * conditional branch taken 2^20 - 1 times in 2^20), with register values
 * that follow what the code does, so every address is the one the decoder
 * computes.
 *
 * usage: mica_gen_trace OUT.trace INSTRUCTIONS
 */
#include "host_trace_writer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE 0x400000ull

static const struct {
    uint8_t n, b[8];
} body[] = {
    { 4, { 0x48, 0x8b, 0x04, 0xce } },                   /*  0 mov rax, [rsi+rcx*8] */
    { 3, { 0x48, 0x01, 0xc3 } },                         /*  4 add rbx, rax */
    { 4, { 0x48, 0x89, 0x1c, 0xcf } },                   /*  7 mov [rdi+rcx*8], rbx */
    { 1, { 0x53 } },                                     /* 11 push rbx */
    { 1, { 0x5a } },                                     /* 12 pop rdx */
    { 4, { 0x48, 0x6b, 0xd2, 0x03 } },                   /* 13 imul rdx, rdx, 3 */
    { 3, { 0x45, 0x31, 0xc0 } },                         /* 17 xor r8d, r8d */
    { 3, { 0x48, 0xff, 0xc1 } },                         /* 20 inc rcx */
    { 7, { 0x48, 0x81, 0xe1, 0xff, 0xff, 0x0f, 0x00 } }, /* 23 and rcx, 0xfffff */
    { 2, { 0x75, 0xe0 } },                               /* 30 jnz 0 */
    { 2, { 0xeb, 0xde } },                               /* 32 jmp 0 */
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mica_gen_trace OUT.trace INSTRUCTIONS\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    struct trace_writer w;
    uint64_t r[NB_TRACE_NREGS] = { 0 };
    r[NB_TRACE_RSI] = 0x10000000;
    r[NB_TRACE_RDI] = 0x20000000;
    r[NB_TRACE_RSP] = 0x7ff000;
    r[NB_TRACE_RFLAGS] = 0x202;
    bool seen[11] = { false };
    uint64_t off[11], o = 0;
    for (unsigned i = 0; i < 11; i++) {
        off[i] = o;
        o += body[i].n;
    }
    tw_begin(&w, 0, 0, BASE);
    unsigned pc = 0;
    for (uint64_t k = 0; k < n; k++) {
        tw_insn(&w, BASE + off[pc], seen[pc] ? NULL : body[pc].b, body[pc].n, r);
        seen[pc] = true;
        unsigned next = pc + 1;
        switch (pc) {
        case 0: r[NB_TRACE_RAX] = r[NB_TRACE_RCX] * 3; break;
        case 1: r[NB_TRACE_RBX] += r[NB_TRACE_RAX]; break;
        case 3: r[NB_TRACE_RSP] -= 8; break;
        case 4: r[NB_TRACE_RSP] += 8; r[NB_TRACE_RDX] = r[NB_TRACE_RBX]; break;
        case 5: r[NB_TRACE_RDX] *= 3; break;
        case 6: r[NB_TRACE_R8] = 0; break;
        case 7: r[NB_TRACE_RCX]++; break;
        case 8:
            r[NB_TRACE_RCX] &= 0xfffff;
            r[NB_TRACE_RFLAGS] = r[NB_TRACE_RCX] ? 0x202 : 0x246;
            break;
        case 9: next = r[NB_TRACE_RCX] ? 0 : 10; break;
        case 10: next = 0; break;
        default: break;
        }
        pc = next;
    }
    tw_end(&w, BASE + off[pc]);
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(w.buf, 1, w.n, f) != w.n || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    tw_free(&w);
    return 0;
}
