/*
 * cpu_session.c — processor N's session begun and ended in one call each (see cpu_session.h).
 */
#include "cpu_session.h"
#include "nb_paths.h"
#include "nb_text.h"

struct setup_args {
    struct cpu_session *cs;
    const struct cpu_session_boot *boot;
    struct report *r;
};

/* The whole begin, on N through p (N's own seam, or the forwarding one in place). */
static void setup_here(const struct nb_platform *p, void *arg)
{
    struct setup_args *a = arg;
    struct cpu_session *cs = a->cs;
    machine_identify(p, &cs->m);
    uint32_t regs[4];
    p->cpuid(p->ctx, 1, 0, regs);
    /* CPUID.01H:EBX[31:24] is the initial APIC ID of the processor that executed it. */
    cs->apic_id = regs[1] >> 24;
    core_kind_read(p, &cs->kind);
    /* Kept for the NMI watcher's target (bench_run.c watch_begin): no call to N for it later. */
    if (p != &cs->cp.p && p->apic_id) {
        cs->cp.apic_id = p->apic_id(p->ctx);
        cs->cp.apic_id_known = true;
    }
    report_line(a->r, "processor: %u (APIC ID %u) of %u", cs->cpu, cs->apic_id, nb_cpu_count(p));
    /* CR4 and XCR0 are per processor: N gets the same state as the boot processor. */
    xsave_session_begin(&cs->xsave, p);
    if (cs->xsave.xcr0 != a->boot->xcr0) {
        char line[160];
        xsave_describe(&cs->xsave, p->ring0, line, sizeof(line));
        report_line(a->r, "processor %u %s", cs->cpu, line);
    }
    /* DE_CFG is per processor too (AMD): N serialises LFENCE like the boot processor. */
    lfence_session_begin(&cs->lfence, p, &cs->m);
    if (cs->lfence.state != a->boot->lfence) {
        char line[200];
        lfence_describe(&cs->lfence, line, sizeof(line));
        report_line(a->r, "processor %u %s", cs->cpu, line);
    }
    counters_init(&cs->env, p, &cs->m, a->r);
}

/* The whole end, on N through p: counters, DE_CFG and XSAVE state as the begin found them. */
static void end_here(const struct nb_platform *p, void *arg)
{
    struct cpu_session *cs = arg;
    cs->env.p = p;
    cs->env.session.p = p;
    counters_finish(&cs->env);
    lfence_session_end(&cs->lfence, p);
    xsave_session_end(&cs->xsave, p);
}

/* From now on the session's calls go through N's forwarding seam (one call per benchmark uses its own). */
static void use_forwarding(struct cpu_session *cs)
{
    cs->env.p = &cs->cp.p;
    cs->env.session.p = &cs->cp.p;
}

static void refused_warning(struct report *r, unsigned cpu, unsigned refused, const char *where)
{
    if (refused)
        report_line(r, "warning: processor %u: %u firmware call%s refused during %s there", cpu, refused,
                    refused == 1 ? " was" : "s were", where);
}

/* The seam for one call to N: the files and memory the begin asks for, read and allocated here. */
static void prepare_local(struct cpu_session *cs, const struct nb_platform *base, const struct cpu_session_boot *boot,
                          char missed[][160], unsigned n_missed)
{
    struct cpu_local *l = &cs->measure.local;
    cpu_local_init(l, base, cs->cpu, boot->tsc_hz);
    cpu_local_add_file(l, CONFIG_MAP_PATH);
    if (boot->ctr_rules_path && boot->ctr_rules_path[0]) {
        char path[160];
        nb_snprintf(path, sizeof(path), NB_DIR "/%s", boot->ctr_rules_path);
        cpu_local_add_file(l, path);
    }
    for (unsigned i = 0; i < n_missed; i++)
        cpu_local_add_file(l, missed[i]);
    size_t sizes[COUNTERS_INIT_BLOCKS];
    bool exec[COUNTERS_INIT_BLOCKS];
    size_t n = counters_init_blocks(sizes, exec);
    /* A block the firmware cannot give is refused on N, as counters_init's allocation would have failed. */
    for (size_t i = 0; i < n; i++)
        cpu_local_add_block(l, sizes[i], exec[i]);
}

