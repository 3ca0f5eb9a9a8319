/*
 * cet_guard.c — CR4.CET check (see cet_guard.h).
 */
#include "cet_guard.h"
#include "nb_text.h"

bool cet_enabled(const struct nb_platform *p, char *line, size_t cap)
{
    if (!p->read_cr4)
        return false;
    uint64_t cr4 = p->read_cr4(p->ctx);
    if (!(cr4 & CR4_CET))
        return false;
    nb_snprintf(line, cap,
                "error: cet: CR4.CET is set (CR4 0x%llx): the firmware enabled control-flow "
                "enforcement, under which indirect-branch tracking and shadow stacks fault in the "
                "generated code; no benchmark is run (turn CET off in the firmware setup)",
                (unsigned long long)cr4);
    return true;
}
