/*
 * bench_debug.c — -debug around one benchmark (see bench_debug.h).
 */
#include "bench_debug.h"
#include "debug_dump.h"
#include "nb_text.h"
#include "result_path.h"

/* CPUID.(0DH, i).EBX: where component i starts in a standard-form XSAVE area (SDM vol. 1 13.4.3). */
static uint32_t component_offset(const struct nb_platform *p, uint64_t xcr0, unsigned i)
{
    if (!((xcr0 >> i) & 1))
        return 0;
    uint32_t regs[4];
    p->cpuid(p->ctx, 0xD, i, regs);
    return regs[1];
}

static bool gdb_breakpoint(void *arg, uint64_t addr)
{
    struct bench_debug *d = arg;
    return d->gdb && gdb_stub_has_breakpoint(d->gdb, addr);
}

/* At every stop (on the benchmark's processor): gdb's session, if it came or may still come. */
static void gdb_on_stop(struct debug_session *s, uint64_t *regs, uint8_t *xsave)
{
    struct bench_debug *d = s->on_stop_arg;
    struct gdb_stub *g = d->gdb;
    if (!g || g->detached)
        return;
    g->regs = regs;
    g->xsave = xsave;
    g->code_start = d->code_start;
    g->ranges[0] = (struct gdb_range){ d->exec_start, d->exec_end };
    bool came;
    enum gdb_action a = gdb_stub_session(g, s->read_tsc, s->tsc_ctx, d->gdb_wait_ticks, &came);
    if (a == GDB_STEP)
        s->stepping = true;
    if (!came)
        g->detached = true; /* nobody within -debug_wait: the suite goes on, the dump is written */
}

void bench_debug_path(const struct report *r, char *out, size_t cap)
{
    result_path(r, "debug", ".txt", out, cap);
}

bool bench_debug_begin(struct bench_debug *d, struct bench_context *c, const struct bench_options *o,
                       struct report *r, unsigned line)
{
    c->debug = NULL;
    if (!c->catch_faults) {
        report_error(r, "suite line %u: option -debug needs the image (ring 0)", line);
        return false;
    }
    if (o->debug_index >= o->n_measurements || o->debug_index < -o->warm_up_count) {
        char warm[64] = "no warm-up runs";
        if (o->warm_up_count)
            nb_snprintf(warm, sizeof(warm), "warm-ups -%lld..-1", (long long)o->warm_up_count);
        report_error(r, "suite line %u: option -debug_at: %s %lld does not exist (measurements 0..%lld, %s)",
                     line, o->debug_index < 0 ? "warm-up" : "measurement", (long long)o->debug_index,
                     (long long)o->n_measurements - 1, warm);
        return false;
    }
    const struct nb_platform *p = c->p;
    if (!d->cap)
        d->cap = p->alloc_data(p->ctx, sizeof(*d->cap));
    if (!d->save)
        d->save = p->alloc_data(p->ctx, DEBUG_SAVE_MAX);
    if (!d->cap || !d->save) {
        report_error(r, "suite line %u: option -debug: no memory for the capture (%llu bytes)", line,
                     (unsigned long long)(sizeof(*d->cap) + DEBUG_SAVE_MAX));
        return false;
    }
    d->on = true;
    d->group = o->debug_group;
    d->run = o->debug_run;
    d->index = o->debug_index;
    d->measures = 0;
    d->paused = 0;
    d->cap->taken = false;
    nb_memset(&d->session, 0, sizeof(d->session));
    d->gdb = NULL;
    if (o->debug_gdb) {
        static struct gdb_stub stub;
        nb_memset(&stub, 0, sizeof(stub));
        if (!debug_uart_init(&stub.uart, p, (uint16_t)o->debug_port)) {
            report_error(r, "suite line %u: option -debug_gdb: no UART at I/O port 0x%llx (-debug_port)", line,
                         (unsigned long long)o->debug_port);
            return false;
        }
        stub.xsave_mask = c->xsave_mask;
        stub.off_ymm = component_offset(p, c->xsave_mask, 2);
        stub.n_ranges = 1; /* [0]: the executable buffer, known at the stop */
        for (int a = 0; a < AREA_COUNT; a++)
            stub.ranges[stub.n_ranges++] = (struct gdb_range){
                (uint64_t)(uintptr_t)c->areas[a], (uint64_t)(uintptr_t)c->areas[a] + c->area_size[a] };
        d->gdb = &stub;
        d->gdb_wait_ticks = (uint64_t)o->debug_wait * c->tsc_hz;
        d->session.on_stop = gdb_on_stop;
        d->session.on_stop_arg = d;
        d->session.is_breakpoint = gdb_breakpoint;
        report_line(r, "debug: gdb's remote protocol on I/O port 0x%llx (115200 8N1) at the breakpoint; "
                       "waiting at most %lld s for gdb",
                    (unsigned long long)o->debug_port, (long long)o->debug_wait);
    }
    c->debug = d;
    return true;
}

