/*
 * fuzz_ctr_rules.c — libFuzzer target for the counter-restriction reader
 * (pmu/pmu_ctr_rules.h), configs/ctr_<NAME>.txt read from the image, and the
 * config parser applying the rules it yields.
 *
 * Input: byte 0 picks the vendor (bit 0: AMD) and the counters (bits 1-3: 1..8);
 * the rest is the rules text. It is parsed, then a fixed event config is parsed
 * under the rules.
 *
 * Invariants (a failure traps): at most PMU_CTR_RULES_MAX rules, each with a
 * non-zero counter set; every error message is non-empty, shorter than its
 * 160-byte buffer and names a real line; a lookup returns PMU_CTR_ALL or the
 * intersection of rules' sets (never a bit no rule has); every event parsed under
 * the rules keeps a counter set inside the counters that exist, never empty
 * when restricted, and inside its .CTR set when it has one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pmu.h"
#include "pmu_config_parse.h"
#include "pmu_ctr_rules.h"

struct error_log {
    unsigned n_lines;
};

static void on_error(void *arg, unsigned line, const char *message)
{
    const struct error_log *log = arg;
    FUZZ_CHECK(message != NULL && message[0] != '\0');
    FUZZ_CHECK(strlen(message) < 160);
    if (log)
        FUZZ_CHECK(line >= 1 && line <= log->n_lines);
}

static const char CONFIG[] = "D1.01 A\nD1.01.CTR=2-7 B\nC0.01 C\nC0.01.CMSK=10.INV D\n0C0.00 E\n"
                             "48.02.CTR=1 F\nA3.14.CMSK=20 G\n0E.01.CTR=0,3 H\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum cpu_vendor vendor = (data[0] & 1) ? VENDOR_AMD : VENDOR_INTEL;
    unsigned n_gp = 1 + ((data[0] >> 1) & 7);
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    unsigned n_lines = 1;
    for (size_t i = 0; i < len; i++)
        n_lines += (text[i] == '\n');
    struct error_log log = { n_lines };
    struct pmu_ctr_rules *rules = malloc(sizeof(*rules));
    struct pmu_event *events = malloc(sizeof(*events) * 16);
    if (!rules || !events)
        abort();
    size_t n = pmu_ctr_rules_parse(text, len, vendor, "configs/ctr_Fuzz.txt", rules, on_error, &log);
    FUZZ_CHECK(n == rules->n && n <= PMU_CTR_RULES_MAX);
    uint32_t any_bits = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(rules->rule[i].mask != 0);
        any_bits |= rules->rule[i].mask;
    }
    struct pmu_desc d = { .vendor = vendor, .family = vendor == VENDOR_AMD ? 0x19 : 6, .version = 4,
                          .n_gp = n_gp, .gp_width = 48, .n_fixed = 3, .ctr_rules = rules };
    size_t m = pmu_config_parse(CONFIG, sizeof(CONFIG) - 1, &d, events, 16, on_error, NULL);
    uint32_t avail = pmu_gp_mask(&d);
    for (size_t i = 0; i < m; i++) {
        uint32_t allowed = pmu_ctr_rules_lookup(rules, &events[i]);
        FUZZ_CHECK(allowed == PMU_CTR_ALL || (allowed & ~any_bits) == 0);
        FUZZ_CHECK((events[i].ctr_mask & ~avail) == 0 || events[i].ctr >= 0);
        if (allowed != PMU_CTR_ALL && (allowed & avail) != avail)
            FUZZ_CHECK(events[i].ctr_mask != 0 && (events[i].ctr_mask & ~allowed) == 0);
    }
    free(events);
    free(rules);
    return 0;
}
