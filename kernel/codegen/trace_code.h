/*
 * trace_code.h — the generated code's side of -mica (mica_capture.h): the
 * sequence that turns single-stepping on before the traced region, and the
 * #DB handler that hands every step to the capture.
 */
#ifndef TRACE_CODE_H
#define TRACE_CODE_H

#include <stdint.h>

#include "codegen_types.h"
#include "x86_emit.h"

/*
 * Sets RFLAGS.TF with PUSHFQ/POPFQ on the benchmark's stack, leaving every
 * register, the flags and the stack word below RSP as they were. The
 * instructions after the POPFQ already trap; the capture ignores them
 * (they lie before the region's start).
 */
void trace_code_enable(struct x86_emitter *e, uint8_t *buf);
/*
 * The gate-1 handler (on the IST stack): saves the GPRs in encoding order
 * below the frame, the vector state, clears DF, calls p->trace_step with
 * the array (System V: RDI), restores and IRETs. Returns its address.
 */
uintptr_t trace_code_handler(struct x86_emitter *e, const struct codegen_params *p);

#endif
