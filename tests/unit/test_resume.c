/*
 * test_resume.c — a run survives a machine reset: the state file written
 * before each benchmark, and the next boot continuing the same run files
 * (only for the same suite and an unfinished run).
 */
#include "host_platform.h"
#include "nb_main.h"
#include "nb_resume.h"
#include "nb_test.h"

#include <stdio.h>
#include <string.h>

static const char SUITE[] = "defaults: -finish shutdown\n"
                            "a: -unroll_count 1 -n_measurements 1 -warm_up_count 0\n"
                            "killer: -unroll_count 1 -n_measurements 1 -warm_up_count 0\n"
                            "c: -unroll_count 1 -n_measurements 1 -warm_up_count 0\n";

static void machine(struct host_platform *h)
{
    host_platform_init(h);
    host_cli_trap_install();
    host_cpuid_set_vendor(h, "GenuineIntel", 1);
    host_cpuid_set(h, 1, 0, 0x00050654, 0, 0, 0);
    host_msr_fault(h, 0x8B);
    host_fs_add_text(h, NB_SUITE_PATH, SUITE);
    host_fs_add_dir(h, NB_RESULTS_DIR);
}

/* What the first boot left when `killer` (entry 2) reset the machine. */
static void interrupted_first_boot(struct host_platform *h, uint64_t hash, int done)
{
    host_fs_add_text(h, "nanobench/results/last-run", "1\n");
    host_fs_add_text(h, "nanobench/results/run-0001.txt", "nanoBench-EFI 0.1.0\n[a]\nRDTSC: 0.00\n");
    host_fs_add_text(h, "nanobench/results/run-0001.csv", "benchmark,event,value,min,max\na,RDTSC,0.00,,\n");
    char state[256];
    snprintf(state, sizeof(state),
             "nanobench-state 1\nrun 1\nsuite 0x%llx\nnext 2\nbenchmarks 1\nerrors 0\ndone %d\n",
             (unsigned long long)hash, done);
    host_fs_add_text(h, NB_STATE_PATH, state);
}

NB_TEST(resume_continues_the_interrupted_run)
{
    struct host_platform h;
    machine(&h);
    interrupted_first_boot(&h, resume_hash(SUITE, strlen(SUITE)), 0);
    nb_run_image(&h.p);
    const char *txt = host_fs_text(&h, "nanobench/results/run-0001.txt");
    REQUIRE(txt != NULL);
    CHECK(strstr(txt, "nanoBench-EFI 0.1.0\n[a]\nRDTSC: 0.00\nnanoBench-EFI 0.1.0\n"
                      "resumed: run 0001 continues after a machine reset\n"));
    CHECK(strstr(txt, "[killer]\nerror: machine reset while running\n[c]\nRDTSC: "));
    CHECK(strstr(txt, "nanoBench-EFI done: 3 benchmarks, 1 error, finish: shutdown\n"));
    CHECK(strstr(txt, "[a]\nRDTSC: 0.00\n") == strstr(txt, "[a]")); /* a is not run again */
    const char *csv = host_fs_text(&h, "nanobench/results/run-0001.csv");
    CHECK(strstr(csv, "a,RDTSC,0.00,,\nkiller,error,machine reset while running,,\nc,RDTSC,"));
    CHECK(host_fs_find(&h, "nanobench/results/run-0002.txt") == NULL);
    struct resume_state st;
    REQUIRE(resume_read(&h.p, &st));
    CHECK(st.done);
    CHECK_EQ_INT(st.next, 4);
    CHECK_EQ_INT(st.n_benchmarks, 3);
    CHECK_EQ_INT(st.n_errors, 1);
    host_platform_free(&h);
}

NB_TEST(resume_only_the_same_unfinished_suite)
{
    /* A different suite (hash) or a finished run: a new run, the old one untouched. */
    for (int variant = 0; variant < 2; variant++) {
        struct host_platform h;
        machine(&h);
        uint64_t hash = resume_hash(SUITE, strlen(SUITE));
        interrupted_first_boot(&h, variant == 0 ? hash ^ 1 : hash, variant == 0 ? 0 : 1);
        nb_run_image(&h.p);
        CHECK_EQ_STR(host_fs_text(&h, "nanobench/results/run-0001.txt"),
                     "nanoBench-EFI 0.1.0\n[a]\nRDTSC: 0.00\n");
        const char *second = host_fs_text(&h, "nanobench/results/run-0002.txt");
        REQUIRE(second != NULL);
        CHECK(strstr(second, "resumed") == NULL);
        CHECK(strstr(second, "nanoBench-EFI done: 3 benchmarks, 0 errors"));
        host_platform_free(&h);
    }
}

NB_TEST(resume_state_file_round_trip_and_garbage)
{
    struct host_platform h;
    machine(&h);
    struct resume_state st = { .run = 42, .suite_hash = 0xdeadbeefcafeull, .next = 7,
                               .n_benchmarks = 6, .n_errors = 2, .done = false };
    CHECK_EQ_INT(resume_write(&h.p, &st), NB_OK);
    struct resume_state back;
    REQUIRE(resume_read(&h.p, &back));
    CHECK_EQ_INT(back.run, 42);
    CHECK_EQ_U64(back.suite_hash, 0xdeadbeefcafeull);
    CHECK_EQ_INT(back.next, 7);
    CHECK_EQ_INT(back.n_errors, 2);
    CHECK(!back.done);
    host_fs_add_text(&h, NB_STATE_PATH, "nanobench-state 1\nrun zero\n");
    CHECK(!resume_read(&h.p, &back));
    host_fs_add_text(&h, NB_STATE_PATH, "something else\n");
    CHECK(!resume_read(&h.p, &back));
    CHECK_EQ_U64(resume_hash("", 0), 0xcbf29ce484222325ull); /* FNV-1a offset basis */
    CHECK_EQ_U64(resume_hash("a", 1), 0xaf63dc4c8601ec8cull);
    host_platform_free(&h);
}

