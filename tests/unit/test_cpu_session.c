/*
 * test_cpu_session.c — -cpu N: processor N's session begun in ONE firmware
 * call to N and ended in one (cpu_session.h), on a fake Skylake (perfmon
 * v4, 4 counters, 3 fixed) with the image's cpu_map.txt and
 * ctr_Skylake.txt, whose counters and CR4 exist only in this fake.
 *
 * The reference is the same begin and end run in place on processor 1
 * (every access through the forwarding seam, as every begin and end was
 * before: 52 calls to processor 1 to begin on this machine, 20 to end): the
 * lines must be the same, in the same order, and so must the state left
 * behind.
 */
#include "bench_counters.h"
#include "cpu_session.h"
#include "host_mp.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"
#include "pmu_msrs.h"
#include "xsave_state.h"

#include <stdio.h>
#include <string.h>

#define BENCH_CPU 1u
#define SAVED_EVTSEL 0x4300C0u  /* what the "firmware" left in IA32_PERFEVTSEL0 */
#define SAVED_CR4 0x20u         /* CR4.PAE only: the session adds OSFXSR and OSXMMEXCPT */

/* The probe's loop "retires" 2002 instructions on counter 0 while it is enabled. */
static void probe_counts(struct host_platform *h, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_PERF_GLOBAL_CTRL && value == 0 && host_msr_get(h, MSR_IA32_PERFEVTSEL0))
        host_msr_set(h, MSR_IA32_PMC0, 2002);
}

static void add_disk_file(struct host_platform *h, const char *image_path, const char *disk_path)
{
    static char text[1 << 17];
    FILE *f = fopen(disk_path, "r");
    if (!f)
        return;
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    host_fs_add_text(h, image_path, text);
}

/* Skylake client (family 6 model 0x5E) with FXSR (CPUID.1:EDX[24]) and CR4 access. */
static void skylake(struct host_platform *h)
{
    host_intel_perfmon_v4(h, 0x000506E3, (1u << 4) | (1u << 24));
    host_msr_set(h, MSR_IA32_PERFEVTSEL0, SAVED_EVTSEL);
    host_control_regs_enable(h, SAVED_CR4, 0);
    h->on_msr_write = probe_counts;
    host_mp_install(h, 2);
    host_mp_watch_pmu(h, BENCH_CPU);
    /* The local APIC ID of the processor asking: 10 + its number. */
    host_mp.apic_id_base = 10;
    h->p.apic_id = host_mp_apic_id;
    add_disk_file(h, CONFIG_MAP_PATH, "configs/cpu_map.txt");
    add_disk_file(h, "nanobench/configs/ctr_Skylake.txt", "configs/ctr_Skylake.txt");
}

struct outcome {
    char begin[8192], end[2048];
    unsigned begin_calls, end_calls, setup_calls, errors, begin_pmu_elsewhere, apic_id_calls;
    uint32_t apic_id;
    uint64_t cr4_during, cr4_after, evtsel_after;
    size_t allocs_left;
    int bad_frees;
    bool usable;
};

/* Begins and ends processor 1's session, with the boot processor `boot_cpu` and its ctr file `hint`. */
static void session(unsigned boot_cpu, const char *hint, struct outcome *out)
{
    static struct host_platform h;
    skylake(&h);
    host_mp.current = boot_cpu;
    size_t allocs_before = h.n_allocs;
    static struct report r;
    report_init(&r, &h.p);
    static struct cpu_session cs;
    memset(&cs, 0, sizeof(cs));
    /* The boot processor runs with AVX (XCR0 7): processor 1 says where it differs. */
    struct cpu_session_boot boot = { 7, LFENCE_INTEL, hint, 1000000000ull };

    host_text_reset(&h);
    host_mp.calls = host_mp.pmu_elsewhere = 0;
    cpu_session_begin(&cs, &h.p, BENCH_CPU, &boot, &r);
    snprintf(out->begin, sizeof(out->begin), "%s", host_text(&h));
    out->begin_calls = host_mp.calls;
    out->setup_calls = cs.setup_calls;
    out->begin_pmu_elsewhere = host_mp.pmu_elsewhere;
    out->usable = cs.env.usable;
    out->cr4_during = h.cr4;
    /* The NMI watcher's target (bench_run.c watch_begin) asks the forwarding seam: known already. */
    host_mp.calls = 0;
    out->apic_id = cs.cp.p.apic_id(cs.cp.p.ctx);
    out->apic_id_calls = host_mp.calls;

    host_text_reset(&h);
    host_mp.calls = 0;
    cpu_session_end(&cs, &h.p, &r);
    snprintf(out->end, sizeof(out->end), "%s", host_text(&h));
    out->end_calls = host_mp.calls;
    out->errors = r.n_errors;
    out->cr4_after = h.cr4;
    out->evtsel_after = host_msr_get(&h, MSR_IA32_PERFEVTSEL0);
    out->allocs_left = h.n_allocs - allocs_before;
    out->bad_frees = h.bad_frees;
    host_platform_free(&h);
}

