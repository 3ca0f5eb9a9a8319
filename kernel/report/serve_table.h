/*
 * serve_table.h — the cycle-by-cycle table in a serve-mode reply
 * (docs/serve.md, "Cycle-by-cycle tables"): a block inside an R reply's
 * payload, after the CSV rows of its benchmark. The CSV text never holds a
 * NUL byte, so a NUL starts a block:
 *
 *   0x00 'C'                       a cycle table
 *   1 byte, name                   the benchmark's name (1-255 bytes)
 *   1 byte                         number of events E (1-255)
 *   E times: 1 byte, name          the events' names (1-255 bytes each)
 *   ULEB128                        number of rows N
 *   N x E signed values            row by row, each zigzag-mapped and ULEB128
 *
 * The rows are running totals in delta form: the first row is the first
 * reading of the counters, every further row what each event counted since
 * the row before. A count of -64..63 takes one byte, so a row of E small
 * counts takes E bytes.
 */
#ifndef SERVE_TABLE_H
#define SERVE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_TABLE_MARK0 0x00
#define SERVE_TABLE_MARK1 'C'
#define SERVE_TABLE_NAME_MAX 255u

struct serve_table {
    const char *bench;
    size_t n_events;
    const char *const *names;
    size_t n_rows;
    const int64_t *rows; /* n_rows x n_events, row by row */
};

/*
 * Encodes t into out (as much as fits in cap); returns the block's whole
 * length, so a call with cap 0 sizes it. 0: a name is empty or longer than
 * 255 bytes, or there are no events or more than 255.
 */
size_t serve_table_encode(uint8_t *out, size_t cap, const struct serve_table *t);

/*
 * The host's reading of a block (the tests' and the fuzzer's; the Python
 * API has its own, python/nanobench_efi/frame.py). Reads the block at in[0]
 * into t: names point into `in` (not terminated: lengths in name_len),
 * rows into `rows` (room for rows_cap values). Returns the block's length,
 * or 0 with the reason in err.
 */
struct serve_table_view {
    const uint8_t *bench;
    size_t bench_len;
    size_t n_events;
    const uint8_t *names[255];
    size_t name_len[255];
    size_t n_rows;
};
size_t serve_table_decode(const uint8_t *in, size_t n, struct serve_table_view *t, int64_t *rows, size_t rows_cap,
                          char *err, size_t err_cap);

#endif