/*
 * The durability window: a batched state (nb_resume.h) says the entries from
 * `next` on may have run. The next boot cuts the results files back to the
 * sizes the state recorded (a block written after them is dropped, it runs
 * again), runs `next` again in safe mode instead of calling it the culprit,
 * and writes the state before each benchmark from then on.
 */
NB_TEST(resume_batched_state_cuts_files_and_runs_again)
{
    struct host_platform h;
    machine(&h);
    uint64_t hash = resume_hash(SUITE, strlen(SUITE));
    static const char txt[] = "nanoBench-EFI 0.1.0\n[a]\nRDTSC: 0.00\n";
    static const char csv[] = "benchmark,event,value,min,max\na,RDTSC,0.00,,\n";
    host_fs_add_text(&h, "nanobench/results/last-run", "1\n");
    /* `killer`'s block made it to the files after the last commit, uncommitted. */
    host_fs_add_text(&h, "nanobench/results/run-0001.txt", "nanoBench-EFI 0.1.0\n[a]\nRDTSC: 0.00\n[killer]\nRDTSC: 9.00\n");
    host_fs_add_text(&h, "nanobench/results/run-0001.csv", "benchmark,event,value,min,max\na,RDTSC,0.00,,\nkiller,RDTSC,9.00,,\n");
    char state[320];
    snprintf(state, sizeof(state),
             "nanobench-state 1\nrun 1\nsuite 0x%llx\nnext 2\nbenchmarks 1\nerrors 0\ndone 0\n"
             "batched 1\ntxt %zu\ncsv %zu\n",
             (unsigned long long)hash, strlen(txt), strlen(csv));
    host_fs_add_text(&h, NB_STATE_PATH, state);
    nb_run_image(&h.p);
    const char *out = host_fs_text(&h, "nanobench/results/run-0001.txt");
    REQUIRE(out != NULL);
    CHECK(strncmp(out, txt, strlen(txt)) == 0);
    CHECK(strstr(out, "resumed: run 0001 continues after a machine reset; benchmarks whose results "
                      "were not saved yet run again\n"));
    CHECK(strstr(out, "RDTSC: 9.00") == NULL);          /* the uncommitted block is gone */
    CHECK(strstr(out, "machine reset while running") == NULL); /* killer ran again */
    CHECK(strstr(out, "[killer]\nRDTSC: "));
    CHECK(strstr(out, "nanoBench-EFI done: 3 benchmarks, 0 errors, finish: shutdown\n"));
    const char *outcsv = host_fs_text(&h, "nanobench/results/run-0001.csv");
    CHECK(strncmp(outcsv, csv, strlen(csv)) == 0);
    CHECK(strstr(outcsv, "killer,RDTSC,9.00") == NULL);
    struct resume_state st;
    REQUIRE(resume_read(&h.p, &st));
    CHECK(st.done);
    CHECK(!st.batched);
    CHECK_EQ_INT(st.n_benchmarks, 3);
    host_platform_free(&h);
}

/*
 * A normal run commits in windows: the state written before the first
 * benchmark is batched and names the durable sizes of both files, and the
 * files then hold exactly those bytes (the blocks after it wait in memory).
 */
static unsigned state_writes;
static char first_state[512];
static uint64_t txt_at_first_state;

static void watch_state(struct host_platform *h, const char *path)
{
    if (strcmp(path, NB_STATE_PATH) != 0 || state_writes++ > 0)
        return;
    const char *t = host_fs_text(h, NB_STATE_PATH);
    snprintf(first_state, sizeof(first_state), "%s", t ? t : "");
    const char *txt = host_fs_text(h, "nanobench/results/run-0001.txt");
    txt_at_first_state = txt ? strlen(txt) : 0;
}

NB_TEST(resume_normal_run_commits_in_windows)
{
    struct host_platform h;
    machine(&h);
    /* A known TSC frequency (2.4 GHz from CPUID.15H); the fake TSC stands still meanwhile. */
    host_cpuid_set_vendor(&h, "GenuineIntel", 0x15);
    host_cpuid_set(&h, 0x15, 0, 1, 100, 24000000, 0);
    state_writes = 0;
    h.on_file_closed = watch_state;
    nb_run_image(&h.p);
    /* One state before the run and one at its end: the 3 benchmarks fit in one window. */
    CHECK_EQ_INT(state_writes, 2);
    CHECK(strstr(first_state, "next 0\n"));
    CHECK(strstr(first_state, "batched 1\n"));
    char want[64];
    snprintf(want, sizeof(want), "txt %llu\n", (unsigned long long)txt_at_first_state);
    CHECK(strstr(first_state, want));
    struct resume_state st;
    REQUIRE(resume_read(&h.p, &st));
    CHECK(st.done);
    host_platform_free(&h);

    /* Without a TSC frequency there is no window to measure: every benchmark commits. */
    machine(&h);
    state_writes = 0;
    h.on_file_closed = watch_state;
    nb_run_image(&h.p);
    CHECK_EQ_INT(state_writes, 1 + 4 + 1);
    host_platform_free(&h);
}
