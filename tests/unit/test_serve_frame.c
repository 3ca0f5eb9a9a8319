/*
 * test_serve_frame.c — serve-mode frames and request payloads: exact bytes
 * of a frame, round trip, damaged header and payload, a frame split over two
 * reads, garbage and log text around frames, the size limit, and request
 * payloads that do not parse (each with its reason).
 */
#include "nb_test.h"
#include "serial_frame.h"
#include "serve_frame.h"
#include "serve_request.h"

#include <string.h>

NB_TEST(serve_frame_exact_bytes)
{
    uint8_t out[32];
    size_t n = serve_frame_encode(out, sizeof(out), 'B', 7, "ab", 2);
    REQUIRE(n == 12);
    const uint8_t head[] = { 0x01, 'B', 7, 2, 0, 0 };
    CHECK(memcmp(out, head, sizeof(head)) == 0);
    uint16_t hcrc = crc16_ccitt(CRC16_INIT, out + 1, 5);
    CHECK_EQ_U64(out[6] | out[7] << 8, hcrc);
    CHECK(memcmp(out + 8, "ab", 2) == 0);
    CHECK_EQ_U64(out[10] | out[11] << 8, crc16_ccitt(CRC16_INIT, out + 1, 9));
    CHECK_EQ_INT(serve_frame_encode(out, 11, 'B', 7, "ab", 2), 0); /* too small */
}

NB_TEST(serve_frame_round_trip_in_log_text)
{
    uint8_t buf[128];
    const char *log = "RDTSC: 32.00\t|0003 1234\r\n";
    size_t pre = strlen(log);
    memcpy(buf, log, pre);
    size_t n = serve_frame_encode(buf + pre, sizeof(buf) - pre, 'R', 200, "RDTSC,32.00", 11);
    struct serve_frame f;
    size_t consumed;
    /* Every prefix short of the whole frame asks for more, dropping only the text before it. */
    for (size_t k = 0; k < n; k++) {
        CHECK_EQ_INT(serve_frame_scan(buf, pre + k, 1024, &f, &consumed), SERVE_SCAN_MORE);
        CHECK_EQ_INT(consumed, pre);
    }
    REQUIRE(serve_frame_scan(buf, pre + n, 1024, &f, &consumed) == SERVE_SCAN_FRAME);
    CHECK_EQ_INT(consumed, pre + n);
    CHECK_EQ_INT(f.type, 'R');
    CHECK_EQ_INT(f.seq, 200);
    CHECK_EQ_INT(f.len, 11);
    CHECK(memcmp(f.payload, "RDTSC,32.00", 11) == 0);
}

NB_TEST(serve_frame_damage)
{
    uint8_t good[64], buf[64];
    size_t n = serve_frame_encode(good, sizeof(good), 'B', 1, "hello", 5);
    struct serve_frame f;
    size_t consumed;
    /* A flipped payload bit: the header still names the request, so it can be refused. */
    memcpy(buf, good, n);
    buf[9] ^= 0x10;
    REQUIRE(serve_frame_scan(buf, n, 1024, &f, &consumed) == SERVE_SCAN_DAMAGED);
    CHECK_EQ_INT(f.type, 'B');
    CHECK_EQ_INT(f.seq, 1);
    CHECK_EQ_INT(consumed, 1);
    /* A flipped length bit: the header CRC catches it before any wait for bytes. */
    memcpy(buf, good, n);
    buf[4] ^= 0x40;
    CHECK_EQ_INT(serve_frame_scan(buf, n, 1 << 20, &f, &consumed), SERVE_SCAN_SKIP);
    CHECK_EQ_INT(consumed, 1);
    /* A dropped byte, then the retransmission: the damaged copy is skipped, the second found. */
    memcpy(buf, good, 6);
    memcpy(buf + 6, good + 7, n - 7);
    memcpy(buf + n - 1, good, n);
    size_t have = 2 * n - 1, off = 0;
    enum serve_scan st;
    int rounds = 0;
    while ((st = serve_frame_scan(buf + off, have - off, 1024, &f, &consumed)) != SERVE_SCAN_FRAME) {
        REQUIRE(st != SERVE_SCAN_MORE);
        off += consumed;
        REQUIRE(++rounds < 40);
    }
    CHECK(f.payload == buf + (n - 1) + SERVE_HEADER); /* the retransmitted copy */
    CHECK(memcmp(f.payload, "hello", 5) == 0);
}

NB_TEST(serve_frame_too_large)
{
    uint8_t buf[64];
    serve_frame_encode(buf, sizeof(buf), 'B', 9, "0123456789", 10);
    struct serve_frame f;
    size_t consumed;
    REQUIRE(serve_frame_scan(buf, SERVE_HEADER, 9, &f, &consumed) == SERVE_SCAN_TOO_LARGE);
    CHECK_EQ_INT(f.len, 10);
    CHECK_EQ_INT(f.seq, 9);
    CHECK_EQ_INT(consumed, SERVE_HEADER);
}

/* A payload of files then text, built as the host builds it. */
static size_t put_file(uint8_t *p, const char *path, const char *data, size_t size)
{
    size_t n = 0, plen = strlen(path);
    p[n++] = (uint8_t)plen;
    memcpy(p + n, path, plen);
    n += plen;
    for (int i = 0; i < 4; i++)
        p[n++] = (uint8_t)(size >> (8 * i));
    memcpy(p + n, data, size);
    return n + size;
}

NB_TEST(serve_request_files_and_text)
{
    uint8_t p[256];
    size_t n = 0;
    p[n++] = 2;
    n += put_file(p + n, "code/r.bin", "\x48\x01\xd8", 3);
    n += put_file(p + n, "configs/r.cfg", "", 0);
    const char *text = "r: -code code/r.bin\n";
    memcpy(p + n, text, strlen(text));
    n += strlen(text);
    struct serve_request r;
    char err[160];
    REQUIRE(serve_request_parse(p, n, &r, err, sizeof(err)) == 0);
    CHECK_EQ_INT(r.n_files, 2);
    CHECK(r.files[0].path_len == 10 && memcmp(r.files[0].path, "code/r.bin", 10) == 0);
    CHECK(r.files[0].size == 3 && memcmp(r.files[0].data, "\x48\x01\xd8", 3) == 0);
    CHECK_EQ_INT(r.files[1].size, 0);
    CHECK(r.text_len == strlen(text) && memcmp(r.text, text, r.text_len) == 0);
}

NB_TEST(serve_request_errors)
{
    uint8_t p[256] = { 0 };
    struct serve_request r;
    char err[160];
    CHECK_EQ_INT(serve_request_parse(p, 0, &r, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "request: empty payload (expected a file count)");
    p[0] = 9;
    CHECK_EQ_INT(serve_request_parse(p, 1, &r, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "request: 9 files (at most 8)");
    size_t n = 1 + put_file(p + 1, "../x", "a", 1);
    p[0] = 1;
    CHECK_EQ_INT(serve_request_parse(p, n, &r, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "request: file 1: path at byte 2 is not a relative path of [A-Za-z0-9_.-/]");
    n = 1 + put_file(p + 1, "code/a", "abcd", 4);
    CHECK_EQ_INT(serve_request_parse(p, n - 1, &r, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "request: file 1: 4 bytes announced past the end");
    memcpy(p + n, "a: x\0", 5);
    CHECK_EQ_INT(serve_request_parse(p, n + 5, &r, err, sizeof(err)), -1);
    CHECK_EQ_STR(err, "request: NUL byte in the suite text at byte 20");
}