struct dump_out {
    struct report *r;
    const struct nb_platform *p;
    struct nb_file *file;
    bool file_ok;
};

static void dump_line(void *arg, const char *text)
{
    struct dump_out *o = arg;
    report_serial_line(o->r, "debug: %s", text);
    if (o->file_ok) {
        char line[400];
        size_t n = nb_snprintf(line, sizeof(line) - 1, "%s", text);
        if (n > sizeof(line) - 2)
            n = sizeof(line) - 2;
        line[n++] = '\n';
        o->file_ok = o->p->write_file(o->p->ctx, o->file, line, n) == NB_OK;
    }
}

void bench_debug_end(struct bench_debug *d, struct bench_context *c, struct report *r, const char *name,
                     unsigned errors_before)
{
    c->debug = NULL;
    if (!d->on)
        return;
    d->on = false;
    if (d->gdb) {
        struct gdb_stub *g = d->gdb;
        gdb_stub_remove_breakpoints(g);
        gdb_stub_exited(g); /* a gdb waiting after continue hears that the benchmark is done */
        if (d->cap->taken && !g->attached)
            report_line(r, "debug: no debugger came within -debug_wait; the dump follows");
        d->gdb = NULL;
    }
    if (c->tsc_hz && d->paused >= c->tsc_hz)
        report_line(r, "debug: stopped %llu ms at the breakpoint; -timeout's budget was moved by as much",
                    (unsigned long long)(d->paused / (c->tsc_hz / 1000 ? c->tsc_hz / 1000 : 1)));
    if (!d->cap->taken) {
        if (r->n_errors == errors_before)
            report_error(r, "option -debug_at %lld:%s:%lld: the benchmark never got there (it measured %u "
                            "counter group%s)",
                         (long long)d->group, d->run ? "main" : "base", (long long)d->index, d->measures,
                         d->measures == 1 ? "" : "s");
        return;
    }
    const struct nb_platform *p = c->p;
    struct debug_dump_info info = { 0 };
    info.group = d->group;
    info.run = d->run;
    info.index = d->index;
    info.cpu = d->cpu;
    info.code_start = d->code_start;
    info.slot = d->slot;
    for (int a = 0; a < DEBUG_AREAS; a++)
        info.area_reg[a] = d->session.area_reg[a];
    info.xsave_mask = c->xsave_mask;
    info.off_ymm = component_offset(p, c->xsave_mask, 2);
    info.off_opmask = component_offset(p, c->xsave_mask, 5);
    info.off_zmm_hi256 = component_offset(p, c->xsave_mask, 6);
    info.off_hi16_zmm = component_offset(p, c->xsave_mask, 7);
    info.no_mem = d->no_mem;
    info.reads = d->reads;
    info.n_reads = d->n_reads;

    char path[96];
    bench_debug_path(r, path, sizeof(path));
    struct dump_out out = { r, p, NULL, false };
    if (r->files_ok && p->append_file(p->ctx, path, &out.file) == NB_OK) {
        out.file_ok = true;
        char head[96];
        size_t n = nb_snprintf(head, sizeof(head), "[%s]\n", name);
        out.file_ok = p->write_file(p->ctx, out.file, head, n) == NB_OK;
    }
    debug_dump(d->cap, &info, dump_line, &out);
    if (out.file) {
        if (out.file_ok)
            out.file_ok = p->flush_file(p->ctx, out.file) == NB_OK;
        p->close_file(p->ctx, out.file);
    }
    const char *file = path;
    for (const char *ch = path; *ch; ch++)
        if (*ch == '/')
            file = ch + 1;
    if (out.file_ok)
        report_line(r, "debug: machine state at the breakpoint in %s", file);
    else if (r->files_ok)
        report_error(r, "-debug: cannot write %s", path);
}
