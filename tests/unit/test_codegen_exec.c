/*
 * test_codegen_exec.c — runs the generated measuring code for real, in user
 * mode (no CLI, RDTSC as the only counter), through bench_measure and the
 * fake platform, and counts what it executed.
 *
 * Benchmarks increment slots in the R14 area; bench_measure zeroes the areas
 * once at its start and not between runs, so after it returns every slot
 * holds the exact number of executions.
 */
#include "bench_codegen.h"
#include "bench_run.h"
#include "host_nasm.h"
#include "host_platform.h"
#include "nb_report.h"
#include "nb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpuid.h>
#include <x86intrin.h>

static const struct counter_read TSC_READ[] = { { READ_TSC, 0, "RDTSC", 64, 0, 0 } };

struct env {
    struct host_platform h;
    struct bench_context c;
    struct bench_code code;
    uint8_t *owned[PART_COUNT];
};

static bool env_init(struct env *x)
{
    memset(x, 0, sizeof(*x));
    host_platform_init(&x->h);
    if (bench_context_init(&x->c, &x->h.p) != NB_OK)
        return false;
    x->c.reads = TSC_READ;
    x->c.n_reads = 1;
    x->c.mask_interrupts = false;
    return true;
}

/* Assembles nasm source for one part of the benchmark (NULL source: no code). */
static bool env_part(struct env *x, enum code_part part, const char *source)
{
    free(x->owned[part]);
    x->owned[part] = NULL;
    x->code.part[part] = NULL;
    x->code.len[part] = 0;
    if (!source)
        return true;
    size_t len;
    uint8_t *bytes = host_nasm(&len, "%s", source);
    if (!bytes)
        return false;
    x->owned[part] = bytes;
    x->code.part[part] = bytes;
    x->code.len[part] = len;
    return true;
}

static void env_free(struct env *x)
{
    bench_context_free(&x->c);
    for (int p = 0; p < PART_COUNT; p++)
        free(x->owned[p]);
    host_platform_free(&x->h);
}

/* The 64-bit slot at `offset` from the middle of an area (where the register points). */
static uint64_t *slot(struct env *x, enum bench_area a, long offset)
{
    return (uint64_t *)(x->c.areas[a] + BENCH_AREA_SIZE / 2 + offset);
}

static uint64_t middle(struct env *x, enum bench_area a)
{
    return (uint64_t)(uintptr_t)(x->c.areas[a] + BENCH_AREA_SIZE / 2);
}

static int measure(struct env *x, const struct bench_options *o, struct bench_result *r)
{
    char error[200] = "";
    int st = bench_measure(&x->c, o, &x->code, r, error, sizeof(error));
    if (!CHECK_EQ_INT(st, NB_OK))
        nb_test_note("bench_measure: %s", error);
    return st;
}

NB_TEST(exec_counts_runs_copies_and_loops)
{
    static const struct {
        int64_t unroll, loop, warm, n, initial;
        bool basic;
    } cases[] = {
        { 1, 0, 0, 1, 0, false },  { 10, 0, 5, 10, 0, false }, { 7, 3, 2, 4, 0, false },
        { 5, 0, 1, 3, 2, false },  { 5, 4, 1, 3, 2, true },    { 3, 0, 0, 1, 0, true },
        { 1000, 0, 5, 10, 0, false }, { 2, 1, 0, 5, 3, false },
    };
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "inc qword [r14]"));
    REQUIRE(env_part(&x, PART_INIT, "inc qword [r14+8]"));
    REQUIRE(env_part(&x, PART_LATE_INIT, "inc qword [r14+16]"));
    REQUIRE(env_part(&x, PART_ONE_TIME_INIT, "inc qword [r14+24]"));
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        for (int df = 0; df <= 1; df++) {
            struct bench_options o;
            bench_options_init(&o);
            o.unroll_count = cases[i].unroll;
            o.loop_count = cases[i].loop;
            o.warm_up_count = cases[i].warm;
            o.n_measurements = cases[i].n;
            o.initial_warm_up_count = cases[i].initial;
            o.basic_mode = cases[i].basic;
            o.drain_frontend = df;
            int64_t u = o.unroll_count, runs = o.warm_up_count + o.n_measurements;
            int64_t base_copies = o.basic_mode ? 0 : u, main_copies = o.basic_mode ? u : 2 * u;
            int64_t loops = o.loop_count > 0 ? o.loop_count : 1;
            int64_t want_main = (o.initial_warm_up_count * u + runs * (base_copies + main_copies)) * loops;
            int64_t want_per_run = o.initial_warm_up_count + 2 * runs;

            struct bench_result r;
            if (measure(&x, &o, &r) != NB_OK)
                continue;
            bool ok = CHECK_EQ_U64(*slot(&x, AREA_R14, 0), want_main);
            ok &= CHECK_EQ_U64(*slot(&x, AREA_R14, 8), want_per_run);
            ok &= CHECK_EQ_U64(*slot(&x, AREA_R14, 16), want_per_run);
            ok &= CHECK_EQ_U64(*slot(&x, AREA_R14, 24), 1);
            ok &= CHECK_EQ_INT(r.n, 1) && CHECK_EQ_STR(r.names[0], "RDTSC");
            if (!ok)
                nb_test_note("unroll %lld loop %lld warm %lld n %lld initial %lld basic %d df %d",
                             (long long)u, (long long)o.loop_count, (long long)o.warm_up_count,
                             (long long)o.n_measurements, (long long)o.initial_warm_up_count,
                             o.basic_mode, df);
        }
    }
    /* The areas, and the code, staging and measurement buffers kept for the next measurement. */
    CHECK_EQ_INT(x.h.n_allocs, AREA_COUNT + 4);
    bench_context_free(&x.c);
    CHECK_EQ_INT(x.h.n_allocs, 0); /* bench_context_free releases them all */
    CHECK_EQ_INT(x.h.bad_frees, 0);
    env_free(&x);
}

