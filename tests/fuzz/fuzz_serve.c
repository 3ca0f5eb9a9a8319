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
 *     inside the payload, or fails with a non-empty, terminated message;
 *   - the reader of a reply's cycle table (kernel/report/serve_table.h), on the
 *     input and on every good frame's payload from each NUL on, never reads
 *     past it, fails with a message, or reads a table that encodes again to
 *     a block that reads back the same (names, rows and values).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "serve_frame.h"
#include "serve_request.h"
#include "serve_table.h"

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

#define TABLE_VALUES 4096

static void check_table(const uint8_t *p, size_t len)
{
    static struct serve_table_view v, w;
    static int64_t rows[TABLE_VALUES], again_rows[TABLE_VALUES];
    static char names[256][256], bench[256];
    static const char *name_ptrs[256];
    static uint8_t again[16 * TABLE_VALUES + 256 * 257 + 16];
    char err[200];
    memset(err, FUZZ_POISON_BYTE, sizeof(err));
    size_t n = serve_table_decode(p, len, &v, rows, TABLE_VALUES, err, sizeof(err));
    if (n == 0) {
        FUZZ_CHECK(fuzz_message_ok(err, sizeof(err)));
        return;
    }
    FUZZ_CHECK(n <= len && v.n_events >= 1 && v.n_events <= 255 && v.n_rows * v.n_events <= TABLE_VALUES);
    FUZZ_CHECK(v.bench >= p && v.bench + v.bench_len <= p + n);
    bool nul = memchr(v.bench, 0, v.bench_len) != NULL;
    for (size_t e = 0; e < v.n_events; e++) {
        FUZZ_CHECK(v.name_len[e] >= 1 && v.names[e] >= p && v.names[e] + v.name_len[e] <= p + n);
        nul |= memchr(v.names[e], 0, v.name_len[e]) != NULL;
        memcpy(names[e], v.names[e], v.name_len[e]);
        names[e][v.name_len[e]] = '\0';
        name_ptrs[e] = names[e];
    }
    if (nul)
        return; /* a name with a NUL in it is not one the image sends */
    memcpy(bench, v.bench, v.bench_len);
    bench[v.bench_len] = '\0';
    struct serve_table t = { bench, v.n_events, name_ptrs, v.n_rows, rows };
    size_t m = serve_table_encode(again, sizeof(again), &t);
    FUZZ_CHECK(m > 0 && m <= n && m <= sizeof(again)); /* the writer's numbers are never longer */
    FUZZ_CHECK(serve_table_decode(again, m, &w, again_rows, TABLE_VALUES, err, sizeof(err)) == m);
    FUZZ_CHECK(w.n_events == v.n_events && w.n_rows == v.n_rows && w.bench_len == v.bench_len);
    FUZZ_CHECK(memcmp(again_rows, rows, sizeof(int64_t) * v.n_rows * v.n_events) == 0);
    for (size_t e = 0; e < v.n_events; e++)
        FUZZ_CHECK(w.name_len[e] == v.name_len[e] && memcmp(w.names[e], v.names[e], v.name_len[e]) == 0);
}

/* A reply payload: CSV text, a table at each NUL. */
static void check_reply(const uint8_t *p, size_t len)
{
    for (const uint8_t *nul = memchr(p, 0, len); nul; nul = memchr(nul + 1, 0, len - (size_t)(nul + 1 - p)))
        check_table(nul, len - (size_t)(nul - p));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_request(data, size);
    check_reply(data, size);
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
            else if (f.type == SERVE_RESULT)
                check_reply(f.payload, f.len);
        }
        off += consumed;
    }
    return 0;
}
