/*
 * mica_decode.h — x86-64 instruction bytes plus the traced register values
 * into the struct mica_rec the analyses consume (MICA-SPEC §1.1, §1.3,
 * §1.4), with Zydis. The only unit that knows Zydis.
 *
 * Pin conventions as the spec gives them, and how Zydis's operand lists
 * are read to follow them:
 *  - registers kept (§1.3): general purpose of every width (AL, AH, AX, EAX,
 *    RAX are distinct ids), x87 ST(i) and its control/status/tag words, MMX,
 *    XMM, YMM, ZMM, mask registers, MXCSR (Pin 3.x REG_is_fr); never flags,
 *    RIP or segment registers. Base and index registers of memory operands
 *    (LEA's too) are read; the RSI/RDI of string instructions are read and
 *    written; each list holds a register once;
 *  - register operands (§5 step 3): every register operand Zydis lists,
 *    explicit or hidden, flags and RIP included, except a hidden register
 *    that only serves as the base of a hidden memory operand (XED's BASE0,
 *    which Pin does not count: REP MOVSB has 2, RCX and RFLAGS);
 *  - memory: read1, read2 (second read, CMPS), write in Zydis's operand
 *    order; EA = segment base (FS/GS from the trace header) + base + index *
 *    scale + disp, RIP-relative from the next instruction, truncated to the
 *    address size; PUSH/CALL write at RSP - size, POP/RET/LEAVE read at RSP
 *    or RBP as they are before the instruction; a REP string instruction is
 *    one record per iteration with that iteration's RSI/RDI;
 *  - taken: a conditional branch is taken when the next RIP is not the
 *    fall-through address.
 */
#ifndef MICA_DECODE_H
#define MICA_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica_map.h"
#include "mica_record.h"
#include "nb_trace_format.h"

struct mica_static;

struct mica_decoder {
    struct mica_map by_pc;          /* pc -> index into st[] */
    struct mica_static *st;
    size_t n, cap;
    uint64_t fs_base, gs_base;
    uint64_t prev_pc;               /* for REP first-iteration detection */
    bool have_prev;
    /* Memory operands of NOPs (nop dword [rax]) are reads, as Pin reports
     * them to MICA (default true; -mica_nop_mem off: no access). */
    bool nop_mem;
};

void mica_decoder_init(struct mica_decoder *d, uint64_t fs_base, uint64_t gs_base);
/*
 * Fills *out for the instruction at pc whose bytes are bytes[0..n-1]
 * (re-decoded when changed is set, cached by pc otherwise), with the
 * register values regs[NB_TRACE_NREGS] before it and the RIP of the next
 * record. 0, or -1 with "undecodable instruction at 0x...: bytes" in err.
 */
int mica_decode(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                bool changed, const uint64_t *regs, uint64_t next_rip, struct mica_rec *out,
                char *err, size_t errlen);

/*
 * The DBT capture (tools/mica/mica_dbt.h) has no register values: the
 * addresses come from the memory accesses QEMU reported for this execution
 * of the instruction, in program order (is_store: a write, or a locked
 * read-modify-write). mica_decode_accesses fills *out like mica_decode,
 * with read1 = the first load (for CMPS the load at RSI, which QEMU makes
 * second), read2 = the other load, write = the first store; a role with no
 * access of its kind takes the first access of any kind. An operand QEMU
 * makes no access for (a NOP's or PREFETCH's operand, a REP with count 0)
 * has EA 0. A REP record counts for N_hpc when it is the first
 * iteration and made an access (count > 0). An execution that made no
 * access at all has no memory operand (mem_read, mem_write false): QEMU
 * gives no address to count.
 */
struct mica_access {
    uint64_t addr;
    bool is_store;
};

/* The same in two steps, for a capture that numbers its static
 * instructions itself: decode once (handle), then fill per execution. */
int mica_decode_static_add(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                           uint32_t *handle, char *err, size_t errlen);
/* Is that static instruction a REP-prefixed string instruction? */
bool mica_decode_is_rep(const struct mica_decoder *d, uint32_t handle);
void mica_decode_fill(struct mica_decoder *d, uint32_t handle, uint64_t pc,
                      const struct mica_access *acc, size_t n_acc, uint64_t next_rip,
                      struct mica_rec *out);

int mica_decode_accesses(struct mica_decoder *d, uint64_t pc, const uint8_t *bytes, size_t n,
                         bool changed, const struct mica_access *acc, size_t n_acc,
                         uint64_t next_rip, struct mica_rec *out, char *err, size_t errlen);

void mica_decoder_free(struct mica_decoder *d);

/* Name of a register id in a struct mica_rec made here ("rax", "st0"). */
const char *mica_decode_reg_name(unsigned id);

#endif
