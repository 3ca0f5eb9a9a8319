/*
 * mica_trace.h — reader of the single-step trace files of
 * lib/nb_trace_format.h (version 1). It undoes the delta encodings and keeps
 * the last instruction bytes seen per address; it checks everything a
 * damaged or truncated file can get wrong and says where, as
 * "FILE: byte offset N: what".
 *
 *   struct mica_trace t;
 *   if (mica_trace_open(&t, name, buf, size) < 0) puts(t.err);
 *   while ((rc = mica_trace_next(&t, &insn)) > 0) ...;   rc < 0: t.err
 */
#ifndef MICA_TRACE_H
#define MICA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica_map.h"
#include "nb_trace_format.h"

struct mica_trace_header {
    uint32_t version, header_size;
    uint64_t n_records;
    uint64_t fs_base, gs_base;
    uint32_t end_reason, vector;
    uint64_t start_rip;
};

struct mica_trace_insn {
    uint64_t rip;
    const uint64_t *regs;   /* NB_TRACE_NREGS values before the instruction */
    const uint8_t *bytes;   /* the last bytes recorded for rip; NULL if none ever */
    uint8_t n_bytes;
    bool bytes_changed;     /* this record carried bytes different from before */
};

struct mica_trace {
    const char *name;
    const uint8_t *buf;
    size_t size, pos;
    struct mica_trace_header h;
    uint64_t rip;
    uint64_t regs[NB_TRACE_NREGS];
    uint64_t n_read;
    bool done;
    uint64_t end_rip;       /* valid once mica_trace_next returned 0 */
    struct mica_map addr;   /* rip -> index into code[] */
    uint8_t (*code)[NB_TRACE_MAX_INSN_BYTES + 1]; /* [0] = length */
    size_t n_code, cap_code;
    char err[256];
};

/* Reads and checks the header. 0, or -1 with t->err. buf must outlive t. */
int mica_trace_open(struct mica_trace *t, const char *name, const uint8_t *buf, size_t size);
/* 1: one record in *out (valid until the next call); 0: the end record was
 * read and the file checked; -1: t->err. */
int mica_trace_next(struct mica_trace *t, struct mica_trace_insn *out);
void mica_trace_close(struct mica_trace *t);

#endif