/* Stores RAX..R15 (in encoding order) at R14 + base + 8*reg. */
static const char *store_all_regs(long base)
{
    static char text[1024];
    static const char *const regs[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                          "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };
    size_t n = 0;
    for (int r = 0; r < 16; r++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "mov [r14 + %ld], %s\n", base + 8 * r,
                              regs[r]);
    return text;
}

static void check_initial_regs(struct env *x, long base, uint64_t r15, const char *part)
{
    static const enum bench_area pointing[16] = {
        [4] = AREA_RSP, [5] = AREA_RBP, [6] = AREA_RSI, [7] = AREA_RDI, [14] = AREA_R14,
    };
    for (int r = 0; r < 16; r++) {
        uint64_t want = pointing[r] || r == 14 ? middle(x, pointing[r]) : 0;
        if (r == 15)
            want = r15;
        if (!CHECK_EQ_U64(*slot(x, AREA_R14, base + 8 * r), want))
            nb_test_note("%s: register number %d", part, r);
    }
}

NB_TEST(exec_register_setup_matches_nanobench)
{
    struct env x;
    REQUIRE(env_init(&x));
    char init[1024], late[1024];
    strcpy(init, store_all_regs(0x100));
    strcpy(late, store_all_regs(0x200));
    REQUIRE(env_part(&x, PART_INIT, init));
    REQUIRE(env_part(&x, PART_LATE_INIT, late));
    REQUIRE(env_part(&x, PART_ONE_TIME_INIT, store_all_regs(0x300)));
    REQUIRE(env_part(&x, PART_MAIN, store_all_regs(0)));
    struct bench_options o;
    bench_options_init(&o);
    o.unroll_count = 2;
    o.warm_up_count = 0;
    o.n_measurements = 1;
    struct bench_result r;
    REQUIRE(measure(&x, &o, &r) == NB_OK);
    check_initial_regs(&x, 0, 0, "main");
    check_initial_regs(&x, 0x100, 0, "init");
    check_initial_regs(&x, 0x200, 0, "late init");
    check_initial_regs(&x, 0x300, 0, "one-time init");

    /* With a loop, R15 counts down: the last store sees 1. */
    o.loop_count = 3;
    REQUIRE(measure(&x, &o, &r) == NB_OK);
    check_initial_regs(&x, 0, 1, "main with loop");
    check_initial_regs(&x, 0x200, 3, "late init with loop");
    env_free(&x);
}

/* Records the address of the first copy ever executed in [r14]. */
static const char *const RECORD_FIRST_COPY = "lea rax, [rel $]\n"
                                             "cmp qword [r14], 0\n"
                                             "jne skip\n"
                                             "mov [r14], rax\n"
                                             "skip:\n"
                                             "inc qword [r14+8]\n";

NB_TEST(exec_first_copy_alignment)
{
    static const int64_t offsets[] = { 0, 1, 17, 63, 100 };
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, RECORD_FIRST_COPY));
    for (int variant = 0; variant < 3; variant++) {
        /* Odd-length init and late init move everything before the copies around. */
        REQUIRE(env_part(&x, PART_INIT, variant >= 1 ? "nop\nnop\nnop" : NULL));
        REQUIRE(env_part(&x, PART_LATE_INIT, variant == 2 ? "xor eax, eax\nnop" : NULL));
        for (size_t i = 0; i < NB_ARRAY_SIZE(offsets); i++) {
            for (int df = 0; df <= 1; df++) {
                struct bench_options o;
                bench_options_init(&o);
                o.unroll_count = 4;
                o.loop_count = variant == 2 ? 2 : 0;
                o.warm_up_count = 0;
                o.n_measurements = 1;
                o.alignment_offset = offsets[i];
                o.drain_frontend = df;
                struct bench_result r;
                if (measure(&x, &o, &r) != NB_OK)
                    continue;
                uint64_t addr = *slot(&x, AREA_R14, 0);
                bool ok = CHECK(addr != 0);
                ok &= CHECK_EQ_INT(addr % 64, offsets[i] % 64);
                ok &= CHECK_EQ_U64(*slot(&x, AREA_R14, 8), (4 + 8) * (variant == 2 ? 2 : 1));
                if (!ok)
                    nb_test_note("offset %lld, -df %d, variant %d", (long long)offsets[i], df,
                                 variant);
            }
        }
    }
    env_free(&x);
}

