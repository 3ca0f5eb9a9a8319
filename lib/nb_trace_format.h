/*
 * nb_trace_format.h — the single-step trace file written by the image for
 * `-mica` and read by tools/nb_mica (also produced by nb_mica's own ptrace
 * capture). Any tracer that writes this format can feed the analyses.
 *
 * Version 1. Everything is little-endian.
 *
 * File = header (NB_TRACE_HEADER_SIZE bytes) + records + one end record.
 *
 * Header (offsets in bytes):
 *    0  char[8]  magic "NBTRACE\0"
 *    8  u32      version (NB_TRACE_VERSION)
 *   12  u32      header size (NB_TRACE_HEADER_SIZE; a reader skips what it
 *                does not know, so later versions may grow it)
 *   16  u64      number of instruction records
 *   24  u64      FS base while tracing
 *   32  u64      GS base while tracing
 *   40  u32      end reason (enum nb_trace_end)
 *   44  u32      exception vector when the end reason is NB_TRACE_END_FAULT
 *   48  u64      address where tracing started (first traced RIP)
 *   56  u64      0, or (-debug_trace) the address of a sentinel: the last
 *                record at that address is not an instruction of the code
 *                but the NOP after it, recorded for the registers after
 *                the last instruction (older readers ignore this word)
 *
 * Instruction record: the state *before* one executed instruction (a REP
 * string instruction gives one record per iteration, as the CPU single-steps
 * each iteration):
 *   u8      tag: NB_TRACE_TAG_INSN | optional NB_TRACE_HAS_BYTES | NB_TRACE_HAS_REGS
 *   sleb    RIP minus the previous record's RIP (the first record: minus 0)
 *   [HAS_BYTES]  u8 n (1..15), then n bytes: the instruction bytes at RIP.
 *                Present the first time an address executes and whenever the
 *                bytes there differ from the last ones recorded for it.
 *                A reader keeps the last bytes seen per address.
 *   [HAS_REGS]   uleb mask (bit i = register i below), then for each set bit,
 *                lowest first: uleb (new value XOR previous value).
 *                Registers not in the mask are unchanged. The first record
 *                carries every register (previous values are 0).
 * End record:
 *   u8      NB_TRACE_TAG_END
 *   u64     RIP where execution continued after the last record (lets a
 *           reader see whether the last instruction branched)
 *
 * uleb = unsigned LEB128 of a u64; sleb = signed LEB128 of an i64.
 * Register order follows the x86 encoding: RAX RCX RDX RBX RSP RBP RSI RDI
 * R8..R15, then RFLAGS (index 16).
 *
 * The serial log carries one line per trace file:
 *   trace: <file name> instructions <n> bytes <file size> crc32 <8 hex digits>
 * where crc32 is CRC-32/ISO-HDLC (zlib's crc32) of the whole file.
 */
#ifndef NB_TRACE_FORMAT_H
#define NB_TRACE_FORMAT_H

#define NB_TRACE_MAGIC "NBTRACE"     /* 8 bytes with its NUL */
#define NB_TRACE_VERSION 1u
#define NB_TRACE_HEADER_SIZE 64u
#define NB_TRACE_SENTINEL_OFFSET 56u

#define NB_TRACE_TAG_INSN 0x01u
#define NB_TRACE_HAS_BYTES 0x02u
#define NB_TRACE_HAS_REGS 0x04u
#define NB_TRACE_TAG_END 0x80u

#define NB_TRACE_MAX_INSN_BYTES 15u

enum nb_trace_reg {
    NB_TRACE_RAX, NB_TRACE_RCX, NB_TRACE_RDX, NB_TRACE_RBX,
    NB_TRACE_RSP, NB_TRACE_RBP, NB_TRACE_RSI, NB_TRACE_RDI,
    NB_TRACE_R8, NB_TRACE_R9, NB_TRACE_R10, NB_TRACE_R11,
    NB_TRACE_R12, NB_TRACE_R13, NB_TRACE_R14, NB_TRACE_R15,
    NB_TRACE_RFLAGS,
    NB_TRACE_NREGS
};

enum nb_trace_end {
    NB_TRACE_END_DONE = 0,          /* the traced code ran to its end */
    NB_TRACE_END_FAULT = 1,         /* an exception stopped it; vector in the header */
};

#endif
