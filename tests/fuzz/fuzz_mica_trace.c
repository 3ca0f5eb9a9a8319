/*
 * fuzz_mica_trace.c — libFuzzer target for the MICA trace reader and the
 * whole analysis path behind it (tools/mica/mica_analyze.h): a trace file
 * copied from a USB stick may be cut short or damaged, and nb_mica must say
 * so instead of reading past the end or analysing garbage.
 *
 * Input: the trace file, in a heap block of exactly that size.
 * Invariants: a failure has a message naming the file; a success has fed
 * exactly the header's record count to every analysis.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "mica_analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct mica_options o;
    char err[512];
    memset(err, FUZZ_POISON_BYTE, sizeof(err));
    mica_options_default(&o);
    FUZZ_CHECK(mica_options_set_list(&o, "all", err, sizeof(err)) == 0);
    struct mica_run *r = mica_run_new(&o);
    struct mica_trace_header h;
    /* A small limit keeps each input fast; the limit path is tested too. */
    int rc = mica_analyze("fuzz.trace", buf, size, &r, 1, 4096, &h, err, sizeof(err));
    if (rc < 0) {
        FUZZ_CHECK(fuzz_message_ok(err, sizeof(err)));
        FUZZ_CHECK(strncmp(err, "fuzz.trace", 10) == 0);
    } else {
        FUZZ_CHECK(mica_run_n_all(r) == h.n_records);
    }
    mica_run_free(r);
    free(buf);
    return 0;
}
