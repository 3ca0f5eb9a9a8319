/*
 * fuzz_serve.c — libFuzzer target for the serve-mode receive path: the
 * frame scanner (kernel/serve/serve_frame.h) run over the input as the image runs
 * it over its receive buffer, and the request parser (kernel/serve/serve_request.h)
 * on the input itself and on every good frame's payload.
 *
 * Invariants (a failure traps):
 *   - the scanner always makes progress or asks for more, never consumes
 *     past the buffer, and a frame lies wholly inside it;
 *   - a frame re-encoded from its type, seq and payload is byte-identical;
 *   - the request parser either succeeds, with every file and the text
 *     inside the payload, or fails with a non-empty, terminated message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "serve_frame.h"
#include "serve_request.h"

#define FUZZ_LIMIT 4096u

static void check_request(const uint8_t *p, size_t len)
{
    struct serve_request r;
    char err[160];
    memset(err, FUZZ_POISON_BYTE, sizeof(err));
    if (serve_request_parse(p, len, &r, err, sizeof(err)) != 0) {
        FUZZ_CHECK(fuzz_message_ok(err, sizeof(err)));
        return;
    }
    FUZZ_CHECK(r.n_files <= SERVE_FILES_MAX);
    for (size_t i = 0; i < r.n_files; i++) {
        const struct serve_file *f = &r.files[i];
        FUZZ_CHECK(f->path_len >= 1 && f->path_len <= SERVE_PATH_MAX);
        FUZZ_CHECK((const uint8_t *)f->path > p && (const uint8_t *)f->path + f->path_len <= p + len);
        FUZZ_CHECK(f->data >= p && f->data + f->size <= p + len);
        FUZZ_CHECK(f->path[0] != '/');
    }
    FUZZ_CHECK((const uint8_t *)r.text >= p && (const uint8_t *)r.text + r.text_len == p + len);
    FUZZ_CHECK(memchr(r.text, '\0', r.text_len) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_request(data, size);
    size_t off = 0;
    while (off < size) {
        struct serve_frame f;
        size_t consumed = 0;
        enum serve_scan st = serve_frame_scan(data + off, size - off, FUZZ_LIMIT, &f, &consumed);
        FUZZ_CHECK(consumed <= size - off);
        if (st == SERVE_SCAN_MORE)
            break;
        FUZZ_CHECK(consumed > 0);
        if (st == SERVE_SCAN_TOO_LARGE) {
            FUZZ_CHECK(f.len > FUZZ_LIMIT && consumed >= SERVE_HEADER);
        } else if (st == SERVE_SCAN_FRAME) {
            FUZZ_CHECK(f.len <= FUZZ_LIMIT);
            FUZZ_CHECK(f.payload >= data + off && f.payload + f.len <= data + off + consumed);
            uint8_t *again = malloc(serve_frame_size(f.len));
            FUZZ_CHECK(again != NULL);
            size_t n = serve_frame_encode(again, serve_frame_size(f.len), f.type, f.seq, f.payload, f.len);
            FUZZ_CHECK(n == serve_frame_size(f.len));
            FUZZ_CHECK(memcmp(again, f.payload - SERVE_HEADER, n) == 0);
            free(again);
            if (f.type == SERVE_BENCH)
                check_request(f.payload, f.len);
        }
        off += consumed;
    }
    return 0;
}
