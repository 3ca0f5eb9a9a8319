/*
 * test_mica_cpu.c — -mica on processor N: the traced run and the FS/GS
 * bases its trace header records are ONE firmware call to N (bench_run.c
 * run_traced), not a call for the run and one for each base MSR read
 * after it (EDK II wakes an AP with INIT-SIPI-SIPI on every call; see
 * cpu_measure.h).
 *
 * The single-stepped code cannot run in a host test (its #DB gate is the
 * image's): bench_context.fake_trace stands in for it, on the processor
 * the code would run on; everything else (the code generated, the capture
 * begun and ended, the trace file and its header written) is the image's.
 */
#include "bench_mica.h"
#include "cpu_platform.h"
#include "host_mp.h"
#include "host_platform.h"
#include "msr_names.h"
#include "nb_paths.h"
#include "nb_report.h"
#include "nb_test.h"

#include <stdio.h>
#include <string.h>

#define BENCH_CPU 1u
#define FS_BASE 0x7F0000001000ull
#define GS_BASE 0xFFFF800000002000ull

static unsigned traced_on = 99;

static void fake_trace(void *arg)
{
    (void)arg;
    traced_on = host_mp.current;
}

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

NB_TEST(mica_on_another_processor_is_one_call)
{
    static struct host_platform h;
    host_platform_init(&h);
    host_cpuid_set_vendor(&h, "GenuineIntel", 1);
    host_mp_install(&h, 2);
    host_msr_set(&h, MSR_IA32_FS_BASE, FS_BASE);
    host_msr_set(&h, MSR_IA32_GS_BASE, GS_BASE);
    host_fs_add_dir(&h, NB_RESULTS_DIR);
    static struct report r;
    report_init(&r, &h.p);
    report_open_files(&r);
    REQUIRE(r.files_ok);

    static struct cpu_platform cp;
    cpu_platform_init(&cp, &h.p, BENCH_CPU);
    static struct bench_context bench;
    REQUIRE(bench_context_init(&bench, &h.p) == NB_OK);
    bench.catch_faults = true; /* what the image has; the run itself is fake_trace */
    bench.cpu = BENCH_CPU;
    bench.cpu_p = &cp.p;
    bench.fake_trace = fake_trace;
    struct bench_options o;
    bench_options_init(&o);
    o.unroll_count = 2;
    o.mica = "all"; /* -mica all: a list of analyses (bench_options.h) */
    static const uint8_t nop = 0x90;
    struct bench_code code = { 0 };
    code.part[PART_MAIN] = &nop;
    code.len[PART_MAIN] = 1;

    host_text_reset(&h);
    host_mp.current = 0;
    host_mp.calls = 0;
    bench_mica_run(&r, &bench, &o, &code, "a");
    const char *out = host_text(&h);
    CHECK_EQ_INT(host_mp.calls, 1);
    CHECK_EQ_INT(traced_on, BENCH_CPU);
    CHECK(strstr(out, "trace: run-0001-a.trace instructions 0 bytes ") == out);
    CHECK_EQ_INT(r.n_errors, 0);
    const char *trace = host_fs_text(&h, NB_RESULTS_DIR "/run-0001-a.trace");
    REQUIRE(trace != NULL);
    /* The header's FS and GS bases (lib/nb_trace_format.h: bytes 24 and 32), read on processor 1. */
    CHECK(le64((const uint8_t *)trace + 24) == FS_BASE);
    CHECK(le64((const uint8_t *)trace + 32) == GS_BASE);
    if (strstr(out, "error"))
        nb_test_note("%s", out);

    bench_context_free(&bench);
    report_close(&r);
    host_platform_free(&h);
}
