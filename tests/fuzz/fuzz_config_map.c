/*
 * fuzz_config_map.c — libFuzzer target for the cpu_map.txt lookup
 * (pmu/pmu_config_map.h).
 *
 * Input: byte 0 picks the vendor (modulo 3: other, Intel, AMD), byte 1 the
 * display family, byte 2 the display model, byte 3 the hybrid core type
 * (CPUID.1AH:EAX[31:24]: 20H Atom, 40H Core, anything else), byte 4 the
 * stepping (modulo 17, minus 1: -1 unknown, 0..15), byte 5 the native model ID
 * (0 unknown); the rest is the map text. The output buffer has the size
 * kernel/engine/bench_counters.c uses; pmu_config_map_choose_cpu() (stepping= and
 * native= qualifiers) runs on the same text.
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

/* sizeof(struct counter_env.default_config) in kernel/engine/bench_counters.h; tools use 96 too. */
#define FUZZ_OUT_CAP 96

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6)
        return 0;
    enum cpu_vendor vendor = (enum cpu_vendor)(data[0] % 3);
    uint32_t family = data[1];
    uint32_t model = data[2];
    unsigned core_type = data[3];
    int stepping = data[4] % 17 - 1;
    uint32_t native = data[5];
    size_t len = size - 6;
    /* A heap copy of exactly len bytes: a read past the map text is an ASan report. */
    char *text = malloc(len ? len : 1);
    if (!text)
        abort();
    memcpy(text, data + 6, len);

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
    struct config_cpu cpu = { vendor, family, model, stepping, core_type, native };
    struct config_choice c;
    memset(&c, FUZZ_POISON_BYTE, sizeof(c));
    enum config_match m = pmu_config_map_choose_cpu(text, len, &cpu, &c);
    if (m != CONFIG_MATCH_NONE)
        FUZZ_CHECK(vendor == VENDOR_INTEL || vendor == VENDOR_AMD);
    if (m == CONFIG_MATCH_EXACT) {
        FUZZ_CHECK(memchr(c.path, '\0', sizeof(c.path)) != NULL);
        FUZZ_CHECK(fuzz_starts_with(c.path, "configs/cfg_"));
        FUZZ_CHECK(fuzz_ends_with(c.path, "_common.txt"));
    } else {
        /* No config for an unlisted model: never a neighbour's (pmu_config_map.h). */
        FUZZ_CHECK(c.path[0] == '\0');
    }
    free(out);
    free(text);
    return 0;
}
