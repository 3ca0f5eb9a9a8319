/*
 * nmi_code.h — the generated code's side of the NMI watchdog
 * (nmi_watchdog.h): the prologue's and the epilogue's exchange of the
 * shared `state` word, and the NMI gate that ends a run.
 */
#ifndef NMI_CODE_H
#define NMI_CODE_H

#include <stdint.h>

#include "x86_emit.h"

/*
 * After our IDT is loaded: IDLE -> RUNNING, or, when the watcher has expired
 * the benchmark, record a timeout and jump to the epilogue (whose address
 * the caller stores in codegen_data.recovery).
 */
void nmi_code_enter(struct x86_emitter *e, uint8_t *buf, uint64_t state);
/*
 * First in the epilogue (every exit passes there): RUNNING -> IDLE; after
 * FIRED, wait for the NMI that is on its way. Uses RAX, RCX, RDX only.
 */
void nmi_code_leave(struct x86_emitter *e, uint8_t *buf, uint64_t state);
/*
 * The gate-2 handler: IRET once to unblock NMIs (SDM vol. 3A 6.7.1), then
 * enter `common` (bench_codegen.c's fault recording) with the timeout vector
 * if the watcher fired, or vector 2 for an NMI from elsewhere. Returns its
 * address for the gate.
 */
uintptr_t nmi_code_handler(struct x86_emitter *e, uint8_t *buf, uint64_t state, uintptr_t common);

#endif
