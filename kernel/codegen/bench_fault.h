/*
 * bench_fault.h — names an exception raised by benchmark code and where it
 * happened: "#GP(0) at main code+0x1c (copy 3 of 1000, base run)".
 */
#ifndef BENCH_FAULT_H
#define BENCH_FAULT_H

#include <stddef.h>

#include <stdbool.h>

#include "bench_codegen.h"

/* Mnemonic of an exception vector 0-31 (SDM vol. 3A table 6-1): "#GP", "NMI", "#15"... */
const char *fault_vector_name(unsigned vector);

/* Writes the description of the fault recorded in `data` to buf. */
void fault_describe(char *buf, size_t cap, const struct codegen_data *data,
                    const struct codegen_layout *layout, const char *run);

#endif
