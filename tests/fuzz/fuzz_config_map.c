/*
 * fuzz_config_map.c — libFuzzer target for the cpu_map.txt lookup
 * (pmu/pmu_config_map.h).
 *
 * Input: byte 0 picks the vendor (modulo 3: other, Intel, AMD), byte 1 the
 * display family, byte 2 the display model, byte 3 the hybrid core type
 * (CPUID.1AH:EAX[31:24]: 20H Atom, 40H Core, anything else); the rest is the
 * map text. The output buffer has the size kernel/bench_counters.c uses.
 *
 * Invariants (a failure traps): on true the output is NUL-terminated inside
 * the buffer, starts with "configs/cfg_" and ends with "_common.txt"; an
 * unknown vendor never matches.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "machine.h"
#include "pmu_config_map.h"

/* sizeof(struct counter_env.default_config) in kernel/bench_counters.h; tools use 96 too. */
#define FUZZ_OUT_CAP 96

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    enum cpu_vendor vendor = (enum cpu_vendor)(data[0] % 3);
    uint32_t family = data[1];
    uint32_t model = data[2];
    unsigned core_type = data[3];
    size_t len = size - 4;
    /* A heap copy of exactly len bytes: a read past the map text is an ASan report. */
    char *text = malloc(len ? len : 1);
    if (!text)
        abort();
    memcpy(text, data + 4, len);

    char *out = malloc(FUZZ_OUT_CAP);
    if (!out)
        abort();
    memset(out, FUZZ_POISON_BYTE, FUZZ_OUT_CAP);
    bool found = pmu_config_map_lookup(text, len, vendor, family, model, core_type, out,
                                       FUZZ_OUT_CAP);
    if (found) {
        FUZZ_CHECK(vendor == VENDOR_INTEL || vendor == VENDOR_AMD);
        FUZZ_CHECK(memchr(out, '\0', FUZZ_OUT_CAP) != NULL);
        FUZZ_CHECK(fuzz_starts_with(out, "configs/cfg_"));
        FUZZ_CHECK(fuzz_ends_with(out, "_common.txt"));
    }
    free(out);
    free(text);
    return 0;
}
