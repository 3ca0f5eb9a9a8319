/*
 * cet_guard.h — the image refuses to run benchmarks under control-flow
 * enforcement.
 *
 * With CR4.CET set (SDM vol. 3A 2.5, bit 23; vol. 1 ch. 17 "Control-flow
 * Enforcement Technology") the firmware may have turned on supervisor
 * indirect-branch tracking (every indirect branch target needs ENDBR64, or
 * #CP) or supervisor shadow stacks (every RET is checked against a second
 * stack that the generated code's own stack switching does not keep). The
 * generated code and users' code have neither, so a run would fault or
 * measure the #CP handler. The image does not clear CR4.CET behind the
 * firmware's back: it says so once and reports every benchmark as not run.
 */
#ifndef CET_GUARD_H
#define CET_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_platform.h"

/* CR4.CET, control-flow enforcement enable (SDM vol. 3A 2.5, figure 2-7). */
#define CR4_CET (1ull << 23)

/*
 * True when CR4.CET is set on the processor `p` runs on (false without
 * control-register access); `line` then gets the fingerprint line.
 */
bool cet_enabled(const struct nb_platform *p, char *line, size_t cap);

/* The error every benchmark gets while CET is on. */
#define CET_REFUSED "not run: CR4.CET is set by the firmware (control-flow enforcement: indirect-branch " \
                    "tracking and shadow stacks break the generated code)"

#endif
