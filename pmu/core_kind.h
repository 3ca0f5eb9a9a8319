/*
 * core_kind.h — which kind of core a processor is, for what is measured
 * per kind (the calibrated memory latencies, kernel/engine/bench_calibrate.h).
 *
 * On a hybrid part (CPUID.(EAX=07H,ECX=0):EDX[15] Hybrid) CPUID leaf 1AH,
 * run on the processor itself, gives its core type in EAX[31:24] (20H Atom,
 * an E-core; 40H Core, a P-core) and its native model ID in EAX[23:0],
 * which tells apart two kinds of one type (Arrow Lake-H's low-power
 * Crestmont and Skymont E-cores). SDM vol. 2A, CPUID leaf 1AH "Native Model
 * ID Enumeration Leaf". Every processor of a part that is not hybrid is one
 * kind: {0, 0}.
 */
#ifndef CORE_KIND_H
#define CORE_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

struct core_kind {
    unsigned type;         /* CPUID.1AH:EAX[31:24]; 0: not a hybrid part */
    uint32_t native_model; /* CPUID.1AH:EAX[23:0]; 0 unless hybrid */
};

/* The kind of the processor `p`'s CPUID runs on (a cpu_platform for -cpu N). */
void core_kind_read(const struct nb_platform *p, struct core_kind *out);

static inline bool core_kind_equal(const struct core_kind *a, const struct core_kind *b)
{
    return a->type == b->type && a->native_model == b->native_model;
}

/*
 * "E-core (CPUID.1AH core type 20H, native model 000001H)", "P-core (...)",
 * "core type 30H (...)" for another type; "" when not hybrid.
 */
void core_kind_describe(const struct core_kind *k, char *out, size_t cap);

#endif
