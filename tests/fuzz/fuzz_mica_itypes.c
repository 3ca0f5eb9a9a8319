/*
 * fuzz_mica_itypes.c — libFuzzer target for the itypes spec-file parser
 * (tools/mica/mica_itypes.h, MICA's `group, index, TYPE, name` grammar): the
 * file is user input.
 *
 * Input: the file's text, in a heap block of exactly that size (no NUL).
 * Invariants: a refusal names "fuzz.spec:<line>"; an accepted spec has
 * 1..64 groups, each with a name, and classifies a record without trouble.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "mica_itypes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    struct mica_itypes_spec *spec = NULL;
    char err[256];
    memset(err, FUZZ_POISON_BYTE, sizeof(err));
    if (mica_itypes_spec_parse(text, size, "fuzz.spec", &spec, err, sizeof(err)) < 0) {
        FUZZ_CHECK(fuzz_message_ok(err, sizeof(err)));
        FUZZ_CHECK(strncmp(err, "fuzz.spec:", 10) == 0);
    } else {
        size_t n = mica_itypes_spec_groups(spec);
        FUZZ_CHECK(n >= 1 && n <= MICA_ITYPES_MAX_GROUPS);
        for (size_t g = 0; g <= n; g++)
            FUZZ_CHECK(mica_itypes_group_name(spec, g) != NULL);
        struct mica_itypes *s = mica_itypes_new(spec);
        struct mica_rec r;
        memset(&r, 0, sizeof(r));
        r.iclass = "RET_NEAR";
        r.category = MICA_CAT_RET;
        r.mem_read = true;
        mica_itypes_record(s, &r);
        uint64_t v[MICA_ITYPES_MAX_GROUPS + 2];
        mica_itypes_line(s, 1, v);
        mica_itypes_free(s);
        mica_itypes_spec_free(spec);
    }
    free(text);
    return 0;
}
