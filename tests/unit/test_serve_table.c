/*
 * test_serve_table.c — the cycle-by-cycle table block of serve replies
 * (kernel/report/serve_table.h): its exact bytes, the sizing call, the values at
 * the edges of the zigzag mapping, and the reader's refusals word for word.
 */
#include "nb_test.h"
#include "serve_table.h"

#include <string.h>

static const char *const NAMES[] = { "A", "BB" };
static const int64_t ROWS[] = { 0, 1, 2, -1, 64, 300 };
/* 00 'C', "k", 2 events "A" "BB", 3 rows, then zigzag ULEB128: 0 2 4 1 128 600. */
static const uint8_t BLOCK[] = { 0x00, 0x43, 0x01, 0x6b, 0x02, 0x01, 0x41, 0x02, 0x42, 0x42, 0x03,
                                 0x00, 0x02, 0x04, 0x01, 0x80, 0x01, 0xd8, 0x04 };

NB_TEST(serve_table_exact_bytes)
{
    struct serve_table t = { "k", 2, NAMES, 3, ROWS };
    CHECK_EQ_INT(serve_table_encode(NULL, 0, &t), sizeof(BLOCK));
    uint8_t out[64];
    memset(out, 0xEE, sizeof(out));
    CHECK_EQ_INT(serve_table_encode(out, sizeof(out), &t), sizeof(BLOCK));
    CHECK_EQ_BYTES(out, BLOCK, sizeof(BLOCK));
    CHECK_EQ_INT(out[sizeof(BLOCK)], 0xEE);
    /* Too small: the length still comes back, nothing is written past cap. */
    memset(out, 0xEE, sizeof(out));
    CHECK_EQ_INT(serve_table_encode(out, 5, &t), sizeof(BLOCK));
    CHECK_EQ_BYTES(out, BLOCK, 5);
    CHECK_EQ_INT(out[5], 0xEE);

    struct serve_table_view v;
    int64_t rows[8];
    char err[160] = "";
    CHECK_EQ_INT(serve_table_decode(BLOCK, sizeof(BLOCK), &v, rows, 8, err, sizeof(err)), sizeof(BLOCK));
    CHECK_EQ_STR(err, "");
    CHECK_EQ_INT(v.bench_len, 1);
    CHECK_EQ_INT(v.bench[0], 'k');
    CHECK_EQ_INT(v.n_events, 2);
    CHECK_EQ_INT(v.name_len[1], 2);
    CHECK_EQ_BYTES(v.names[1], "BB", 2);
    CHECK_EQ_INT(v.n_rows, 3);
    CHECK_EQ_BYTES(rows, ROWS, sizeof(ROWS));
}

NB_TEST(serve_table_extreme_values_round_trip)
{
    static const int64_t r[] = { INT64_MIN, INT64_MAX, -64, 63, -65, 64 };
    struct serve_table t = { "bench", 1, NAMES, 6, r };
    uint8_t out[128];
    size_t n = serve_table_encode(out, sizeof(out), &t);
    /* Header 2+6+1+2+1; values 10+10 bytes (64 bits), 1+1 (-64, 63), 2+2. */
    CHECK_EQ_INT(n, 12 + 26);
    struct serve_table_view v;
    int64_t rows[6];
    char err[160];
    CHECK_EQ_INT(serve_table_decode(out, n, &v, rows, 6, err, sizeof(err)), n);
    CHECK_EQ_BYTES(rows, r, sizeof(r));
}

NB_TEST(serve_table_refusals)
{
    char big[300];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    const char *names[] = { big };
    struct serve_table t = { "k", 1, names, 0, ROWS };
    CHECK_EQ_INT(serve_table_encode(NULL, 0, &t), 0);
    t = (struct serve_table){ "", 1, NAMES, 0, ROWS };
    CHECK_EQ_INT(serve_table_encode(NULL, 0, &t), 0);
    t = (struct serve_table){ "k", 0, NAMES, 0, ROWS };
    CHECK_EQ_INT(serve_table_encode(NULL, 0, &t), 0);

    struct serve_table_view v;
    int64_t rows[8];
    char err[200];
    CHECK_EQ_INT(serve_table_decode((const uint8_t *)"\x00X", 2, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: no 00 43 mark at its start");
    CHECK_EQ_INT(serve_table_decode(BLOCK, 3, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: the benchmark's name at byte 2 is empty or truncated");
    CHECK_EQ_INT(serve_table_decode(BLOCK, 8, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: event 2's name at byte 7 is empty or truncated");
    CHECK_EQ_INT(serve_table_decode(BLOCK, 10, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: the row count at byte 10 is truncated");
    CHECK_EQ_INT(serve_table_decode(BLOCK, 16, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: 3 rows of 2 events do not fit in the 5 bytes left (or the reader's room "
                      "for 8 values)");
    CHECK_EQ_INT(serve_table_decode(BLOCK, 18, &v, rows, 8, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: value 6 at byte 18 is truncated");
    CHECK_EQ_INT(serve_table_decode(BLOCK, sizeof(BLOCK), &v, rows, 5, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "cycle table: 3 rows of 2 events do not fit in the 8 bytes left (or the reader's room "
                      "for 5 values)");
}
