/*
 * nmi_watchdog.c — a second processor as the hang watchdog (see nmi_watchdog.h).
 */
#include "nmi_watchdog.h"
#include "cpu_platform.h"

/* xAPIC register offsets (SDM vol. 3A table 11-1). */
#define LAPIC_TPR 0x80u
#define LAPIC_EOI 0xB0u
#define LAPIC_LVT_TIMER 0x320u
#define LAPIC_LVT_LINT0 0x350u
#define LAPIC_LVT_LINT1 0x360u
#define LAPIC_TIMER_INITIAL 0x380u
#define LAPIC_TIMER_DIVIDE 0x3E0u

#define LVT_MASKED (1u << 16)
#define TIMER_DIVIDE_128 0xAu
/* ICR delivery modes (SDM vol. 3A 11.6.1): fixed 000b, NMI 100b (the vector is ignored). */
#define ICR_FIXED (0u << 8)
#define ICR_NMI (4u << 8)

static bool cas(volatile uint32_t *word, uint32_t expected, uint32_t desired)
{
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

bool nmi_watchdog_init(struct nmi_watchdog *w, const struct nb_platform *p, uint64_t apic_hz,
                       uint64_t tsc_hz)
{
    *w = (struct nmi_watchdog){ .p = p, .apic_hz = apic_hz, .tsc_hz = tsc_hz };
    w->available = p->start_on_cpu && p->join_cpu && p->apic_id && p->send_ipi &&
                   p->halt_until_interrupt && p->lapic_read && p->lapic_write && apic_hz && tsc_hz &&
                   nb_cpu_count(p) >= 2;
    return w->available;
}

/*
 * At the deadline of `generation`: the code is running, so stop it with an
 * NMI; or it is not, so keep it from starting. A retry when the generated
 * code changed the phase between the read and the exchange.
 */
static void expire(struct nmi_watchdog *w, uint32_t generation)
{
    const struct nb_platform *p = w->p;
    for (;;) {
        uint32_t s = w->shared.state;
        if (s >> 2 != generation)
            return;
        uint32_t phase = s & NMI_WATCH_PHASE_MASK;
        if (phase == NMI_WATCH_RUNNING) {
            if (cas(&w->shared.state, s, generation << 2 | NMI_WATCH_FIRED)) {
                p->send_ipi(p->ctx, w->shared.target_apic_id, ICR_NMI);
                w->shared.nmis_sent++;
                return;
            }
        } else if (phase == NMI_WATCH_IDLE) {
            if (cas(&w->shared.state, s, generation << 2 | NMI_WATCH_EXPIRED))
                return;
        } else {
            return;
        }
    }
}

/* APIC timer ticks until `deadline`, at least 1 and at most 32 bits. */
static uint32_t ticks_until(const struct nmi_watchdog *w, uint64_t now, uint64_t deadline)
{
    unsigned __int128 t = (unsigned __int128)(deadline - now) * w->apic_hz / w->tsc_hz;
    return t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (t ? (uint32_t)t : 1u);
}

void nmi_watchdog_watch(void *arg)
{
    struct nmi_watchdog *w = arg;
    const struct nb_platform *p = w->p;
    uint32_t tpr = 0, lvt = 0, divide = 0, initial = 0, lint0 = 0, lint1 = 0;
    p->lapic_read(p->ctx, LAPIC_TPR, &tpr);
    p->lapic_read(p->ctx, LAPIC_LVT_TIMER, &lvt);
    p->lapic_read(p->ctx, LAPIC_TIMER_DIVIDE, &divide);
    p->lapic_read(p->ctx, LAPIC_TIMER_INITIAL, &initial);
    p->lapic_read(p->ctx, LAPIC_LVT_LINT0, &lint0);
    p->lapic_read(p->ctx, LAPIC_LVT_LINT1, &lint1);
    /* Only our wake-ups: the timer (one-shot) and the boot processor's IPI, on one vector. */
    p->lapic_write(p->ctx, LAPIC_TIMER_INITIAL, 0);
    p->lapic_write(p->ctx, LAPIC_LVT_LINT0, lint0 | LVT_MASKED);
    p->lapic_write(p->ctx, LAPIC_LVT_LINT1, lint1 | LVT_MASKED);
    p->lapic_write(p->ctx, LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_128);
    p->lapic_write(p->ctx, LAPIC_LVT_TIMER, NMI_WATCH_WAKE_VECTOR);
    p->lapic_write(p->ctx, LAPIC_TPR, 0);
    w->shared.watcher_apic_id = p->apic_id(p->ctx);

    uint32_t expired = NMI_WATCH_DISARMED; /* the generation whose deadline was handled */
    for (;;) {
        uint32_t command = w->shared.command;
        if (command == NMI_WATCH_QUIT)
            break;
        uint32_t count = 0;
        if (command != NMI_WATCH_DISARMED && command != expired) {
            uint64_t deadline = w->shared.deadline, now = p->read_tsc(p->ctx);
            if (now >= deadline) {
                expire(w, command);
                expired = command;
            } else {
                count = ticks_until(w, now, deadline);
            }
        }
        p->lapic_write(p->ctx, LAPIC_TIMER_INITIAL, count);
        /* Taken: the boot processor waits for this before it measures (the last store before HLT). */
        w->shared.ack = command;
        p->halt_until_interrupt(p->ctx);
        p->lapic_write(p->ctx, LAPIC_EOI, 0);
    }

    p->lapic_write(p->ctx, LAPIC_TIMER_INITIAL, 0);
    p->lapic_write(p->ctx, LAPIC_LVT_TIMER, lvt);
    p->lapic_write(p->ctx, LAPIC_TIMER_DIVIDE, divide);
    p->lapic_write(p->ctx, LAPIC_LVT_LINT0, lint0);
    p->lapic_write(p->ctx, LAPIC_LVT_LINT1, lint1);
    p->lapic_write(p->ctx, LAPIC_TPR, tpr);
    p->lapic_write(p->ctx, LAPIC_TIMER_INITIAL, initial);
    w->shared.ack = NMI_WATCH_QUIT;
}

/* How long the boot processor waits for the watcher to answer: 100 ms. */
#define ANSWER_DIVISOR 10u

/* Waits until the watcher has taken `command`; false after 100 ms of TSC time. */
static bool wait_for_ack(struct nmi_watchdog *w, uint32_t command)
{
    const struct nb_platform *p = w->p;
    uint64_t start = p->read_tsc(p->ctx), limit = w->tsc_hz / ANSWER_DIVISOR;
    while (w->shared.ack != command) {
        if (p->read_tsc(p->ctx) - start > limit)
            return false;
        __builtin_ia32_pause();
    }
    return true;
}

/*
 * A watcher that stopped answering (the firmware took its processor back)
 * is given up for the rest of the session: the timer scheme takes over,
 * never a benchmark that nobody watches.
 */
static void give_up(struct nmi_watchdog *w)
{
    w->available = false;
    w->running = false;
}

/*
 * Hands the watcher a command and waits until it has taken it and is about
 * to halt: its own instructions then never fall inside a measurement.
 */
static bool send_command(struct nmi_watchdog *w, uint32_t command)
{
    const struct nb_platform *p = w->p;
    w->shared.command = command;
    p->send_ipi(p->ctx, w->shared.watcher_apic_id, ICR_FIXED | NMI_WATCH_WAKE_VECTOR);
    if (wait_for_ack(w, command))
        return true;
    give_up(w);
    return false;
}

static bool start_watcher(struct nmi_watchdog *w, unsigned bench_cpu)
{
    const struct nb_platform *p = w->p;
    unsigned n = nb_cpu_count(p), boot = nb_current_cpu(p);
    for (unsigned cpu = 0; cpu < n; cpu++) {
        /* The boot processor waits in the firmware while an AP measures: it cannot watch. */
        if (cpu == bench_cpu || cpu == boot)
            continue;
        w->shared.command = NMI_WATCH_DISARMED;
        w->shared.ack = NMI_WATCH_QUIT;
        if (p->start_on_cpu(p->ctx, cpu, nmi_watchdog_watch, w) != NB_OK)
            continue;
        /* Started: wait until it has set up its APIC and published its ID. */
        if (!wait_for_ack(w, NMI_WATCH_DISARMED)) {
            give_up(w);
            return false;
        }
        w->running = true;
        w->cpu = cpu;
        return true;
    }
    return false;
}

volatile uint32_t *nmi_watchdog_begin(struct nmi_watchdog *w, unsigned bench_cpu,
                                      uint32_t bench_apic_id, uint64_t deadline)
{
    if (!w->available)
        return NULL;
    if (w->running && w->cpu == bench_cpu)
        nmi_watchdog_release(w, bench_cpu);
    if (!w->running && !start_watcher(w, bench_cpu))
        return NULL;
    w->generation = w->generation % 0x3FFFFFFFu + 1; /* 1..2^30-1: never DISARMED or QUIT */
    w->shared.state = w->generation << 2 | NMI_WATCH_IDLE;
    w->shared.target_apic_id = bench_apic_id;
    w->shared.deadline = deadline;
    return send_command(w, w->generation) ? &w->shared.state : NULL;
}

void nmi_watchdog_end(struct nmi_watchdog *w)
{
    if (w->running)
        send_command(w, NMI_WATCH_DISARMED);
}

void nmi_watchdog_release(struct nmi_watchdog *w, unsigned cpu)
{
    if (!w->running || w->cpu != cpu)
        return;
    if (send_command(w, NMI_WATCH_QUIT))
        w->p->join_cpu(w->p->ctx, cpu);
    w->running = false;
}

void nmi_watchdog_stop(struct nmi_watchdog *w)
{
    if (w->running)
        nmi_watchdog_release(w, w->cpu);
}

bool nmi_watchdog_prepare(struct nmi_watchdog *w, unsigned bench_cpu)
{
    if (!w->available)
        return false;
    if (w->running && w->cpu == bench_cpu)
        nmi_watchdog_release(w, bench_cpu);
    return w->running || start_watcher(w, bench_cpu);
}
