/*
 * test_nmi_watchdog.c — the second-processor watchdog (kernel/guard/nmi_watchdog.h)
 * and the generated code's side of it (kernel/codegen/nmi_code.h).
 *
 * The watcher procedure runs here on a scripted processor: every HLT is a
 * step of the script (time passes, the boot processor changes the command),
 * and the IPIs it sends are recorded. The prologue/epilogue sequences are
 * executed for real in user mode (they use no privileged instruction) with
 * the watcher's moves made by the "benchmark" between them.
 */
#include <string.h>
#include <sys/mman.h>

#include "bench_codegen.h"
#include "host_platform.h"
#include "nb_test.h"
#include "nmi_code.h"
#include "nmi_watchdog.h"
#include "watchdog.h"
#include "x86_emit.h"

/* ---- the watcher on a scripted processor ---- */

static struct {
    uint32_t apic[0x400 / 4];
    uint64_t tsc;
    struct { uint32_t apic_id, icr; } ipis[8];
    int n_ipis, halts, eois;
    struct nmi_watchdog *w;
    /* The script: what happens while the watcher halts for the n-th time. */
    void (*step)(int n);
} fake;

static int fake_lapic_read(void *ctx, uint32_t reg, uint32_t *v)
{
    (void)ctx;
    *v = fake.apic[reg / 4];
    return NB_OK;
}

static int fake_lapic_write(void *ctx, uint32_t reg, uint32_t v)
{
    (void)ctx;
    if (reg == 0xB0)
        fake.eois++;
    else
        fake.apic[reg / 4] = v;
    return NB_OK;
}

static uint64_t fake_tsc(void *ctx) { (void)ctx; return fake.tsc; }
static uint32_t fake_apic_id(void *ctx) { (void)ctx; return 7; }

static int fake_send_ipi(void *ctx, uint32_t apic_id, uint32_t icr)
{
    (void)ctx;
    if (fake.n_ipis < 8)
        fake.ipis[fake.n_ipis] = (typeof(fake.ipis[0])){ apic_id, icr };
    fake.n_ipis++;
    return NB_OK;
}

static void fake_halt(void *ctx)
{
    (void)ctx;
    fake.step(fake.halts++);
}

static void setup(struct host_platform *h, struct nmi_watchdog *w, void (*step)(int))
{
    host_platform_init(h);
    memset(&fake, 0, sizeof(fake));
    h->p.lapic_read = fake_lapic_read;
    h->p.lapic_write = fake_lapic_write;
    h->p.read_tsc = fake_tsc;
    h->p.apic_id = fake_apic_id;
    h->p.send_ipi = fake_send_ipi;
    h->p.halt_until_interrupt = fake_halt;
    /* The firmware's settings, which the watcher must give back. */
    fake.apic[0x80 / 4] = 0x10;
    fake.apic[0x320 / 4] = 0x10000;
    fake.apic[0x350 / 4] = 0x700;
    fake.apic[0x360 / 4] = 0x400;
    fake.apic[0x3E0 / 4] = 0xB;
    fake.apic[0x380 / 4] = 55;
    memset(w, 0, sizeof(*w));
    w->p = &h->p;
    w->apic_hz = 1000000;  /* 1 MHz after /128 */
    w->tsc_hz = 1000000000; /* 1 GHz: 1000 TSC ticks per APIC tick */
    w->shared.target_apic_id = 3;
    fake.w = w;
    fake.step = step;
}

static void check_restored(void)
{
    CHECK_EQ_U64(fake.apic[0x80 / 4], 0x10);
    CHECK_EQ_U64(fake.apic[0x320 / 4], 0x10000);
    CHECK_EQ_U64(fake.apic[0x350 / 4], 0x700);
    CHECK_EQ_U64(fake.apic[0x360 / 4], 0x400);
    CHECK_EQ_U64(fake.apic[0x3E0 / 4], 0xB);
    CHECK_EQ_U64(fake.apic[0x380 / 4], 55);
}

#define GEN 5u

/* Halt 0: armed for 1 ms away; halt 1: the deadline has passed; halt 2: told to quit. */
static void step_deadline_passes(int n)
{
    if (n == 0) {
        CHECK_EQ_U64(fake.apic[0x380 / 4], 1000);             /* 1,000,000 TSC ticks = 1000 APIC ticks */
        CHECK_EQ_U64(fake.apic[0x320 / 4], NMI_WATCH_WAKE_VECTOR); /* one-shot, unmasked */
        CHECK_EQ_U64(fake.apic[0x3E0 / 4], 0xA);              /* divide by 128 */
        CHECK_EQ_U64(fake.apic[0x350 / 4], 0x10700);          /* LINT0/LINT1 masked */
        CHECK_EQ_U64(fake.apic[0x360 / 4], 0x10400);
        CHECK_EQ_U64(fake.apic[0x80 / 4], 0);
        CHECK_EQ_U64(fake.w->shared.ack, GEN);
        fake.tsc = 1000000;
    } else if (n == 1) {
        CHECK_EQ_U64(fake.apic[0x380 / 4], 0); /* nothing more to wait for */
        fake.w->shared.command = NMI_WATCH_QUIT;
    } else {
        fake.w->shared.command = NMI_WATCH_QUIT;
    }
}

