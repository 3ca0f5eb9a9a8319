/*
 * watchdog.c — local APIC timer watchdog (see watchdog.h).
 */
#include "watchdog.h"

/* xAPIC register offsets (SDM vol. 3A table 11-1). */
#define LAPIC_TPR 0x80u
#define LAPIC_SVR 0xF0u
#define LAPIC_EOI 0xB0u
#define LAPIC_LVT_TIMER 0x320u
#define LAPIC_LVT_LINT0 0x350u
#define LAPIC_LVT_LINT1 0x360u
#define LAPIC_TIMER_INITIAL 0x380u
#define LAPIC_TIMER_CURRENT 0x390u
#define LAPIC_TIMER_DIVIDE 0x3E0u

#define LVT_MASKED (1u << 16)
#define LVT_TIMER_ONE_SHOT (0u << 17)
/* Divide configuration 1010b: divide by 128, so 10 s fit the 32-bit count on fast timers. */
#define TIMER_DIVIDE_128 0xAu
/* Priority class 0xE: only vectors 0xF0-0xFF are delivered. */
#define TPR_ONLY_WATCHDOG 0xE0u

#define CALIBRATION_US 10000u

static uint32_t rd(const struct nb_platform *p, uint32_t reg)
{
    uint32_t v = 0;
    p->lapic_read(p->ctx, reg, &v);
    return v;
}

static void wr(const struct nb_platform *p, uint32_t reg, uint32_t v)
{
    p->lapic_write(p->ctx, reg, v);
}

bool watchdog_init(struct watchdog *w, const struct nb_platform *p)
{
    *w = (struct watchdog){ 0 };
    uint32_t v;
    if (!p->lapic_read || p->lapic_read(p->ctx, LAPIC_LVT_TIMER, &v) != NB_OK)
        return false;
    uint32_t lvt = rd(p, LAPIC_LVT_TIMER), divide = rd(p, LAPIC_TIMER_DIVIDE);
    uint32_t initial = rd(p, LAPIC_TIMER_INITIAL);
    wr(p, LAPIC_LVT_TIMER, LVT_MASKED | WATCHDOG_VECTOR);
    wr(p, LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_128);
    wr(p, LAPIC_TIMER_INITIAL, 0xFFFFFFFFu);
    p->stall_us(p->ctx, CALIBRATION_US);
    uint32_t elapsed = 0xFFFFFFFFu - rd(p, LAPIC_TIMER_CURRENT);
    wr(p, LAPIC_TIMER_INITIAL, 0);
    wr(p, LAPIC_TIMER_DIVIDE, divide);
    wr(p, LAPIC_LVT_TIMER, lvt);
    wr(p, LAPIC_TIMER_INITIAL, initial);
    w->apic_hz = (uint64_t)elapsed * (1000000u / CALIBRATION_US);
    w->mmio_base = p->lapic_mmio_base ? p->lapic_mmio_base(p->ctx) : 0;
    /* A vector among the exceptions or ours cannot be given an IRET gate: assume the reset value. */
    uint8_t spurious = (uint8_t)(rd(p, LAPIC_SVR) & 0xFFu);
    w->spurious_vector = spurious >= 32 && spurious != WATCHDOG_VECTOR ? spurious : WATCHDOG_SPURIOUS_DEFAULT;
    w->available = w->apic_hz > 0;
    return w->available;
}

void watchdog_arm(struct watchdog *w, const struct nb_platform *p)
{
    w->saved_tpr = rd(p, LAPIC_TPR);
    w->saved_lvt_timer = rd(p, LAPIC_LVT_TIMER);
    w->saved_lint0 = rd(p, LAPIC_LVT_LINT0);
    w->saved_lint1 = rd(p, LAPIC_LVT_LINT1);
    w->saved_divide = rd(p, LAPIC_TIMER_DIVIDE);
    w->saved_initial = rd(p, LAPIC_TIMER_INITIAL);
    wr(p, LAPIC_TIMER_INITIAL, 0);
    wr(p, LAPIC_LVT_LINT0, w->saved_lint0 | LVT_MASKED);
    wr(p, LAPIC_LVT_LINT1, w->saved_lint1 | LVT_MASKED);
    wr(p, LAPIC_TPR, TPR_ONLY_WATCHDOG);
    wr(p, LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_128);
    wr(p, LAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
}

void watchdog_disarm(struct watchdog *w, const struct nb_platform *p, bool fired)
{
    wr(p, LAPIC_TIMER_INITIAL, 0);
    /* Our stub ended the run without IRET: the in-service bit still needs its EOI. */
    if (fired)
        wr(p, LAPIC_EOI, 0);
    wr(p, LAPIC_LVT_TIMER, w->saved_lvt_timer);
    wr(p, LAPIC_TIMER_DIVIDE, w->saved_divide);
    wr(p, LAPIC_LVT_LINT0, w->saved_lint0);
    wr(p, LAPIC_LVT_LINT1, w->saved_lint1);
    wr(p, LAPIC_TPR, w->saved_tpr);
    wr(p, LAPIC_TIMER_INITIAL, w->saved_initial);
}

uint32_t watchdog_ticks(const struct watchdog *w, uint64_t tsc_ticks, uint64_t tsc_hz)
{
    if (!tsc_hz)
        return 0xFFFFFFFFu;
    unsigned __int128 t = (unsigned __int128)tsc_ticks * w->apic_hz / tsc_hz;
    return t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (t ? (uint32_t)t : 1u);
}
