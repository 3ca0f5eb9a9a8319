/*
 * watchdog.c — local APIC timer watchdog (see watchdog.h).
 */
#include "watchdog.h"

#include "lapic_access.h"
#include "lapic_regs.h"

#define TIMER_DIVIDE_128 0xAu
/* Priority class 0xE: only vectors 0xF0-0xFF are delivered. */
#define TPR_ONLY_WATCHDOG 0xE0u

#define CALIBRATION_US 10000u


bool watchdog_init(struct watchdog *w, const struct nb_platform *p)
{
    *w = (struct watchdog){ 0 };
    uint32_t v;
    if (!p->lapic_read || p->lapic_read(p->ctx, LAPIC_LVT_TIMER, &v) != NB_OK)
        return false;
    uint32_t lvt = lapic_get(p, LAPIC_LVT_TIMER), divide = lapic_get(p, LAPIC_TIMER_DIVIDE);
    uint32_t initial = lapic_get(p, LAPIC_TIMER_INITIAL);
    lapic_put(p, LAPIC_LVT_TIMER, LVT_MASKED | WATCHDOG_VECTOR);
    lapic_put(p, LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_128);
    lapic_put(p, LAPIC_TIMER_INITIAL, 0xFFFFFFFFu);
    p->stall_us(p->ctx, CALIBRATION_US);
    uint32_t elapsed = 0xFFFFFFFFu - lapic_get(p, LAPIC_TIMER_CURRENT);
    lapic_put(p, LAPIC_TIMER_INITIAL, 0);
    lapic_put(p, LAPIC_TIMER_DIVIDE, divide);
    lapic_put(p, LAPIC_LVT_TIMER, lvt);
    lapic_put(p, LAPIC_TIMER_INITIAL, initial);
    w->apic_hz = (uint64_t)elapsed * (1000000u / CALIBRATION_US);
    w->mmio_base = p->lapic_mmio_base ? p->lapic_mmio_base(p->ctx) : 0;
    /* A vector among the exceptions or ours cannot be given an IRET gate: assume the reset value. */
    uint8_t spurious = (uint8_t)(lapic_get(p, LAPIC_SVR) & 0xFFu);
    w->spurious_vector = spurious >= 32 && spurious != WATCHDOG_VECTOR ? spurious : WATCHDOG_SPURIOUS_DEFAULT;
    w->available = w->apic_hz > 0;
    return w->available;
}

void watchdog_arm(struct watchdog *w, const struct nb_platform *p)
{
    lapic_quiet_enter(&w->quiet, p, TPR_ONLY_WATCHDOG);
    w->saved_divide = lapic_get(p, LAPIC_TIMER_DIVIDE);
    lapic_put(p, LAPIC_TIMER_INITIAL, 0);
    lapic_put(p, LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_128);
    lapic_put(p, LAPIC_LVT_TIMER, LVT_TIMER_ONE_SHOT | WATCHDOG_VECTOR);
}

void watchdog_disarm(struct watchdog *w, const struct nb_platform *p, bool fired)
{
    lapic_put(p, LAPIC_TIMER_INITIAL, 0);
    /* Our stub ended the run without IRET: the in-service bit still needs its EOI. */
    if (fired)
        lapic_put(p, LAPIC_EOI, 0);
    lapic_put(p, LAPIC_TIMER_DIVIDE, w->saved_divide);
    lapic_quiet_leave(&w->quiet, p);
}

uint32_t watchdog_ticks(const struct watchdog *w, uint64_t tsc_ticks, uint64_t tsc_hz)
{
    if (!tsc_hz)
        return 0xFFFFFFFFu;
    unsigned __int128 t = (unsigned __int128)tsc_ticks * w->apic_hz / tsc_hz;
    return t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (t ? (uint32_t)t : 1u);
}
