/*
 * test_serve_loop.c — serve mode's loop (kernel/serve/nb_serve.h) against a
 * scripted serial line: the replies, in order, to a fingerprint request, a
 * benchmark, the same benchmark again (its reply repeated, not run again),
 * a damaged request, polls, a request over the limit, an unknown type and
 * the end request; and the request's file as the benchmark reads it.
 */
#include "nb_test.h"
#include "host_platform.h"
#include "host_serial_line.h"
#include "nb_report.h"
#include "nb_serve.h"
#include "serial_frame.h"
#include "serve_frame.h"
#include "serve_request.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int runs;
    char seen_code[16];
    const struct nb_platform *p;
} line;

static size_t frame(uint8_t *out, uint8_t type, uint8_t seq, const void *payload, size_t len)
{
    return serve_frame_encode(out, 1024, type, seq, payload, (uint32_t)len);
}

struct ctx {
    struct report *r;
};

static void run_text(void *arg, const char *text, size_t len)
{
    struct ctx *c = arg;
    line.runs++;
    void *data;
    size_t size;
    if (line.p->read_file(line.p->ctx, "nanobench/c", &data, &size) == NB_OK) {
        memcpy(line.seen_code, data, size < 15 ? size : 15);
        line.p->free_file(line.p->ctx, data, size);
    }
    report_begin(c->r, "k");
    report_value(c->r, "RDTSC", len == 12 && memcmp(text, "k: -code c:0", 12) == 0 ? "32.00" : "0.00");
    report_end(c->r);
}

static size_t fingerprint(void *arg, char *out, size_t cap)
{
    (void)arg;
    size_t n = strlen("cpu: test\n");
    memcpy(out, "cpu: test\n", n + 1 <= cap ? n + 1 : 0);
    return n;
}

NB_TEST(serve_loop_replies_in_order)
{
    struct host_platform h;
    host_platform_init(&h);
    host_line_install(&h);
    static struct nb_platform served;
    nb_serve_platform(&served, &h.p);
    line.p = &served;
    memset(&line, 0, offsetof(__typeof__(line), p));

    uint8_t f[1024], payload[128];
    size_t n;
    host_line_add(f, frame(f, 'F', 1, NULL, 0));
    size_t pl = 0;
    payload[pl++] = 1;
    payload[pl++] = 1;
    payload[pl++] = 'c';
    memcpy(payload + pl, "\x03\x00\x00\x00" "abc", 7);
    pl += 7;
    memcpy(payload + pl, "k: -code c:0", 12);
    pl += 12;
    n = frame(f, 'B', 2, payload, pl);
    host_line_add(f, n);
    host_line_add(f, n); /* the same request again: its reply was lost */
    n = frame(f, 'B', 3, payload, pl);
    f[12] ^= 0x01; /* damaged */
    host_line_add(f, n);
    f[12] ^= 0x01;
    host_line_add(f, n);
    host_line_add(f, frame(f, 'P', 3, NULL, 0));
    host_line_add(f, frame(f, 'P', 9, NULL, 0));
    n = frame(f, 'B', 4, NULL, 0);
    f[3] = 0xE0, f[4] = 0x93, f[5] = 0x04; /* 300000 bytes announced */
    uint16_t hcrc = crc16_ccitt(CRC16_INIT, f + 1, 5);
    f[6] = (uint8_t)hcrc, f[7] = (uint8_t)(hcrc >> 8);
    host_line_add(f, 8);
    host_line_add((const uint8_t *)"\x90\x90\x90\x90", 4); /* what was sent of it before the refusal */
    host_line_add(f, frame(f, 'Q', 5, NULL, 0));
    host_line_add(f, frame(f, 'E', 6, "exit", 4));

    struct report r;
    report_init(&r, &served);
    struct ctx c = { &r };
    const struct nb_serve_ops ops = { &c, run_text, fingerprint };
    enum nb_finish_action finish = NB_FINISH_SHUTDOWN;
    bool finish_set = false;
    CHECK(nb_serve(&served, &r, &ops, &finish, &finish_set));
    CHECK(finish_set);
    CHECK_EQ_INT(finish, NB_FINISH_EXIT);
    CHECK_EQ_INT(line.runs, 2); /* B 2 and B 3; the repetition of B 2 was not run */
    CHECK_EQ_STR(line.seen_code, "abc");

    static const struct {
        char type;
        int seq;
        const char *payload;
    } want[] = {
        { 'S', 0, "limit 262144" },
        { 'R', 1, "cpu: test\nserve: limit 262144\n" },
        { 'A', 2, "" },
        { 'R', 2, "k,RDTSC,32.00,,\n" },
        { 'R', 2, "k,RDTSC,32.00,,\n" },
        { 'N', 3, "" },
        { 'A', 3, "" },
        { 'R', 3, "k,RDTSC,32.00,,\n" },
        { 'R', 3, "k,RDTSC,32.00,,\n" },
        { 'N', 9, "" },
        { 'X', 4, "request: 300000 bytes is more than this image accepts (limit 262144 bytes)" },
        { 'X', 5, "request: unknown type 0x51 (B benchmark, F fingerprint, E end, P poll)" },
        { 'R', 6, "served 2 requests" },
    };
    size_t pos = 0;
    for (size_t i = 0; i < NB_ARRAY_SIZE(want); i++) {
        struct serve_frame fr;
        size_t consumed;
        REQUIRE(serve_frame_scan(host_line.out + pos, host_line.out_len - pos, 1 << 20, &fr, &consumed) ==
                SERVE_SCAN_FRAME);
        CHECK_EQ_INT(fr.type, want[i].type);
        CHECK_EQ_INT(fr.seq, want[i].seq);
        char got[512];
        REQUIRE(fr.len < sizeof(got));
        memcpy(got, fr.payload, fr.len);
        got[fr.len] = '\0';
        CHECK_EQ_STR(got, want[i].payload);
        if (getenv("SERVE_DUMP"))
            fprintf(stderr, "%c %d %s\n", fr.type, fr.seq, got);
        pos += consumed;
    }
    CHECK_EQ_INT(host_line.out_len - pos, 2); /* "\r\n": the log goes on on a line of its own */
    host_platform_free(&h);
}
