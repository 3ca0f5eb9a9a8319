/*
 * bench_mica.c — trace a benchmark and write its trace file (see bench_mica.h).
 */
#include "bench_mica.h"
#include "nb_crc32.h"
#include "nb_text.h"

/* Records: about 24 bytes per instruction at most on average; 256 MiB at most, halved until it fits. */
#define RECORD_BYTES_PER_INSTRUCTION 24u
#define RECORDS_MAX (256u << 20)
#define RECORDS_MIN (64u << 10)
/* Distinct instruction addresses remembered for the bytes (each 24 bytes). */
#define SEEN_ENTRIES (1u << 16)
/* The bases of FS and GS (SDM vol. 4 table 2-2). */
#define MSR_IA32_FS_BASE 0xC0000100u
#define MSR_IA32_GS_BASE 0xC0000101u

/* nanobench/results/run-NNNN-<name>.trace: the run's .txt path with the name instead of ".txt". */
static void trace_path(const struct report *r, const char *name, char *out, size_t cap)
{
    size_t base = nb_strlen(r->txt_path);
    if (base >= 4)
        base -= 4;
    char safe[64];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof(safe); c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                  *c == '_' || *c == '-' || *c == '.';
        safe[n++] = ok ? *c : '_'; /* FAT long names refuse some characters */
    }
    safe[n] = '\0';
    nb_snprintf(out, cap, "%.*s-%s.trace", (int)base, r->txt_path, safe);
}

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

static void report_stop(struct report *r, const struct mica_capture *cap, const struct bench_options *o,
                        size_t records_cap)
{
    unsigned long long at = (unsigned long long)(cap->end_rip - cap->start);
    switch (cap->stopped) {
    case MICA_REFUSED:
        report_error(r, "-mica: %s at traced code+0x%llx cannot be single-stepped faithfully; the "
                        "trace stops there (%llu instruction%s)",
                     cap->refused, at, (unsigned long long)cap->count, cap->count == 1 ? "" : "s");
        break;
    case MICA_TOO_LONG:
        report_error(r, "-mica: more than -mica_max_instructions %lld instructions; the trace stops "
                        "at traced code+0x%llx",
                     (long long)o->mica_max_instructions, at);
        break;
    case MICA_BUFFER_FULL:
        report_error(r, "-mica: the trace memory (%llu KiB) is full after %llu instructions; lower "
                        "-mica_max_instructions or -unroll_count",
                     (unsigned long long)(records_cap >> 10), (unsigned long long)cap->count);
        break;
    default:
        break;
    }
}

void bench_mica_run(struct report *r, struct bench_context *c, const struct bench_options *o,
              const struct bench_code *code, const char *name)
{
    const struct nb_platform *p = c->p;
    if (!r->files_ok) {
        report_error(r, "-mica: the trace needs the results folder on the medium, which cannot be written");
        return;
    }
    struct bench_trace_memory mem = { 0 };
    uint64_t want = (uint64_t)o->mica_max_instructions * RECORD_BYTES_PER_INSTRUCTION + 4096;
    mem.records_cap = want < RECORDS_MAX ? (size_t)want : RECORDS_MAX;
    while (!(mem.records = p->alloc_data(p->ctx, mem.records_cap)) && mem.records_cap > RECORDS_MIN)
        mem.records_cap /= 2;
    mem.seen_cap = SEEN_ENTRIES;
    mem.seen = p->alloc_data(p->ctx, mem.seen_cap * sizeof(struct mica_seen));
    if (!mem.records || !mem.seen) {
        report_error(r, "-mica: cannot allocate memory for the trace");
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
    report_stop(r, &cap, o, mem.records_cap);
    /* Where FS:/GS: operands point (for the host's address computation); 0 when unreadable. */
    uint64_t fs = 0, gs = 0;
    c->cpu_p->read_msr(c->cpu_p->ctx, MSR_IA32_FS_BASE, &fs);
    c->cpu_p->read_msr(c->cpu_p->ctx, MSR_IA32_GS_BASE, &gs);
    uint8_t header[NB_TRACE_HEADER_SIZE];
    mica_capture_file_header(&cap, header, fs, gs, end.fault, end.vector);
    char path[128];
    trace_path(r, name, path, sizeof(path));
    if (write_trace(p, path, header, &cap) != NB_OK) {
        report_error(r, "-mica: cannot write %s", path);
        goto out;
    }
    uint32_t crc = nb_crc32(nb_crc32(0, header, sizeof(header)), cap.buf, cap.len);
    report_line(r, "trace: %s instructions %llu bytes %llu crc32 %08x", file_name(path),
                (unsigned long long)cap.count, (unsigned long long)(NB_TRACE_HEADER_SIZE + cap.len), crc);
out:
    if (mem.records)
        p->free_mem(p->ctx, mem.records, mem.records_cap);
    if (mem.seen)
        p->free_mem(p->ctx, mem.seen, mem.seen_cap * sizeof(struct mica_seen));
}