/*
 * Changes the state the generated code promises to restore. TRASH_STATE uses
 * memory at R14, so it goes where R14 is still valid (init, one-time init);
 * TRASH_REGS can be repeated in every copy: it clobbers every GPR, sets DF,
 * fills XMM0-15 and moves RSP down 64 bytes (still inside the RSP area).
 */
static const char *const TRASH_STATE =
    "mov dword [r14+64], 0xFFC0\n" /* MXCSR: FTZ, DAZ, round toward zero */
    "ldmxcsr [r14+64]\n"
    "mov word [r14+72], 0x007F\n" /* x87: 24-bit precision */
    "fldcw [r14+72]\n"
    "fldpi\n";
static const char *const TRASH_REGS =
    "std\n"
    "lea rsp, [rsp - 64]\n"
    "pcmpeqd xmm0, xmm0\n pcmpeqd xmm1, xmm1\n pcmpeqd xmm2, xmm2\n pcmpeqd xmm3, xmm3\n"
    "pcmpeqd xmm4, xmm4\n pcmpeqd xmm5, xmm5\n pcmpeqd xmm6, xmm6\n pcmpeqd xmm7, xmm7\n"
    "pcmpeqd xmm8, xmm8\n pcmpeqd xmm9, xmm9\n pcmpeqd xmm10, xmm10\n pcmpeqd xmm11, xmm11\n"
    "pcmpeqd xmm12, xmm12\n pcmpeqd xmm13, xmm13\n pcmpeqd xmm14, xmm14\n pcmpeqd xmm15, xmm15\n"
    "mov rax, -1\n mov rbx, rax\n mov rcx, rax\n mov rdx, rax\n mov rbp, rax\n mov rsi, rax\n"
    "mov rdi, rax\n mov r8, rax\n mov r9, rax\n mov r10, rax\n mov r11, rax\n mov r12, rax\n"
    "mov r13, rax\n mov r14, rax\n mov r15, rax\n";

/* TRASH_STATE then TRASH_REGS, for the parts that run with valid registers. */
static const char *trash_all(void)
{
    static char text[2048];
    snprintf(text, sizeof(text), "%s%s", TRASH_STATE, TRASH_REGS);
    return text;
}

/* Calls fn(void) with canaries in the callee-saved registers and XMM0-15. */
struct after_call {
    uint64_t rbx, rbp, r12, r13, r14, r15; /* 0..40 */
    uint64_t rflags;                       /* 48 */
    uint32_t mxcsr;                        /* 56 */
    uint16_t fcw;                          /* 60 */
    uint16_t pad;
    uint8_t xmm[16][16]; /* 64 */
};
void host_call_with_canaries(void *fn, struct after_call *out);
uint64_t host_rsp_before, host_rsp_after;
__attribute__((aligned(16))) uint8_t host_xmm_canary[16][16];