void cpu_session_begin(struct cpu_session *cs, const struct nb_platform *base, unsigned cpu,
                       const struct cpu_session_boot *boot, struct report *r)
{
    cpu_platform_init(&cs->cp, base, cpu);
    cs->cpu = cpu;
    cs->tsc_hz = boot->tsc_hz;
    cs->setup_calls = 0;
    cs->active = true;
    struct setup_args a = { cs, boot, r };
    if (cpu == nb_current_cpu(base)) {
        setup_here(&cs->cp.p, &a);
        return;
    }
    char missed[CPU_LOCAL_FILES][160];
    unsigned n_missed = 0;
    for (;;) {
        struct cpu_local *l = &cs->measure.local;
        prepare_local(cs, base, boot, missed, n_missed);
        unsigned errors = r->n_errors;
        struct report_tape tape;
        int st = cpu_measure_call(&cs->measure, base, cpu, r, setup_here, &a, &tape);
        if (st == NB_ENOMEM) {
            /* No room for its lines: every access forwarded, as many calls as it takes. */
            cpu_local_finish(l);
            setup_here(&cs->cp.p, &a);
            return;
        }
        cs->setup_calls++;
        if (st == NB_OK && l->n_missed && !n_missed) {
            /*
             * N asked for a file nobody expected (its map line is not the boot
             * processor's): undo the begin there, forget its lines, read the
             * file and begin again.
             */
            for (; n_missed < l->n_missed; n_missed++)
                nb_snprintf(missed[n_missed], sizeof(missed[0]), "%s", l->missed[n_missed]);
            cpu_local_finish(l);
            cpu_local_init(l, base, cpu, boot->tsc_hz);
            struct report_tape end_tape;
            if (cpu_measure_call(&cs->measure, base, cpu, r, end_here, cs, &end_tape) == NB_OK)
                cs->setup_calls++;
            cpu_local_finish(l);
            r->n_errors = errors;
            continue;
        }
        report_tape_replay(r, &tape);
        if (st != NB_OK) {
            report_error(r, "processor %u cannot be set up (the firmware refused the call)", cpu);
            nb_memset(&cs->env, 0, sizeof(cs->env));
            nb_snprintf(cs->env.why, sizeof(cs->env.why), "processor %u could not be set up", cpu);
            cs->env.report = r;
        }
        refused_warning(r, cpu, l->refused, "its setup");
        cpu_local_finish(l);
        use_forwarding(cs);
        return;
    }
}

void cpu_session_end(struct cpu_session *cs, const struct nb_platform *base, struct report *r)
{
    if (!cs->active)
        return;
    struct cpu_local *l = &cs->measure.local;
    struct report_tape tape;
    int st = NB_EINVAL;
    if (cs->cpu != nb_current_cpu(base)) {
        cpu_local_init(l, base, cs->cpu, cs->tsc_hz);
        st = cpu_measure_call(&cs->measure, base, cs->cpu, r, end_here, cs, &tape);
        if (st != NB_ENOMEM)
            report_tape_replay(r, &tape);
        if (st != NB_OK && st != NB_ENOMEM)
            report_line(r, "warning: processor %u: the firmware refused the call that restores its counters, "
                           "DE_CFG and XSAVE state", cs->cpu);
        refused_warning(r, cs->cpu, l->refused, "its session's end");
        cpu_local_finish(l);
    }
    if (st != NB_OK) {
        /* In place, or without the one call: every access forwarded (and the memory freed). */
        end_here(&cs->cp.p, cs);
    }
    use_forwarding(cs);
    cpu_measure_free(&cs->measure, base);
    cs->active = false;
}
