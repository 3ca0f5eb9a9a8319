/*
 * fuzz_gas_source.c — libFuzzer target for the GNU as front end of -asm*
 * text (tools/compile/gas_source.h): statement splitting, repeats, |n, the names a
 * part defines and their renaming, the nasm-construct check.
 *
 * Input: the -asm text (made NUL-terminated, as an option value is).
 * Invariants: a refusal is "statement K '...': why" with a terminated
 * message; an accepted text gives whole lines starting with a line marker
 * `# K "nb0.3"`; gas_nasm_construct never reads past its length.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gas_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *out = NULL, err[600];
    size_t len = 0;
    memset(err, FUZZ_POISON_BYTE, sizeof(err));
    if (gas_source(text, "p0", "nb0.3", &out, &len, err, sizeof(err)) != 0) {
        FUZZ_CHECK(fuzz_message_ok(err, sizeof(err)));
        FUZZ_CHECK(strncmp(err, "statement ", 10) == 0);
    } else if (out) {
        /*
         * Whole lines, the first a line marker (a quote left open runs to the end of the
         * text and may hold newlines: as then sees them as it would in nanoBench).
         */
        FUZZ_CHECK(strlen(out) == len);
        FUZZ_CHECK(len == 0 || out[len - 1] == '\n');
        FUZZ_CHECK(len == 0 || strncmp(out, "# ", 2) == 0 || strncmp(out, ".purgem ", 8) == 0);
    }
    free(out);
    /* The construct check on a slice that is not NUL-terminated. */
    char *slice = malloc(size ? size : 1);
    if (slice) {
        memcpy(slice, data, size);
        (void)gas_nasm_construct(slice, size);
        free(slice);
    }
    free(text);
    return 0;
}