__asm__(".intel_syntax noprefix\n"
        ".text\n"
        ".globl host_call_with_canaries\n"
        "host_call_with_canaries:\n"
        "push rbx\n push rbp\n push r12\n push r13\n push r14\n push r15\n"
        "sub rsp, 8\n"
        "mov [rsp], rsi\n"
        "mov rax, rdi\n"
        "movabs rbx, 0x1111111111111111\n"
        "movabs rbp, 0x2222222222222222\n"
        "movabs r12, 0x3333333333333333\n"
        "movabs r13, 0x4444444444444444\n"
        "movabs r14, 0x5555555555555555\n"
        "movabs r15, 0x6666666666666666\n"
        ".irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
        "movdqa xmm\\n, [rip + host_xmm_canary + 16*\\n]\n"
        ".endr\n"
        "mov [rip + host_rsp_before], rsp\n"
        "call rax\n"
        "mov [rip + host_rsp_after], rsp\n"
        "mov rsi, [rsp]\n"
        "mov [rsi], rbx\n mov [rsi+8], rbp\n mov [rsi+16], r12\n"
        "mov [rsi+24], r13\n mov [rsi+32], r14\n mov [rsi+40], r15\n"
        "pushfq\n pop rax\n mov [rsi+48], rax\n"
        "stmxcsr [rsi+56]\n"
        "fnstcw [rsi+60]\n"
        ".irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
        "movdqu [rsi + 64 + 16*\\n], xmm\\n\n"
        ".endr\n"
        "add rsp, 8\n"
        "pop r15\n pop r14\n pop r13\n pop r12\n pop rbp\n pop rbx\n"
        "ret\n"
        ".att_syntax prefix\n");

#define RFLAGS_DF (1u << 10)

NB_TEST(exec_generated_code_restores_everything)
{
    for (size_t i = 0; i < 16; i++)
        for (size_t b = 0; b < 16; b++)
            host_xmm_canary[i][b] = (uint8_t)(16 * i + b + 1);
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, TRASH_REGS));
    REQUIRE(env_part(&x, PART_INIT, trash_all()));
    REQUIRE(env_part(&x, PART_LATE_INIT, TRASH_REGS));
    for (int df = 0; df <= 1; df++) {
        struct codegen_params params;
        memset(&params, 0, sizeof(params));
        for (int part = PART_INIT; part <= PART_MAIN; part++) {
            params.part[part] = x.code.part[part];
            params.part_len[part] = x.code.len[part];
        }
        params.copies = 3;
        params.drain_frontend = df;
        params.reads = TSC_READ;
        params.n_reads = 1;
        params.areas.r14 = middle(&x, AREA_R14);
        params.areas.rdi = middle(&x, AREA_RDI);
        params.areas.rsi = middle(&x, AREA_RSI);
        params.areas.rbp = middle(&x, AREA_RBP);
        params.areas.rsp = middle(&x, AREA_RSP);
        size_t size = codegen_run_size(&params);
        uint8_t *buf = x.h.p.alloc_exec(x.h.p.ctx, size);
        REQUIRE(buf != NULL);
        struct codegen_layout layout;
        void *fn = codegen_emit_run(buf, size, &params, &layout);
        REQUIRE(fn != NULL);

        uint32_t mxcsr = _mm_getcsr();
        uint16_t fcw;
        __asm__ volatile("fnstcw %0" : "=m"(fcw));
        struct after_call after;
        memset(&after, 0, sizeof(after));
        host_call_with_canaries(fn, &after);
        CHECK_EQ_U64(after.rbx, 0x1111111111111111ull);
        CHECK_EQ_U64(after.rbp, 0x2222222222222222ull);
        CHECK_EQ_U64(after.r12, 0x3333333333333333ull);
        CHECK_EQ_U64(after.r13, 0x4444444444444444ull);
        CHECK_EQ_U64(after.r14, 0x5555555555555555ull);
        CHECK_EQ_U64(after.r15, 0x6666666666666666ull);
        CHECK_EQ_U64(host_rsp_after, host_rsp_before);
        CHECK_EQ_INT(after.rflags & RFLAGS_DF, 0);
        CHECK_EQ_INT(after.mxcsr, mxcsr);
        CHECK_EQ_INT(after.fcw, fcw);
        CHECK_EQ_BYTES(after.xmm, host_xmm_canary, sizeof(after.xmm));
        /* The benchmark did run: m2 - m1 of the TSC is a real interval. */
        struct codegen_data *data = (struct codegen_data *)buf;
        CHECK(data->m2[0] > data->m1[0]);
        x.h.p.free_mem(x.h.p.ctx, buf, size);
    }
    env_free(&x);
}