/* Runs the watcher told `command` (deadline 1 ms of TSC time away) with the code's word at `state`. */
static void watch(struct host_platform *h, struct nmi_watchdog *w, void (*step)(int), uint32_t command,
                  uint64_t deadline, uint32_t state)
{
    setup(h, w, step);
    w->shared.command = command;
    w->shared.deadline = deadline;
    w->shared.state = state;
    nmi_watchdog_watch(w);
}

NB_TEST(nmi_watcher_stops_running_code_at_the_deadline)
{
    struct host_platform h;
    struct nmi_watchdog w;
    watch(&h, &w, step_deadline_passes, GEN, 1000000, GEN << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_U64(w.shared.state, GEN << 2 | NMI_WATCH_FIRED);
    REQUIRE(fake.n_ipis == 1);
    CHECK_EQ_U64(fake.ipis[0].apic_id, 3);
    CHECK_EQ_U64(fake.ipis[0].icr, 0x400); /* delivery mode NMI (SDM vol. 3A 11.6.1) */
    CHECK_EQ_U64(w.shared.nmis_sent, 1);
    CHECK_EQ_U64(w.shared.watcher_apic_id, 7);
    CHECK_EQ_U64(w.shared.ack, NMI_WATCH_QUIT);
    CHECK_EQ_INT(fake.halts, 2);
    CHECK_EQ_INT(fake.eois, 2); /* one per wake-up */
    check_restored();
    host_platform_free(&h);
}

NB_TEST(nmi_watcher_expires_a_benchmark_between_runs)
{
    struct host_platform h;
    struct nmi_watchdog w;
    watch(&h, &w, step_deadline_passes, GEN, 1000000, GEN << 2 | NMI_WATCH_IDLE);
    CHECK_EQ_U64(w.shared.state, GEN << 2 | NMI_WATCH_EXPIRED);
    CHECK_EQ_INT(fake.n_ipis, 0);
    check_restored();
    host_platform_free(&h);
}

NB_TEST(nmi_watcher_leaves_an_older_benchmark_alone)
{
    struct host_platform h;
    struct nmi_watchdog w;
    /* The code still runs under the previous generation's word: not this deadline's business. */
    watch(&h, &w, step_deadline_passes, GEN, 1000000, (GEN - 1) << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_U64(w.shared.state, (GEN - 1) << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_INT(fake.n_ipis, 0);
    host_platform_free(&h);
}

/* Disarmed: no timer at all, whatever the deadline says. */
static void step_disarmed(int n)
{
    CHECK_EQ_U64(fake.apic[0x380 / 4], 0);
    if (n == 0)
        fake.tsc = 5000000;
    else
        fake.w->shared.command = NMI_WATCH_QUIT;
}

NB_TEST(nmi_watcher_disarmed_waits_without_a_timer)
{
    struct host_platform h;
    struct nmi_watchdog w;
    watch(&h, &w, step_disarmed, NMI_WATCH_DISARMED, 1000, GEN << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_U64(w.shared.state, GEN << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_INT(fake.n_ipis, 0);
    CHECK_EQ_INT(fake.halts, 2);
    host_platform_free(&h);
}

NB_TEST(nmi_watchdog_needs_a_second_processor_and_the_calls)
{
    struct host_platform h;
    struct nmi_watchdog w;
    setup(&h, &w, step_disarmed);
    /* The fake has one processor and no start_on_cpu. */
    CHECK(!nmi_watchdog_init(&w, &h.p, 1000000, 1000000000));
    CHECK(nmi_watchdog_begin(&w, 0, 0, 1000) == NULL);
    host_platform_free(&h);
}

static unsigned two_cpus(void *ctx) { (void)ctx; return 2; }
static unsigned cpu0(void *ctx) { (void)ctx; return 0; }
static int started;
/* The firmware accepts the procedure but the processor never runs it. */
static int start_silently(void *ctx, unsigned cpu, void (*fn)(void *), void *arg)
{
    (void)ctx; (void)cpu; (void)fn; (void)arg;
    started++;
    return NB_OK;
}
static int join(void *ctx, unsigned cpu) { (void)ctx; (void)cpu; return NB_OK; }
/* Every read 10 ms later (1 GHz): the 100 ms wait ends after about ten reads. */
static uint64_t advancing_tsc(void *ctx) { (void)ctx; return fake.tsc += 10000000; }

NB_TEST(nmi_watchdog_gives_up_a_watcher_that_never_answers)
{
    struct host_platform h;
    struct nmi_watchdog w;
    setup(&h, &w, step_disarmed);
    h.p.cpu_count = two_cpus;
    h.p.current_cpu = cpu0;
    h.p.start_on_cpu = start_silently;
    h.p.join_cpu = join;
    h.p.read_tsc = advancing_tsc;
    started = 0;
    REQUIRE(nmi_watchdog_init(&w, &h.p, 1000000, 1000000000));
    /* No answer within 100 ms: no NMI scheme for this benchmark or any later one. */
    CHECK(nmi_watchdog_begin(&w, 0, 0, 1ull << 40) == NULL);
    CHECK(!w.available);
    CHECK(!w.running);
    CHECK(nmi_watchdog_begin(&w, 0, 0, 1ull << 40) == NULL);
    CHECK_EQ_INT(started, 1);
    host_platform_free(&h);
}

/* ---- the generated code's side, executed in user mode ---- */

/* The shared word and the body's records, in the buffer (RIP-relative reach). */
struct harness_vars {
    volatile uint32_t state;
    uint64_t body_saw, body_ran;
};

struct harness {
    uint8_t *buf; /* data pages (struct codegen_data), the variables, then the code */
    size_t size;
    struct harness_vars *v;
};

/*
 * enter; body; leave; ret. The body records the state word it sees and then,
 * to play the watcher and its NMI, optionally stores `fired_word` and sets
 * nmi_arrived.
 */
static void (*build(struct harness *t, uint32_t initial, bool body_fires))(void)
{
    size_t vars_at = (sizeof(struct codegen_data) + 4095) / 4096 * 4096, code_at = vars_at + 4096;
    t->size = code_at + 4096;
    t->buf = mmap(NULL, t->size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t->buf == MAP_FAILED)
        return NULL;
    struct codegen_data *data = (struct codegen_data *)t->buf;
    t->v = (struct harness_vars *)(t->buf + vars_at);
    t->v->state = initial;
    struct x86_emitter e;
    x86_emitter_init(&e, t->buf + code_at, t->size - code_at);
    uintptr_t entry = x86_here(&e);
    nmi_code_enter(&e, t->buf, (uint64_t)(uintptr_t)&t->v->state);
    /* body: t->body_saw = state; t->body_ran = 1 */
    x86_mov_reg64_imm64(&e, RCX, (uint64_t)(uintptr_t)&t->v->state);
    x86_bytes(&e, "\x8B\x01", 2); /* mov eax, [rcx] */
    x86_mov_rip_from_reg64(&e, (uintptr_t)&t->v->body_saw, RAX);
    x86_mov_rip_simm32(&e, (uintptr_t)&t->v->body_ran, 1);
    if (body_fires) {
        x86_mov_reg32_imm32(&e, RAX, GEN << 2 | NMI_WATCH_FIRED);
        x86_bytes(&e, "\x89\x01", 2); /* mov [rcx], eax */
        x86_mov_rip_simm32(&e, (uintptr_t)&data->nmi_arrived, 1);
    }
    uintptr_t leave = x86_here(&e);
    nmi_code_leave(&e, t->buf, (uint64_t)(uintptr_t)&t->v->state);
    x86_ret(&e);
    if (e.overflow)
        return NULL;
    data->recovery = leave;
    return (void (*)(void))entry;
}

NB_TEST(nmi_code_enters_idle_and_leaves_idle)
{
    struct harness t = { 0 };
    void (*fn)(void) = build(&t, GEN << 2 | NMI_WATCH_IDLE, false);
    REQUIRE(fn);
    fn();
    CHECK_EQ_U64(t.v->body_saw, GEN << 2 | NMI_WATCH_RUNNING);
    CHECK_EQ_U64(t.v->state, GEN << 2 | NMI_WATCH_IDLE);
    CHECK_EQ_U64(((struct codegen_data *)t.buf)->fault_happened, 0);
    munmap(t.buf, t.size);
}

NB_TEST(nmi_code_does_not_enter_after_the_deadline)
{
    struct harness t = { 0 };
    void (*fn)(void) = build(&t, GEN << 2 | NMI_WATCH_EXPIRED, false);
    REQUIRE(fn);
    fn();
    const struct codegen_data *data = (const struct codegen_data *)t.buf;
    CHECK_EQ_U64(t.v->body_ran, 0);
    CHECK_EQ_U64(data->fault_happened, 1);
    CHECK_EQ_U64(data->fault_vector, WATCHDOG_VECTOR); /* reported as the timeout */
    CHECK_EQ_U64(t.v->state, GEN << 2 | NMI_WATCH_EXPIRED);
    munmap(t.buf, t.size);
}

NB_TEST(nmi_code_after_fired_leaves_once_the_nmi_arrived)
{
    struct harness t = { 0 };
    void (*fn)(void) = build(&t, GEN << 2 | NMI_WATCH_IDLE, true);
    REQUIRE(fn);
    fn(); /* would spin forever if leave ignored nmi_arrived, or go IDLE if it ignored FIRED */
    CHECK_EQ_U64(t.v->body_ran, 1);
    CHECK_EQ_U64(t.v->state, GEN << 2 | NMI_WATCH_FIRED);
    munmap(t.buf, t.size);
}
