/*
 * serve_table.c — the cycle-by-cycle table block of serve replies (see
 * serve_table.h).
 */
#include "serve_table.h"
#include "nb_text.h"

/* One byte at out[pos] when it fits; the position moves on either way (sizing). */
static void put(uint8_t *out, size_t cap, size_t *pos, uint8_t b)
{
    if (*pos < cap)
        out[*pos] = b;
    (*pos)++;
}

static void put_uleb(uint8_t *out, size_t cap, size_t *pos, uint64_t v)
{
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        put(out, cap, pos, v ? (uint8_t)(b | 0x80) : b);
    } while (v);
}

static bool put_name(uint8_t *out, size_t cap, size_t *pos, const char *name)
{
    size_t n = nb_strlen(name);
    if (n == 0 || n > SERVE_TABLE_NAME_MAX)
        return false;
    put(out, cap, pos, (uint8_t)n);
    for (size_t i = 0; i < n; i++)
        put(out, cap, pos, (uint8_t)name[i]);
    return true;
}

size_t serve_table_encode(uint8_t *out, size_t cap, const struct serve_table *t)
{
    if (t->n_events == 0 || t->n_events > 255)
        return 0;
    size_t pos = 0;
    put(out, cap, &pos, SERVE_TABLE_MARK0);
    put(out, cap, &pos, SERVE_TABLE_MARK1);
    if (!put_name(out, cap, &pos, t->bench))
        return 0;
    put(out, cap, &pos, (uint8_t)t->n_events);
    for (size_t e = 0; e < t->n_events; e++)
        if (!put_name(out, cap, &pos, t->names[e]))
            return 0;
    put_uleb(out, cap, &pos, t->n_rows);
    for (size_t i = 0; i < t->n_rows * t->n_events; i++) {
        uint64_t v = (uint64_t)t->rows[i];
        put_uleb(out, cap, &pos, (v << 1) ^ (uint64_t)(t->rows[i] < 0 ? -1 : 0)); /* zigzag */
    }
    return pos;
}

static bool get_uleb(const uint8_t *in, size_t n, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= n)
            return false;
        uint8_t b = in[(*pos)++];
        if (shift == 63 && b > 1)
            return false; /* more than 64 bits */
        *v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static bool get_name(const uint8_t *in, size_t n, size_t *pos, const uint8_t **name, size_t *len)
{
    if (*pos >= n || in[*pos] == 0 || n - *pos - 1 < in[*pos])
        return false;
    *len = in[(*pos)++];
    *name = in + *pos;
    *pos += *len;
    return true;
}

size_t serve_table_decode(const uint8_t *in, size_t n, struct serve_table_view *t, int64_t *rows, size_t rows_cap,
                          char *err, size_t err_cap)
{
    nb_memset(t, 0, sizeof(*t));
    size_t pos = 2;
    if (n < 2 || in[0] != SERVE_TABLE_MARK0 || in[1] != SERVE_TABLE_MARK1) {
        nb_snprintf(err, err_cap, "cycle table: no 00 43 mark at its start");
        return 0;
    }
    if (!get_name(in, n, &pos, &t->bench, &t->bench_len)) {
        nb_snprintf(err, err_cap, "cycle table: the benchmark's name at byte %zu is empty or truncated", pos);
        return 0;
    }
    if (pos >= n || in[pos] == 0) {
        nb_snprintf(err, err_cap, "cycle table: no events (byte %zu)", pos);
        return 0;
    }
    t->n_events = in[pos++];
    for (size_t e = 0; e < t->n_events; e++) {
        if (!get_name(in, n, &pos, &t->names[e], &t->name_len[e])) {
            nb_snprintf(err, err_cap, "cycle table: event %zu's name at byte %zu is empty or truncated", e + 1, pos);
            return 0;
        }
    }
    uint64_t n_rows;
    if (!get_uleb(in, n, &pos, &n_rows)) {
        nb_snprintf(err, err_cap, "cycle table: the row count at byte %zu is truncated", pos);
        return 0;
    }
    if (n_rows > (n - pos) / t->n_events || n_rows * t->n_events > rows_cap) {
        nb_snprintf(err, err_cap, "cycle table: %llu rows of %zu events do not fit in the %zu bytes left "
                    "(or the reader's room for %zu values)", (unsigned long long)n_rows, t->n_events, n - pos,
                    rows_cap);
        return 0;
    }
    t->n_rows = (size_t)n_rows;
    for (size_t i = 0; i < t->n_rows * t->n_events; i++) {
        uint64_t z;
        if (!get_uleb(in, n, &pos, &z)) {
            nb_snprintf(err, err_cap, "cycle table: value %zu at byte %zu is truncated", i + 1, pos);
            return 0;
        }
        rows[i] = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    }
    return pos;
}