static uint64_t collatz_steps(uint64_t n)
{
    uint64_t steps = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

NB_TEST(exec_c_state_survives_bench_measure)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, TRASH_REGS));
    REQUIRE(env_part(&x, PART_INIT, trash_all()));
    REQUIRE(env_part(&x, PART_LATE_INIT, TRASH_REGS));
    REQUIRE(env_part(&x, PART_ONE_TIME_INIT, trash_all()));
    uint32_t mxcsr = _mm_getcsr();
    uint64_t total = 0;
    char text[64];
    for (int i = 0; i < 4; i++) {
        struct bench_options o;
        bench_options_init(&o);
        o.unroll_count = 3;
        o.n_measurements = 3;
        o.warm_up_count = 1;
        o.drain_frontend = i & 1;
        struct bench_result r;
        uint64_t before = total;
        REQUIRE(measure(&x, &o, &r) == NB_OK);
        total = before + collatz_steps(27 + (uint64_t)i);
        /* memset and snprintf use string instructions: a stale DF=1 would break them. */
        memset(text, 'a', sizeof(text));
        snprintf(text, sizeof(text), "%llu", (unsigned long long)total);
    }
    CHECK_EQ_U64(total, 111 + 18 + 18 + 18);
    CHECK_EQ_STR(text, "165");
    CHECK_EQ_INT(_mm_getcsr(), mxcsr);
    uint64_t flags;
    __asm__ volatile("pushfq; pop %0" : "=r"(flags));
    CHECK_EQ_INT(flags & RFLAGS_DF, 0);
    env_free(&x);
}

NB_TEST(exec_rdtsc_result_positive_for_nonempty_benchmark)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "imul rax, rax\nimul rax, rax"));
    for (int basic = 0; basic <= 1; basic++) {
        struct bench_options o;
        bench_options_init(&o);
        o.unroll_count = 200;
        o.basic_mode = basic;
        struct bench_result r;
        REQUIRE(measure(&x, &o, &r) == NB_OK);
        REQUIRE(CHECK_EQ_INT(r.n, 1));
        if (!CHECK(r.values[0] > 0))
            nb_test_note("basic %d: RDTSC result %lld hundredths", basic, (long long)r.values[0]);
    }
    env_free(&x);
}

NB_TEST(exec_bench_measure_errors)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "nop"));
    struct bench_options o;
    bench_options_init(&o);
    struct bench_result r;
    char error[200];

    x.c.n_reads = 0;
    CHECK_EQ_INT(bench_measure(&x.c, &o, &x.code, &r, error, sizeof(error)), NB_EINVAL);
    CHECK_EQ_STR(error, "no counters to read (0)");
    x.c.n_reads = 1;

    x.h.alloc_budget = 0;
    CHECK_EQ_INT(bench_measure(&x.c, &o, &x.code, &r, error, sizeof(error)), NB_ENOMEM);
    CHECK(strncmp(error, "cannot allocate ", 16) == 0);
    CHECK(strstr(error, " bytes of executable memory for the generated code (lower -unroll_count)"));

    x.h.alloc_budget = 1; /* the code buffer, not the measurements */
    CHECK_EQ_INT(bench_measure(&x.c, &o, &x.code, &r, error, sizeof(error)), NB_ENOMEM);
    char want[100];
    snprintf(want, sizeof(want), "cannot allocate %zu bytes for measurements",
             sizeof(int64_t) * 10 * 1 * 2);
    CHECK_EQ_STR(error, want);
    CHECK_EQ_INT(x.h.n_allocs, AREA_COUNT); /* the code buffer was released again */
    x.h.alloc_budget = -1;
    CHECK_EQ_INT(bench_measure(&x.c, &o, &x.code, &r, error, sizeof(error)), NB_OK);
    size_t kept = x.h.n_allocs; /* the areas and the buffers kept for the next measurement */

    /* 2^30 one-byte copies, twice in the main run: past what rel32 reaches, refused unallocated. */
    o.unroll_count = 1ll << 30;
    CHECK_EQ_INT(bench_measure(&x.c, &o, &x.code, &r, error, sizeof(error)), NB_EINVAL);
    CHECK(strncmp(error, "-unroll_count 1073741824: the generated code would need 2147", 59) == 0);
    CHECK(strstr(error, " bytes, but its jumps and data references reach only 2 GiB (rel32); "
                        "lower -unroll_count") != NULL);
    CHECK_EQ_INT(x.h.n_allocs, kept);
    /* Half as many fit the reach (not run here: the buffer would be 1 GiB). */
    struct codegen_params params;
    memset(&params, 0, sizeof(params));
    params.part[PART_MAIN] = x.code.part[PART_MAIN];
    params.part_len[PART_MAIN] = 1;
    params.copies = 1ll << 30;
    params.n_reads = 1;
    CHECK(codegen_run_size(&params) <= CODEGEN_MAX_SIZE);
    params.copies = 1ll << 31;
    CHECK(codegen_run_size(&params) > CODEGEN_MAX_SIZE);
    env_free(&x);
}

