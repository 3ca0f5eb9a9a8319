/*
 * test_cpu_measure.c — -cpu N with a large config: Skylake's _all_core
 * config (289 events, more than 73 counter groups on 4 general-purpose
 * counters) measured on processor 1 through the fake seam, with a scripted
 * PMU that exists only there and a firmware whose every call to the other
 * processor costs 100 ms of TSC time (EDK II wakes an AP from HLT with
 * INIT-SIPI-SIPI; under QEMU each such round trip takes tens of ms).
 *
 * Every group must run and print a result, and the whole measurement is
 * ONE call to processor 1 (cpu_measure.h), the processor's session one
 * call to begin and one to end (cpu_session.h): before, each group was one call
 * that programmed it and one that generated and ran its stages, 2 x 93
 * calls, 18.6 s of round trips against a -timeout of 10 s that counts only
 * the benchmark's code.
 */
#include "bench_counters.h"
#include "cpu_measure.h"
#include "cpu_platform.h"
#include "cpu_session.h"
#include "host_mp.h"
#include "host_platform.h"
#include "machine.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_msrs.h"

#include <stdio.h>
#include <string.h>

#define BENCH_CPU 1u
#define TSC_HZ 1000000000ull
#define CALL_COST (TSC_HZ / 10) /* 100 ms per call to the other processor */
#define RUN_COST 1000u          /* TSC ticks per run of the code */

static struct host_platform *machine;
static unsigned runs_elsewhere;
static int main_runs;
/* Every call to the other processor costs CALL_COST of TSC time. */
static void call_cost(unsigned cpu)
{
    (void)cpu;
    machine->tsc += CALL_COST;
}

/* The probe's loop "retires" 2002 instructions on counter 0 while it is enabled. */
static void probe_counts(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
}

/* Every enabled counter counts 1 event per copy of the main code; the TSC 2 ticks. */
static void fake_run(void *arg, struct codegen_data *data, const struct counter_read *reads, size_t n_reads,
                     int64_t copies)
{
    (void)arg;
    if (host_mp.current != BENCH_CPU)
        runs_elsewhere++;
    machine->tsc += RUN_COST;
    if (copies == 200)
        main_runs++;
    uint64_t global = host_msr_get(machine, MSR_IA32_PERF_GLOBAL_CTRL);
    for (size_t k = 0; k < n_reads; k++) {
        const struct counter_read *r = &reads[k];
        uint64_t n = (uint64_t)copies;
        if (r->kind == READ_TSC) {
            n = 2 * (uint64_t)copies;
        } else if (r->kind == READ_PMC && (r->ecx & RDPMC_FIXED)) {
            unsigned i = r->ecx & 0xFF;
            uint64_t ctrl = host_msr_get(machine, MSR_IA32_FIXED_CTR_CTRL) >> (4 * i);
            if (!(ctrl & (FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR)) ||
                !(global >> (GLOBAL_CTRL_FIXED_SHIFT + i) & 1))
                n = 0;
        } else if (r->kind == READ_PMC) {
            uint64_t sel = host_msr_get(machine, MSR_IA32_PERFEVTSEL0 + r->ecx);
            if (!(sel & PERFEVTSEL_EN) || !(global >> r->ecx & 1))
                n = 0;
        }
        data->m1[k] = 5000;
        data->m2[k] = 5000 + n + 17; /* the reads' own events cancel out */
    }
}

/* Skylake client (family 6 model 0x5E): perfmon v4, 4 counters and 3 fixed of 48 bits. */
static void skylake(struct host_platform *h)
{
    host_intel_perfmon_v4(h, 0x000506E3, 1u << 4);
    h->on_msr_write = probe_counts;
    host_mp_install(h, 2);
    host_mp.wake = call_cost;
    host_mp_watch_pmu(h, BENCH_CPU);
}

