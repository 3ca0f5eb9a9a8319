/*
 * bench_mica.c — trace a benchmark and write its trace file (see bench_mica.h).
 */
#include "bench_mica.h"
#include "nb_crc32.h"
#include "nb_text.h"
#include "result_path.h"

/* Records: about 24 bytes per instruction at most on average; 256 MiB at most, halved until it fits. */
#define RECORD_BYTES_PER_INSTRUCTION 24u
#define RECORDS_MAX (256u << 20)
#define RECORDS_MIN (64u << 10)
/* Distinct instruction addresses remembered for the bytes (each 24 bytes). */
#define SEEN_ENTRIES (1u << 16)

static const char *file_name(const char *path)
{
    const char *slash = path;
    for (const char *c = path; *c; c++)
        if (*c == '/')
            slash = c + 1;
    return slash;
}

static int write_trace(const struct nb_platform *p, const char *path, const uint8_t *header,
                       const struct mica_capture *cap)
{
    struct nb_file *f;
    int st = p->create_file(p->ctx, path, &f);
    if (st != NB_OK)
        return st;
    st = p->write_file(p->ctx, f, header, NB_TRACE_HEADER_SIZE);
    if (st == NB_OK)
        st = p->write_file(p->ctx, f, cap->buf, cap->len);
    if (st == NB_OK)
        st = p->flush_file(p->ctx, f);
    p->close_file(p->ctx, f);
    return st;
}

/* What is traced, and how it is named: -mica or -debug_trace. */
struct trace_kind {
    const char *option;     /* "-mica" */
    const char *max_option; /* "-mica_max_instructions" */
    const char *suffix;     /* ".trace" */
    int64_t max_instructions;
    bool from_init;
};

static void report_stop(struct report *r, const struct mica_capture *cap, const struct trace_kind *k,
                        size_t records_cap)
{
    unsigned long long at = (unsigned long long)(cap->end_rip - cap->start);
    switch (cap->stopped) {
    case MICA_REFUSED:
        report_error(r, "%s: %s at traced code+0x%llx cannot be single-stepped faithfully; the "
                        "trace stops there (%llu instruction%s)",
                     k->option, cap->refused, at, (unsigned long long)cap->count, cap->count == 1 ? "" : "s");
        break;
    case MICA_TOO_LONG:
        report_error(r, "%s: more than %s %lld instructions; the trace stops "
                        "at traced code+0x%llx",
                     k->option, k->max_option, (long long)k->max_instructions, at);
        break;
    case MICA_BUFFER_FULL:
        report_error(r, "%s: the trace memory (%llu KiB) is full after %llu instructions; lower "
                        "%s or -unroll_count",
                     k->option, (unsigned long long)(records_cap >> 10), (unsigned long long)cap->count,
                     k->max_option);
        break;
    default:
        break;
    }
}

static void trace_run(struct report *r, struct bench_context *c, const struct bench_options *o,
                      const struct bench_code *code, const char *name, const struct trace_kind *k)
{
    const struct nb_platform *p = c->p;
    if (!r->files_ok) {
        report_error(r, "%s: the trace needs the results folder on the medium, which cannot be written", k->option);
        return;
    }
    struct bench_trace_memory mem = { 0 };
    mem.from_init = k->from_init;
    mem.max_instructions = k->max_instructions;
    mem.option = k->option;
    uint64_t want = (uint64_t)k->max_instructions * RECORD_BYTES_PER_INSTRUCTION + 4096;
    mem.records_cap = want < RECORDS_MAX ? (size_t)want : RECORDS_MAX;
    while (!(mem.records = p->alloc_data(p->ctx, mem.records_cap)) && mem.records_cap > RECORDS_MIN)
        mem.records_cap /= 2;
    mem.seen_cap = SEEN_ENTRIES;
    mem.seen = p->alloc_data(p->ctx, mem.seen_cap * sizeof(struct mica_seen));
    if (!mem.records || !mem.seen) {
        report_error(r, "%s: cannot allocate memory for the trace", k->option);
        goto out;
    }
    static struct mica_capture cap;
    struct bench_trace_end end;
    char error[200] = "";
    int st = bench_trace(c, o, code, &cap, &mem, &end, error, sizeof(error));
    if (st != NB_OK && st != NB_EFAULT) {
        report_error(r, "%s", error);
        goto out;
    }
    if (st == NB_EFAULT)
        report_error(r, "%s", error);
    report_stop(r, &cap, k, mem.records_cap);
    /* Where FS:/GS: operands point (for the host's address computation), read where the code ran. */
    uint8_t header[NB_TRACE_HEADER_SIZE];
    mica_capture_file_header(&cap, header, end.fs_base, end.gs_base, end.fault, end.vector);
    /* -debug_trace: the reserved word names the sentinel record (lib/nb_trace_format.h). */
    for (int b = 0; b < 8; b++)
        header[NB_TRACE_SENTINEL_OFFSET + b] = (uint8_t)(end.sentinel >> (8 * b));
    char path[128];
    result_path(r, name, k->suffix, path, sizeof(path));
    if (write_trace(p, path, header, &cap) != NB_OK) {
        report_error(r, "%s: cannot write %s", k->option, path);
        goto out;
    }
    uint32_t crc = nb_crc32(nb_crc32(0, header, sizeof(header)), cap.buf, cap.len);
    if (k->from_init) {
        /* The sentinel record is not a step of the code. */
        uint64_t steps = cap.count - (cap.stopped == MICA_STOPPED && end.sentinel && cap.count ? 1 : 0);
        report_line(r, "steps: %s steps %llu bytes %llu crc32 %08x", file_name(path), (unsigned long long)steps,
                    (unsigned long long)(NB_TRACE_HEADER_SIZE + cap.len), crc);
    } else {
        report_line(r, "trace: %s instructions %llu bytes %llu crc32 %08x", file_name(path),
                    (unsigned long long)cap.count, (unsigned long long)(NB_TRACE_HEADER_SIZE + cap.len), crc);
    }
out:
    if (mem.records)
        p->free_mem(p->ctx, mem.records, mem.records_cap);
    if (mem.seen)
        p->free_mem(p->ctx, mem.seen, mem.seen_cap * sizeof(struct mica_seen));
}

void bench_mica_run(struct report *r, struct bench_context *c, const struct bench_options *o,
                    const struct bench_code *code, const char *name)
{
    struct trace_kind k = { "-mica", "-mica_max_instructions", ".trace", o->mica_max_instructions, false };
    trace_run(r, c, o, code, name, &k);
}

void bench_debug_trace_run(struct report *r, struct bench_context *c, const struct bench_options *o,
                           const struct bench_code *code, const char *name)
{
    struct trace_kind k = { "-debug_trace", "-debug_max_instructions", "-steps.trace",
                            o->debug_max_instructions, true };
    trace_run(r, c, o, code, name, &k);
}
