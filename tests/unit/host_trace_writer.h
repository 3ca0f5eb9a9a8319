/*
 * host_trace_writer.h — a test-only writer of lib/nb_trace_format.h traces
 * (the image's capture is the real writer): round-trip tests and the
 * synthetic trace of the MICA speed benchmark use it.
 */
#ifndef HOST_TRACE_WRITER_H
#define HOST_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "nb_trace_format.h"

struct trace_writer {
    uint8_t *buf;
    size_t n, cap;
    uint64_t prev_rip;
    uint64_t regs[NB_TRACE_NREGS];
    uint64_t count;
};

/* Header with FS/GS bases and the first RIP; the count is patched by tw_end. */
void tw_begin(struct trace_writer *w, uint64_t fs_base, uint64_t gs_base, uint64_t start_rip);
/* One record; bytes NULL = no HAS_BYTES; only changed registers are written
 * (all of them on the first record). */
void tw_insn(struct trace_writer *w, uint64_t rip, const uint8_t *bytes, unsigned n_bytes,
             const uint64_t regs[NB_TRACE_NREGS]);
void tw_end(struct trace_writer *w, uint64_t end_rip);
void tw_free(struct trace_writer *w);

#endif