NB_TEST(exec_context_init_failure_frees_what_it_allocated)
{
    /* bench_context_init must not rely on the caller having cleared the struct. */
    for (int garbage = 0; garbage <= 1; garbage++) {
        struct host_platform h;
        host_platform_init(&h);
        struct bench_context c;
        memset(&c, garbage ? 0xA5 : 0, sizeof(c));
        h.alloc_budget = 2; /* the third area fails */
        CHECK_EQ_INT(bench_context_init(&c, &h.p), NB_ENOMEM);
        CHECK_EQ_INT(h.n_allocs, 0);
        CHECK_EQ_INT(h.bad_frees, 0);
        host_platform_free(&h);
    }
}

/* -r14_size etc.: the register points to the middle of an area of that size. */
NB_TEST(exec_area_sizes_move_the_registers)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "mov [r14], r14\nmov [rdi - 8], rdi"));
    struct bench_options o;
    bench_options_init(&o);
    o.n_measurements = 1;
    o.unroll_count = 1;
    o.area_size[AREA_R14] = 65536;
    o.area_size[AREA_RDI] = 5000; /* rounded up to two pages */
    char why[160] = "";
    REQUIRE(bench_context_size_areas(&x.c, o.area_size, why, sizeof(why)) == NB_OK);
    CHECK_EQ_U64(x.c.area_size[AREA_R14], 65536);
    CHECK_EQ_U64(x.c.area_size[AREA_RDI], 8192);
    CHECK_EQ_U64(x.c.area_size[AREA_RSI], BENCH_AREA_SIZE);
    struct bench_result r;
    REQUIRE(measure(&x, &o, &r) == NB_OK);
    uint8_t *r14 = x.c.areas[AREA_R14] + 32768, *rdi = x.c.areas[AREA_RDI] + 4096;
    CHECK_EQ_U64(*(uint64_t *)r14, (uint64_t)(uintptr_t)r14);
    CHECK_EQ_U64(*(uint64_t *)(rdi - 8), (uint64_t)(uintptr_t)rdi);

    /* No free block that large: the benchmark gets an error naming the option, the areas their defaults. */
    x.h.alloc_largest = 4u << 20;
    o.area_size[AREA_R14] = 1 << 30;
    CHECK_EQ_INT(bench_context_size_areas(&x.c, o.area_size, why, sizeof(why)), NB_ENOMEM);
    CHECK_EQ_STR(why, "option -r14_size: the firmware has no free block of 1073741824 contiguous bytes");
    for (int a = 0; a < AREA_COUNT; a++) {
        CHECK(x.c.areas[a] != NULL);
        CHECK_EQ_U64(x.c.area_size[a], BENCH_AREA_SIZE);
    }
    CHECK_EQ_INT(x.h.bad_frees, 0);
    env_free(&x);
}

NB_TEST(exec_verbose_dumps_every_measurement)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "nop"));
    struct report rep;
    report_init(&rep, &x.h.p);
    x.c.report = &rep;
    struct bench_options o;
    bench_options_init(&o);
    o.verbose = true;
    o.unroll_count = 3;
    o.warm_up_count = 1;
    o.n_measurements = 2;
    struct bench_result r;
    REQUIRE(measure(&x, &o, &r) == NB_OK);
    /* Mask the numbers of the individual runs, which are real TSC readings. */
    char masked[1024];
    size_t n = 0;
    for (const char *p = host_text(&x.h); *p && n + 2 < sizeof(masked);) {
        const char *run = strncmp(p, "\trun ", 5) == 0 ? strstr(p + 5, ": ") : NULL;
        if (run) {
            size_t k = (size_t)(run + 2 - p);
            memcpy(masked + n, p, k);
            n += k;
            masked[n++] = '#';
            p = strchr(p, '\n');
        } else {
            masked[n++] = *p++;
        }
    }
    masked[n] = 0;
    /* nanoBench's layout: the base run's block, then the main run's. */
    CHECK_EQ_STR(masked, "\n"
                         "RDTSC results (unroll_count=3, loop_count=0):\n"
                         "\n"
                         "\t               Ctr0\n"
                         "\trun 0: #\n"
                         "\trun 1: #\n"
                         "\n"
                         "RDTSC results (unroll_count=6, loop_count=0):\n"
                         "\n"
                         "\t               Ctr0\n"
                         "\trun 0: #\n"
                         "\trun 1: #\n"
                         "\n");
    env_free(&x);
}

/*
 * host_call_ymm(fn, ymm): loads ymm[0..31] into YMM3, calls the generated
 * function, stores YMM3 to ymm[32..63]. The generated code restores every
 * GPR, so nothing else needs saving.
 */
