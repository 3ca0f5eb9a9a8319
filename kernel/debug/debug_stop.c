/*
 * debug_stop.c — the capture at -debug's breakpoint (see debug_stop.h).
 */
#include "debug_stop.h"
#include "nb_text.h"

struct debug_session *debug_current;
uint8_t *debug_save_live;

typedef uint64_t __attribute__((may_alias)) area_word;

void debug_capture_areas(struct debug_capture *cap, const struct debug_session *s)
{
    cap->n_lines = 0;
    cap->truncated = false;
    for (int a = 0; a < DEBUG_AREAS; a++) {
        cap->differing[a] = 0;
        const uint8_t *base = s->area[a];
        if (!base)
            continue;
        for (uint64_t off = 0; off + DEBUG_LINE_BYTES <= s->area_size[a]; off += DEBUG_LINE_BYTES) {
            const area_word *w = (const area_word *)(const void *)(base + off);
            if (!w[0] && !w[1])
                continue;
            uint16_t mask = 0;
            for (int b = 0; b < DEBUG_LINE_BYTES; b++)
                if (base[off + (uint64_t)b])
                    mask |= (uint16_t)(1u << b);
            for (uint16_t m = mask; m; m &= (uint16_t)(m - 1))
                cap->differing[a]++;
            if (cap->n_lines == DEBUG_MAX_LINES) {
                cap->truncated = true;
                continue;
            }
            struct debug_line *l = &cap->lines[cap->n_lines++];
            l->area = (uint8_t)a;
            l->mask = mask;
            l->offset = (int64_t)((uint64_t)(uintptr_t)base + off - s->area_reg[a]);
            nb_memcpy(l->bytes, base + off, DEBUG_LINE_BYTES);
        }
    }
}

void debug_stop(uint64_t *regs)
{
    struct debug_session *s = debug_current;
    if (!s)
        return;
    uint64_t rip = regs[DBG_RIP];
    bool slot = s->armed && regs[DBG_VECTOR] == 3 && rip == s->slot + 1;
    bool breakpoint = regs[DBG_VECTOR] == 3 && s->is_breakpoint && s->is_breakpoint(s->on_stop_arg, rip - 1);
    bool step = regs[DBG_VECTOR] == 1 && s->stepping;
    /* An INT3 or #DB of the benchmark's own: it goes on as if nothing happened. */
    if (!slot && !breakpoint && !step)
        return;
    if (breakpoint && !slot)
        regs[DBG_RIP] = rip - 1; /* gdb wants the breakpoint's address; it puts the byte back itself */
    if (step) {
        regs[DBG_RFLAGS] &= ~(1ull << 8);
        s->stepping = false;
    }
    s->stops++;
    uint64_t t0 = 0, left = 0;
    if (s->nmi_deadline && s->read_tsc) {
        t0 = s->read_tsc(s->tsc_ctx);
        left = *s->nmi_deadline > t0 ? *s->nmi_deadline - t0 : 0;
        *s->nmi_deadline = ~0ull;
    }
    if (slot) {
        s->armed = false;
        struct debug_capture *cap = s->cap;
        nb_memcpy(cap->regs, regs, sizeof(cap->regs));
        if (debug_save_live)
            nb_memcpy(cap->xsave, debug_save_live,
                      s->xsave_size <= DEBUG_SAVE_MAX ? s->xsave_size : DEBUG_SAVE_MAX);
        debug_capture_areas(cap, s);
        cap->taken = true;
    }
    if (s->on_stop)
        s->on_stop(s, regs, debug_save_live);
    if (s->nmi_deadline && s->read_tsc)
        *s->nmi_deadline = s->read_tsc(s->tsc_ctx) + left;
}
