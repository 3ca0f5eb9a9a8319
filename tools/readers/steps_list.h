/*
 * steps_list.h — the host's listing of a -debug_trace file (the format of
 * lib/nb_trace_format.h, written by the image's single-step capture): one
 * line per executed instruction with its address, its offset from the
 * first traced instruction, its bytes, its disassembly (Zydis, Intel
 * syntax), the registers it changed (old->new) and the memory it wrote
 * (address, size and, for a store of a register or an immediate, the
 * value). The CSV has the same columns:
 *   step,address,offset,bytes,instruction,changes,writes
 * The state after the last instruction comes from the trace's sentinel
 * record (header word 56); without one the last step's changes are "?".
 */
#ifndef STEPS_LIST_H
#define STEPS_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Lists the trace in buf; text and csv may be NULL. 0, or -1 with err. *steps: how many were listed. */
int steps_list(const char *name, const uint8_t *buf, size_t size, FILE *text, FILE *csv, uint64_t *steps,
               char *err, size_t errlen);

#endif
