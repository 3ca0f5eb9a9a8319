/*
 * mica_capture.h — the image's side of -mica: one execution of the
 * benchmark single-stepped (RFLAGS.TF) into a trace in the format of
 * lib/nb_trace_format.h, which tools/nb_mica analyses on the host.
 *
 * The generated code (bench_codegen.c, trace mode) sets TF just before the
 * traced region [start, stop): the late-init code and the unroll_count
 * copies with their loop. Every #DB enters its gate-1 stub, which saves the
 * registers and the vector state and calls mica_capture_step with the
 * state BEFORE the instruction at the frame's RIP (a single-step #DB is a
 * trap: SDM vol. 3B 18.3.1.4). The step appends one record; at `stop` it
 * appends the end record and clears TF in the frame.
 *
 * Instructions that would make the trace unfaithful stop it with an error
 * naming them (the trace up to them is kept): POPF and IRET (they may clear
 * TF), INT n/INT3/INTO/INT1, MOV/POP SS (they suppress the next #DB),
 * SYSCALL/SYSRET/SYSENTER/SYSEXIT, LGDT/LIDT and MOV to or from a debug
 * register (SDM vol. 3B 18.2, 18.3.1.4). PUSHF is traced faithfully: the TF
 * bit it pushed is cleared in memory before the next instruction runs.
 */
#ifndef MICA_CAPTURE_H
#define MICA_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_trace_format.h"

/* The registers the #DB stub hands over: GPRs by encoding (RSP slot unused), then the frame. */
enum mica_frame_slot {
    MICA_FRAME_RIP = 16,
    MICA_FRAME_CS,
    MICA_FRAME_RFLAGS,
    MICA_FRAME_RSP,
    MICA_FRAME_SS,
    MICA_FRAME_SLOTS
};

#define MICA_RFLAGS_TF (1ull << 8)

/* Where the last instruction bytes recorded for an address are kept. */
struct mica_seen {
    uint64_t rip; /* 0: free */
    uint8_t bytes[NB_TRACE_MAX_INSN_BYTES];
};

enum mica_stop {
    MICA_RUNNING = 0,
    MICA_STOPPED,       /* reached `stop`: the whole region is traced */
    MICA_TOO_LONG,      /* -mica_max_instructions reached */
    MICA_BUFFER_FULL,   /* the trace buffer could not take another record */
    MICA_REFUSED,       /* an instruction that cannot be traced faithfully */
};

struct mica_capture {
    uint8_t *buf; /* the records (the header is written by mica_capture_file_header) */
    size_t cap, len;
    uint64_t start, stop;
    uint64_t max_instructions, count;
    struct mica_seen *seen; /* open addressing, seen_cap a power of two; NULL: bytes in every record */
    size_t seen_cap;
    /* The previous record's state, for the deltas. */
    uint64_t prev_rip, prev_regs[NB_TRACE_NREGS];
    uint64_t first_rip;
    bool pushf_before; /* the previous instruction was PUSHF: clear the TF it pushed */
    enum mica_stop stopped;
    uint64_t end_rip;      /* where execution continued after the last record */
    const char *refused;   /* the instruction's name when MICA_REFUSED */
};

/* Prepares `c` for a region; buf/cap and seen/seen_cap are the caller's memory (seen zeroed). */
void mica_capture_begin(struct mica_capture *c, uint8_t *buf, size_t cap, struct mica_seen *seen,
                        size_t seen_cap, uint64_t start, uint64_t stop, uint64_t max_instructions);
/* The one capture the #DB stub feeds (set by the caller around the traced run). */
extern struct mica_capture *mica_capture_current;
/* Called by the #DB stub with frame[MICA_FRAME_SLOTS]; may clear TF in frame[MICA_FRAME_RFLAGS]. */
void mica_capture_step(uint64_t *frame);
/*
 * The encoder alone, for tracers that are not a #DB handler (tools/nb_mica's
 * ptrace capture): appends the record of the instruction at `rip` with the
 * registers before it (NB_TRACE_NREGS, RFLAGS as the code sees it) and the
 * NB_TRACE_MAX_INSN_BYTES bytes at rip. The caller checks that
 * MICA_CAPTURE_RECORD_MAX bytes are free (and may empty buf between records:
 * only the deltas' state is kept in `c`).
 */
void mica_capture_append(struct mica_capture *c, uint64_t rip, const uint64_t *regs, const uint8_t *bytes);
/* The longest record: tag, RIP delta, 1 + 15 bytes, mask, 17 values of at most 10 bytes each. */
#define MICA_CAPTURE_RECORD_MAX (1 + 10 + 1 + NB_TRACE_MAX_INSN_BYTES + 3 + NB_TRACE_NREGS * 10)
#define MICA_CAPTURE_END_RECORD_SIZE 9
/* After the run: a run that ended otherwise (fault, timeout) ends the trace at `rip`. */
void mica_capture_end(struct mica_capture *c, uint64_t rip);
/* Appends the end record (after mica_capture_end or a stop). False when it does not fit. */
bool mica_capture_finish(struct mica_capture *c);
/*
 * The 64-byte file header (lib/nb_trace_format.h) for this capture: FS/GS
 * bases, the end reason and, for a fault, its vector.
 */
void mica_capture_file_header(const struct mica_capture *c, uint8_t out[NB_TRACE_HEADER_SIZE], uint64_t fs_base,
                              uint64_t gs_base, bool fault, uint32_t vector);

/* True for a REP/REPE/REPNE-prefixed string instruction at `bytes`. */
bool mica_is_rep_string(const uint8_t *bytes);
/* The name of an instruction the trace cannot follow at `bytes`, or NULL. */
const char *mica_untraceable(const uint8_t *bytes, bool *is_pushf);

#endif
