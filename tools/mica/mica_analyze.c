/*
 * mica_analyze.c — see mica_analyze.h. A record is decoded once the next one
 * (or the end record) is known, because whether a branch was taken is only
 * visible in the next RIP.
 */
#include "mica_analyze.h"

#include <stdio.h>
#include <string.h>

#include "mica_decode.h"

int mica_analyze(const char *name, const uint8_t *buf, size_t size, struct mica_run **runs,
                 size_t n_runs, uint64_t max_instructions, struct mica_trace_header *header,
                 char *err, size_t errlen)
{
    struct mica_trace t;
    struct mica_decoder d;
    int rc = -1;
    if (mica_trace_open(&t, name, buf, size) < 0) {
        snprintf(err, errlen, "%s", t.err);
        mica_trace_close(&t);
        return -1;
    }
    if (header)
        *header = t.h;
    if (max_instructions && t.h.n_records > max_instructions) {
        snprintf(err, errlen, "%s: %llu instructions, more than the limit of %llu "
                 "(-mica_max_instructions)", name, (unsigned long long)t.h.n_records,
                 (unsigned long long)max_instructions);
        mica_trace_close(&t);
        return -1;
    }
    mica_decoder_init(&d, t.h.fs_base, t.h.gs_base);
    d.nop_mem = n_runs ? mica_run_options(runs[0])->nop_mem : true;
    struct mica_trace_insn cur, next;
    uint64_t cur_regs[NB_TRACE_NREGS];
    uint8_t cur_bytes[NB_TRACE_MAX_INSN_BYTES];
    int more = mica_trace_next(&t, &cur);
    while (more > 0) {
        /* The reader reuses its buffers: keep what the decode of cur needs. */
        memcpy(cur_regs, cur.regs, sizeof(cur_regs));
        size_t n_bytes = cur.bytes ? cur.n_bytes : 0;
        if (n_bytes)
            memcpy(cur_bytes, cur.bytes, n_bytes);
        bool changed = cur.bytes_changed;
        uint64_t rip = cur.rip;
        more = mica_trace_next(&t, &next);
        if (more < 0)
            break;
        uint64_t next_rip = more > 0 ? next.rip : t.end_rip;
        struct mica_rec rec;
        char why[200];
        if (mica_decode(&d, rip, n_bytes ? cur_bytes : NULL, n_bytes, changed, cur_regs, next_rip,
                        &rec, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "%s: record %llu: %s", name, (unsigned long long)t.n_read - (more > 0),
                     why);
            goto out;
        }
        for (size_t i = 0; i < n_runs; i++)
            mica_run_record(runs[i], &rec);
        cur = next;
    }
    if (more < 0) {
        snprintf(err, errlen, "%s", t.err);
        goto out;
    }
    for (size_t i = 0; i < n_runs; i++)
        mica_run_finish(runs[i]);
    rc = 0;
out:
    mica_decoder_free(&d);
    mica_trace_close(&t);
    return rc;
}