/* The config's event names, in order (lines that are not comments or blank). */
static size_t config_names(const char *text, char names[][96], size_t max)
{
    size_t n = 0;
    for (const char *line = text; *line && n < max;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len && line[0] != '#') {
            const char *space = memchr(line, ' ', len);
            if (space)
                snprintf(names[n++], sizeof(names[0]), "%.*s", (int)(len - (size_t)(space + 1 - line)),
                         space + 1);
        }
        line += len + (end ? 1 : 0);
    }
    return n;
}

NB_TEST(cpu_measure_every_group_of_a_large_config_on_another_processor)
{
    static char text[1 << 16];
    FILE *f = fopen("configs/cfg_Skylake_all_core.txt", "r");
    REQUIRE(f != NULL);
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    static char names[400][96];
    size_t n_events = config_names(text, names, 400);
    REQUIRE(n_events == 289);

    static struct host_platform h;
    skylake(&h);
    machine = &h;
    host_mp.current = 0;
    host_fs_add_text(&h, "nanobench/cfg.txt", text);

    static struct report r;
    report_init(&r, &h.p);
    /*
     * Processor 1's session (once per suite and processor: identify it, set
     * its XSAVE and DE_CFG state, detect, probe and save its PMU): one call
     * (cpu_session.h); forwarded access by access it was 45 with this PMU.
     */
    host_mp.calls = 0;
    host_mp.pmu_elsewhere = 0;
    static struct cpu_session cs;
    struct cpu_session_boot boot = { 0, LFENCE_INTEL, "", TSC_HZ };
    cpu_session_begin(&cs, &h.p, BENCH_CPU, &boot, &r);
    struct counter_env *env = &cs.env;
    REQUIRE(env->usable);
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_INT(host_mp.pmu_elsewhere, 0);
    static struct bench_context bench;
    REQUIRE(bench_context_init(&bench, &h.p) == NB_OK);
    bench.cpu = BENCH_CPU;
    bench.cpu_p = &cs.cp.p;
    bench.fake_run = fake_run;
    bench.tsc_hz = TSC_HZ;
    struct bench_options o;
    bench_options_init(&o);
    o.config_path = "cfg.txt";
    o.unroll_count = 100;
    o.timeout = 10;
    static const uint8_t nop = 0x90;
    struct bench_code code = { 0 };
    code.part[PART_MAIN] = &nop;
    code.len[PART_MAIN] = 1;

    host_text_reset(&h);
    r.serial_seq = 0;
    host_mp.calls = 0;
    main_runs = 0;
    host_mp.pmu_elsewhere = runs_elsewhere = 0;
    cpu_measure_counters(&cs.measure, env, &bench, &o, &code, &r, &h.p, BENCH_CPU);
    const char *out = host_text(&h);

    /*
     * Every group ran its main run (5 warm-up and 10 kept runs): 93 groups
     * today (TakenAlone events and .CTR= pins split the 289 events further
     * than 289/4), never fewer than 73; the exact number is the scheduler's
     * business (test_pmu_constraints.c).
     */
    CHECK_EQ_INT(main_runs % 15, 0);
    CHECK(main_runs / 15 >= 73);
    CHECK(strstr(out, "error") == NULL);
    CHECK(strstr(out, "refused") == NULL);
    CHECK(strstr(out, "RDTSC: 2.00\n") == out);
    for (size_t i = 0; i < n_events; i++) {
        char line[128];
        snprintf(line, sizeof(line), "\n%s: 1.00\n", names[i]);
        if (!CHECK(strstr(out, line) != NULL))
            nb_test_note("no result for %s", names[i]);
    }
    /* One firmware call for the whole benchmark, every group in it. */
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_INT(host_mp.pmu_elsewhere, 0);
    CHECK_EQ_INT(runs_elsewhere, 0);
    if (strstr(out, "error"))
        nb_test_note("%.600s", strstr(out, "error"));

    /* The session's end (every counter restored): one call too. */
    host_mp.calls = 0;
    cpu_session_end(&cs, &h.p, &r);
    CHECK_EQ_INT(host_mp.calls, 1);
    bench_context_free(&bench);
    host_platform_free(&h);
}