void host_call_ymm(void *fn, uint8_t *ymm);
__asm__(".intel_syntax noprefix\n"
        ".text\n"
        ".globl host_call_ymm\n"
        "host_call_ymm:\n"
        "push rbx\n"
        "vmovdqu ymm3, [rsi]\n"
        "push rsi\n"
        "call rdi\n"
        "pop rsi\n"
        "vmovdqu [rsi + 32], ymm3\n"
        "vzeroupper\n"
        "pop rbx\n"
        "ret\n"
        ".att_syntax prefix\n");

/*
 * With the XSAVE mask the session enabled (here: Linux's XCR0), the whole
 * YMM register survives code that trashes it; with FXSAVE64 only the low
 * 128 bits would (which is what the image did before XSAVE support).
 */
NB_TEST(exec_xsave_restores_ymm_upper_halves)
{
    if (!__builtin_cpu_supports("avx")) {
        nb_test_note("host has no AVX: skipped");
        return;
    }
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    uint64_t xcr0 = (uint64_t)hi << 32 | lo;
    unsigned a, b, c, d;
    __cpuid_count(0xD, 0, a, b, c, d);
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "vpcmpeqd ymm3, ymm3, ymm3"));
    for (int use_xsave = 1; use_xsave >= 0; use_xsave--) {
        struct codegen_params params;
        memset(&params, 0, sizeof(params));
        params.part[PART_MAIN] = x.code.part[PART_MAIN];
        params.part_len[PART_MAIN] = x.code.len[PART_MAIN];
        params.copies = 2;
        params.reads = TSC_READ;
        params.n_reads = 1;
        params.xsave_mask = use_xsave ? xcr0 : 0;
        params.xsave_size = use_xsave ? b : 0;
        params.areas.r14 = middle(&x, AREA_R14);
        params.areas.rdi = middle(&x, AREA_RDI);
        params.areas.rsi = middle(&x, AREA_RSI);
        params.areas.rbp = middle(&x, AREA_RBP);
        params.areas.rsp = middle(&x, AREA_RSP);
        size_t size = codegen_run_size(&params);
        uint8_t *buf = x.h.p.alloc_exec(x.h.p.ctx, size);
        REQUIRE(buf != NULL);
        void *fn = codegen_emit_run(buf, size, &params, NULL);
        REQUIRE(fn != NULL);
        CHECK_EQ_U64((uintptr_t)fn - (uintptr_t)buf, CODEGEN_SAVE_OFFSET + (use_xsave ? (b + 4095) / 4096 * 4096 : 4096));
        uint8_t ymm[64];
        for (int i = 0; i < 32; i++)
            ymm[i] = (uint8_t)(i + 1);
        memset(ymm + 32, 0, 32);
        host_call_ymm(fn, ymm);
        CHECK_EQ_BYTES(ymm + 32, ymm, 16);
        if (use_xsave)
            CHECK_EQ_BYTES(ymm + 48, ymm + 16, 16);
        else
            CHECK(memcmp(ymm + 48, ymm + 16, 16) != 0); /* FXSAVE64 leaves bits 255:128 trashed */
        x.h.p.free_mem(x.h.p.ctx, buf, size);
    }
    env_free(&x);
}

/*
 * With faults caught (ring 0; only written here, not run), every exception
 * gate but NMI and #MC names IST1, the TSS's IST entries point at the stack
 * page's top, and our GDTR spans the firmware copy plus the TSS descriptor.
 */
NB_TEST(codegen_exception_gates_use_an_ist_stack)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "nop"));
    struct codegen_params params;
    memset(&params, 0, sizeof(params));
    params.part[PART_MAIN] = x.code.part[PART_MAIN];
    params.part_len[PART_MAIN] = x.code.len[PART_MAIN];
    params.copies = 1;
    params.reads = TSC_READ;
    params.n_reads = 1;
    params.catch_faults = true;
    size_t size = codegen_run_size(&params);
    uint8_t *buf = x.h.p.alloc_exec(x.h.p.ctx, size);
    REQUIRE(buf != NULL);
    REQUIRE(codegen_emit_run(buf, size, &params, NULL) != NULL);
    struct codegen_data *d = (struct codegen_data *)buf;
    for (unsigned v = 0; v < CODEGEN_IDT_VECTORS; v++)
        CHECK_EQ_INT(d->idt[IDT_GATE_SIZE * v + 4], (v == 2 || v == 18) ? 0 : 1);
    uint64_t top = (uint64_t)(uintptr_t)buf + CODEGEN_IST_STACK_TOP;
    for (int i = 0; i < 7; i++) {
        uint64_t ist;
        memcpy(&ist, d->tss + 36 + 8 * i, 8);
        CHECK_EQ_U64(ist, top);
    }
    uint16_t iomap, limit;
    memcpy(&iomap, d->tss + 102, 2);
    CHECK_EQ_INT(iomap, 104);
    memcpy(&limit, d->gdtr, 2);
    CHECK_EQ_INT(limit, 2048 + 16 - 1);
    uint64_t base;
    memcpy(&base, d->gdtr + 2, 8);
    CHECK_EQ_U64(base, (uintptr_t)d->gdt);
    CHECK_EQ_INT((uintptr_t)d->tss % 128, 0);
    /* The stack page lies between the data and the save area. */
    CHECK(sizeof(struct codegen_data) <= CODEGEN_IST_STACK_TOP - 4096);
    x.h.p.free_mem(x.h.p.ctx, buf, size);
    env_free(&x);
}