static void same_as_in_place(const struct outcome *ref, const struct outcome *got)
{
    CHECK_EQ_STR(got->begin, ref->begin);
    CHECK_EQ_STR(got->end, ref->end);
    CHECK_EQ_INT(got->errors, ref->errors);
    CHECK_EQ_INT(got->usable, ref->usable);
    CHECK(got->cr4_during == ref->cr4_during);
    CHECK(got->cr4_after == SAVED_CR4);
    CHECK(got->evtsel_after == SAVED_EVTSEL);
    CHECK_EQ_INT(got->allocs_left, 0);
    CHECK_EQ_INT(got->bad_frees, 0);
    CHECK_EQ_INT(got->begin_pmu_elsewhere, 0);
}

NB_TEST(cpu_session_begins_in_one_call_and_ends_in_one)
{
    static struct outcome ref, got;
    session(BENCH_CPU, "configs/ctr_Skylake.txt", &ref); /* in place: the forwarded begin */
    REQUIRE(ref.usable);
    CHECK_EQ_INT(ref.errors, 0);
    CHECK(ref.cr4_during == (SAVED_CR4 | CR4_OSFXSR | CR4_OSXMMEXCPT));
    CHECK(ref.cr4_after == SAVED_CR4);
    CHECK(ref.evtsel_after == SAVED_EVTSEL);
    CHECK(strstr(ref.begin, "processor: 1 (APIC ID 0) of 2\nprocessor 1 xsave: ") == ref.begin);
    CHECK(strstr(ref.begin, "\nprocessor 1 xsave: "));
    CHECK(strstr(ref.begin, "\npmu: counter restrictions: configs/ctr_Skylake.txt ("));
    CHECK(strstr(ref.begin, "pmu: chosen by cpu_map.txt: intel family 0x6 model 0x5e"));

    session(0, "configs/ctr_Skylake.txt", &got);
    CHECK_EQ_INT(got.begin_calls, 1);
    CHECK_EQ_INT(got.setup_calls, 1);
    CHECK_EQ_INT(got.end_calls, 1);
    CHECK_EQ_INT(got.apic_id, 11);
    CHECK_EQ_INT(got.apic_id_calls, 0);
    same_as_in_place(&ref, &got);
    if (strcmp(got.begin, ref.begin))
        nb_test_note("in place:\n%s\none call:\n%s", ref.begin, got.begin);
}

/*
 * The boot processor's map line named no counter restrictions (a hybrid
 * part's other core kind): processor 1 asks for a file nobody read. Its
 * begin is undone there and run again with the file: three calls, and the
 * lines of the in-place begin, once.
 */
NB_TEST(cpu_session_reads_a_file_it_did_not_expect_and_begins_again)
{
    static struct outcome ref, got;
    session(BENCH_CPU, "", &ref);
    session(0, "", &got);
    CHECK_EQ_INT(got.begin_calls, 3);
    CHECK_EQ_INT(got.setup_calls, 3);
    CHECK_EQ_INT(got.end_calls, 1);
    same_as_in_place(&ref, &got);
    CHECK(strstr(got.begin, "refused") == NULL);
}