/*
 * Staged emission (codegen_params.stage) writes the same code as writing in
 * place, and leaves code bytes that are already right untouched: with the NMI
 * watchdog's back-patched jumps, catch_faults and one-time init too.
 */
NB_TEST(exec_staged_code_is_the_same_code)
{
    struct env x;
    REQUIRE(env_init(&x));
    REQUIRE(env_part(&x, PART_MAIN, "add rax, rbx\nmov [r14], rax"));
    REQUIRE(env_part(&x, PART_INIT, "mov rbx, 3"));
    REQUIRE(env_part(&x, PART_ONE_TIME_INIT, "nop"));
    for (int variant = 0; variant < 3; variant++) {
        struct codegen_params params;
        memset(&params, 0, sizeof(params));
        for (int part = 0; part < PART_COUNT; part++) {
            params.part[part] = x.code.part[part];
            params.part_len[part] = x.code.len[part];
        }
        params.copies = 37;
        params.loop_count = variant;
        params.catch_faults = variant > 0;
        params.nmi_state = variant == 2 ? 0x1000 : 0;
        params.reads = TSC_READ;
        params.n_reads = 1;
        params.areas.r14 = middle(&x, AREA_R14);
        size_t size = codegen_run_size(&params);
        uint8_t *buf = x.h.p.alloc_exec(x.h.p.ctx, size);
        uint8_t *want = malloc(size), *stage = malloc(size);
        REQUIRE(buf && want && stage);
        for (int once = 0; once <= 1; once++) {
            memset(buf, 0xCC, size);
            params.stage = NULL;
            void *direct = once ? codegen_emit_one_time(buf, size, &params, NULL)
                                : codegen_emit_run(buf, size, &params, NULL);
            REQUIRE(direct != NULL);
            memcpy(want, buf, size);
            memset(buf + codegen_code_offset(&params), 0xCC, size - codegen_code_offset(&params));
            params.stage = stage;
            params.stage_cap = size;
            void *staged = once ? codegen_emit_one_time(buf, size, &params, NULL)
                                : codegen_emit_run(buf, size, &params, NULL);
            CHECK(staged == direct);
            CHECK_EQ_BYTES(buf, want, size);
        }
        free(want);
        free(stage);
        x.h.p.free_mem(x.h.p.ctx, buf, size);
    }
    env_free(&x);
}

/*
 * The code kept from the previous measurement is reused only for the same
 * code bytes (not the same pointer), and code that overwrote itself is put
 * back before the next run.
 */
NB_TEST(exec_kept_code_follows_the_bytes)
{
    struct env x;
    REQUIRE(env_init(&x));
    struct bench_options o;
    bench_options_init(&o);
    o.unroll_count = 5;
    o.n_measurements = 2;
    o.warm_up_count = 0;
    struct bench_result r;
    /* base 5 copies + main 10 copies, twice each: 30 additions of the step. */
    static const char *const steps[] = { "add qword [r14], 1", "add qword [r14], 2", "add qword [r14], 2" };
    static const uint64_t want[] = { 30, 60, 60 };
    for (int i = 0; i < 3; i++) {
        /* The same buffer for all three: only its bytes change. */
        REQUIRE(env_part(&x, PART_MAIN, steps[i]));
        if (i == 2) {
            /* As if the benchmark had written into its own code: every code byte of both runs trashed. */
            for (int r = 0; r < 2; r++) {
                struct bench_emitted *m = &x.c.emitted[r];
                REQUIRE(m->valid);
                memset((void *)m->layout.code_start, 0xCC, m->layout.code_end - m->layout.code_start);
            }
        }
        REQUIRE(measure(&x, &o, &r) == NB_OK);
        CHECK_EQ_U64(*slot(&x, AREA_R14, 0), want[i]);
    }
    env_free(&x);
}
