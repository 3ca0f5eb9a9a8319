/*
 * nb_report.c — serial text and results files (see nb_report.h).
 */
#include "nb_report.h"
#include "nb_paths.h"
#include "nb_text.h"
#include "serial_frame.h"

#define LINE_MAX 512
#define LAST_RUN_PATH NB_RESULTS_DIR "/last-run"
#define RUN_NUMBER_MAX 9999

static const char *status_text(int status)
{
    switch (status) {
    case NB_OK: return "";
    case NB_ENOENT: return "not found";
    case NB_EIO: return "write error (read-only or full partition?)";
    case NB_ENOMEM: return "out of memory";
    default: return "error";
    }
}

void report_init(struct report *r, const struct nb_platform *p)
{
    nb_memset(r, 0, sizeof(*r));
    r->p = p;
}

static void write_both(struct report *r, struct nb_file *f, const char *text, size_t len);
static void write_now(struct report *r, struct nb_file *f, const char *text, size_t len);
void report_commit(struct report *r);

/* One line (text ends with '\n') to serial and console, framed (serial_frame.h). */
static void serial_line(struct report *r, const char *text, size_t len)
{
    char out[LINE_MAX + SERIAL_FRAME_MAX + 2];
    if (r->serial_quiet)
        return;
    size_t body = len > 0 && text[len - 1] == '\n' ? len - 1 : len;
    if (body > LINE_MAX)
        body = LINE_MAX;
    nb_memcpy(out, text, body);
    size_t n = body + serial_frame(out + body, text, body, r->serial_seq++);
    out[n++] = '\n';
    r->p->write_text(r->p->ctx, out, n);
}

static void files_failed(struct report *r, const char *what, int status)
{
    r->files_ok = false;
    char line[LINE_MAX];
    size_t n = nb_snprintf(line, sizeof(line), "results: %s%s%s; results continue on serial only\n",
                           what, status == NB_OK ? "" : ": ", status_text(status));
    serial_line(r, line, n < sizeof(line) ? n : sizeof(line) - 1);
}

static unsigned read_last_run(struct report *r)
{
    void *data;
    size_t size;
    if (r->p->read_file(r->p->ctx, LAST_RUN_PATH, &data, &size) != NB_OK)
        return 0;
    char text[16] = "";
    size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
    nb_memcpy(text, data, n);
    r->p->free_file(r->p->ctx, data, size);
    while (n > 0 && nb_is_space(text[n - 1]))
        text[--n] = '\0';
    int64_t v;
    return (nb_parse_i64(text, &v) && v > 0 && v <= RUN_NUMBER_MAX) ? (unsigned)v : 0;
}

static int write_last_run(struct report *r)
{
    struct nb_file *f;
    int st = r->p->create_file(r->p->ctx, LAST_RUN_PATH, &f);
    if (st != NB_OK)
        return st;
    char text[16];
    size_t n = nb_snprintf(text, sizeof(text), "%u\n", r->run_number);
    st = r->p->write_file(r->p->ctx, f, text, n);
    if (st == NB_OK)
        st = r->p->flush_file(r->p->ctx, f);
    r->p->close_file(r->p->ctx, f);
    return st;
}

typedef int (*open_fn)(void *ctx, const char *path, struct nb_file **file);

/* Opens run-NNNN.txt and .csv with `open` (create or append); false after reporting. */
static bool open_pair(struct report *r, open_fn open)
{
    int st;
    if ((st = open(r->p->ctx, r->txt_path, &r->txt)) != NB_OK) {
        r->txt = NULL;
        files_failed(r, r->txt_path, st);
        return false;
    }
    if ((st = open(r->p->ctx, r->csv_path, &r->csv)) != NB_OK) {
        r->csv = NULL;
        files_failed(r, r->csv_path, st);
        return false;
    }
    r->files_ok = true;
    return true;
}

void report_open_files(struct report *r)
{
    const struct nb_platform *p = r->p;
    int st = p->make_dir(p->ctx, NB_RESULTS_DIR);
    if (st != NB_OK) {
        files_failed(r, "cannot create folder " NB_RESULTS_DIR, st);
        return;
    }
    unsigned n = read_last_run(r) + 1;
    for (; n <= RUN_NUMBER_MAX; n++) {
        nb_snprintf(r->txt_path, sizeof(r->txt_path), NB_RESULTS_DIR "/run-%04u.txt", n);
        nb_snprintf(r->csv_path, sizeof(r->csv_path), NB_RESULTS_DIR "/run-%04u.csv", n);
        if (!p->file_exists(p->ctx, r->txt_path) && !p->file_exists(p->ctx, r->csv_path))
            break;
    }
    if (n > RUN_NUMBER_MAX) {
        files_failed(r, "all run numbers up to 9999 are used", NB_OK);
        return;
    }
    r->run_number = n;
    if ((st = write_last_run(r)) != NB_OK) {
        files_failed(r, "cannot write " LAST_RUN_PATH, st);
        return;
    }
    if (!open_pair(r, p->create_file))
        return;
    static const char header[] = "benchmark,event,value,min,max\n";
    write_now(r, r->csv, header, sizeof(header) - 1);
    if (r->files_ok && (st = p->flush_file(p->ctx, r->csv)) != NB_OK)
        files_failed(r, r->csv_path, st);
    r->csv_durable = r->csv_written;
}

void report_reopen_files(struct report *r, unsigned run_number)
{
    report_reopen_files_at(r, run_number, ~0ull, ~0ull);
}

/*
 * The size of `path`, cut back to `keep` bytes when it is longer: the file
 * is read and written again (the seam has no truncate; this happens once,
 * after a reset). Returns NB_OK or the failing status.
 */
static int cut_file(struct report *r, const char *path, uint64_t keep, uint64_t *size)
{
    const struct nb_platform *p = r->p;
    void *data;
    size_t len;
    int st = p->read_file(p->ctx, path, &data, &len);
    if (st == NB_ENOENT) {
        *size = 0; /* append_file creates it */
        return NB_OK;
    }
    if (st != NB_OK)
        return st;
    *size = len;
    if ((uint64_t)len > keep) {
        struct nb_file *f;
        st = p->create_file(p->ctx, path, &f);
        if (st == NB_OK) {
            st = keep ? p->write_file(p->ctx, f, data, (size_t)keep) : NB_OK;
            if (st == NB_OK)
                st = p->flush_file(p->ctx, f);
            p->close_file(p->ctx, f);
        }
        *size = keep;
    }
    p->free_file(p->ctx, data, len);
    return st;
}

void report_reopen_files_at(struct report *r, unsigned run_number, uint64_t txt_size,
                            uint64_t csv_size)
{
    const struct nb_platform *p = r->p;
    int st;
    r->run_number = run_number;
    nb_snprintf(r->txt_path, sizeof(r->txt_path), NB_RESULTS_DIR "/run-%04u.txt", run_number);
    nb_snprintf(r->csv_path, sizeof(r->csv_path), NB_RESULTS_DIR "/run-%04u.csv", run_number);
    if ((st = cut_file(r, r->txt_path, txt_size, &r->txt_written)) != NB_OK) {
        files_failed(r, r->txt_path, st);
        return;
    }
    if ((st = cut_file(r, r->csv_path, csv_size, &r->csv_written)) != NB_OK) {
        files_failed(r, r->csv_path, st);
        return;
    }
    r->txt_durable = r->txt_written;
    r->csv_durable = r->csv_written;
    open_pair(r, p->append_file);
}

/* Appends to one results file now; the first failure switches files off. */
static void write_now(struct report *r, struct nb_file *f, const char *text, size_t len)
{
    if (!r->files_ok || !f)
        return;
    int st = r->p->write_file(r->p->ctx, f, text, len);
    if (st != NB_OK) {
        files_failed(r, f == r->txt ? r->txt_path : r->csv_path, st);
        return;
    }
    if (f == r->txt)
        r->txt_written += len;
    else
        r->csv_written += len;
}

/* Deferred mode: text for one file joins what waits for report_commit. */
static void defer_text(struct report *r, struct nb_file *f, const char *text, size_t len)
{
    bool txt = (f == r->txt);
    char *buf = txt ? r->commit_txt : r->commit_csv;
    size_t *buf_len = txt ? &r->commit_txt_len : &r->commit_csv_len;
    if (*buf_len + len > r->commit_cap)
        report_commit(r);
    if (len > r->commit_cap) {
        write_now(r, f, text, len); /* larger than the whole buffer: straight to the file */
        return;
    }
    nb_memcpy(buf + *buf_len, text, len);
    *buf_len += len;
}

static void flush_both(struct report *r)
{
    if (!r->files_ok)
        return;
    int st = r->p->flush_file(r->p->ctx, r->txt);
    if (st != NB_OK) {
        files_failed(r, r->txt_path, st);
        return;
    }
    st = r->p->flush_file(r->p->ctx, r->csv);
    if (st != NB_OK) {
        files_failed(r, r->csv_path, st);
        return;
    }
    r->txt_durable = r->txt_written;
    r->csv_durable = r->csv_written;
}

bool report_defer(struct report *r, size_t cap)
{
    if (!r->files_ok)
        return false;
    r->commit_txt = r->p->alloc_data(r->p->ctx, cap);
    r->commit_csv = r->p->alloc_data(r->p->ctx, cap);
    if (!r->commit_txt || !r->commit_csv) {
        if (r->commit_txt)
            r->p->free_mem(r->p->ctx, r->commit_txt, cap);
        if (r->commit_csv)
            r->p->free_mem(r->p->ctx, r->commit_csv, cap);
        r->commit_txt = r->commit_csv = NULL;
        return false;
    }
    r->commit_cap = cap;
    r->deferred = true;
    return true;
}

void report_commit(struct report *r)
{
    if (r->deferred) {
        /* Lines written while a block waited are in the buffers, in order. */
        size_t t = r->commit_txt_len, c = r->commit_csv_len;
        r->commit_txt_len = r->commit_csv_len = 0;
        if (t)
            write_now(r, r->txt, r->commit_txt, t);
        if (c)
            write_now(r, r->csv, r->commit_csv, c);
    }
    flush_both(r);
}

/* Writes out what the current benchmark has accumulated for one file. */
static void write_pending(struct report *r, struct nb_file *f, char *pending, size_t *len)
{
    if (*len) {
        if (r->deferred)
            defer_text(r, f, pending, *len);
        else
            write_now(r, f, pending, *len);
    }
    *len = 0;
}

/*
 * Outside a benchmark text goes to the file at once; inside, it waits for
 * report_end (a very long benchmark output is written early in pieces).
 */
static void write_both(struct report *r, struct nb_file *f, const char *text, size_t len)
{
    if (!r->in_benchmark) {
        if (r->deferred)
            defer_text(r, f, text, len);
        else
            write_now(r, f, text, len);
        return;
    }
    bool txt = (f == r->txt);
    char *pending = txt ? r->pending_txt : r->pending_csv;
    size_t *pending_len = txt ? &r->pending_txt_len : &r->pending_csv_len;
    if (*pending_len + len > REPORT_PENDING_MAX)
        write_pending(r, f, pending, pending_len);
    if (len > REPORT_PENDING_MAX) {
        if (r->deferred)
            defer_text(r, f, text, len);
        else
            write_now(r, f, text, len);
        return;
    }
    nb_memcpy(pending + *pending_len, text, len);
    *pending_len += len;
}

static void emit_text(struct report *r, const char *text, size_t len)
{
    serial_line(r, text, len);
    write_both(r, r->txt, text, len);
}

static void vline(struct report *r, const char *prefix, const char *fmt, va_list ap)
{
    char line[LINE_MAX];
    size_t n = nb_snprintf(line, sizeof(line), "%s", prefix);
    n += nb_vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    line[n] = '\0';
    emit_text(r, line, n);
}

/* Tape record kinds, each followed by its strings (NUL-terminated). */
enum tape_op { TAPE_LINE = 1, TAPE_SERIAL, TAPE_VALUE, TAPE_RANGE, TAPE_METRIC, TAPE_ERROR };
#define TAPE_MAX_FIELDS 5

/* One record of `n` strings on r's tape; counted as dropped when it does not fit. */
static void tape_put(struct report *r, enum tape_op op, unsigned n, const char *const *fields)
{
    struct report_tape *t = r->tape;
    size_t need = 1;
    for (unsigned i = 0; i < n; i++)
        need += nb_strlen(fields[i]) + 1;
    if (t->len > t->cap || need > t->cap - t->len) {
        t->dropped++;
        return;
    }
    t->buf[t->len++] = (char)op;
    for (unsigned i = 0; i < n; i++) {
        size_t len = nb_strlen(fields[i]) + 1;
        nb_memcpy(t->buf + t->len, fields[i], len);
        t->len += len;
    }
}

static void tape_line(struct report *r, enum tape_op op, const char *fmt, va_list ap)
{
    char line[LINE_MAX];
    nb_vsnprintf(line, sizeof(line) - 1, fmt, ap);
    const char *fields[1] = { line };
    tape_put(r, op, 1, fields);
}

void report_line(struct report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->tape)
        tape_line(r, TAPE_LINE, fmt, ap);
    else
        vline(r, "", fmt, ap);
    va_end(ap);
}

void report_serial_line(struct report *r, const char *fmt, ...)
{
    char line[LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    if (r->tape) {
        tape_line(r, TAPE_SERIAL, fmt, ap);
        va_end(ap);
        return;
    }
    size_t n = nb_vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    serial_line(r, line, n);
}

/* CSV field quoting (RFC 4180): quote when the text has a comma, quote or newline. */
static size_t csv_field(char *out, size_t cap, const char *text)
{
    bool quote = false;
    for (const char *c = text; *c; c++)
        quote |= (*c == ',' || *c == '"' || *c == '\n' || *c == '\r');
    size_t n = 0;
    if (quote && n + 1 < cap)
        out[n++] = '"';
    for (const char *c = text; *c && n + 2 < cap; c++) {
        if (*c == '"')
            out[n++] = '"';
        out[n++] = *c;
    }
    if (quote && n + 1 < cap)
        out[n++] = '"';
    out[n] = '\0';
    return n;
}

/* One row: benchmark,event,value,min,max (min and max empty but with -range). */
static void csv_row_of(struct report *r, const char *benchmark, const char *event, const char *value,
                       const char *min, const char *max)
{
    char row[LINE_MAX + 512]; /* benchmark and event names are far shorter than 400 */
    size_t n = csv_field(row, sizeof(row), benchmark);
    row[n++] = ',';
    n += csv_field(row + n, sizeof(row) - n, event);
    row[n++] = ',';
    n += csv_field(row + n, sizeof(row) - n - 64, value);
    row[n++] = ',';
    n += csv_field(row + n, sizeof(row) - n - 32, min ? min : "");
    row[n++] = ',';
    n += csv_field(row + n, sizeof(row) - n - 1, max ? max : "");
    row[n++] = '\n';
    write_both(r, r->csv, row, n);
    if (r->capture) {
        if (r->capture_cap - r->capture_len >= n) {
            nb_memcpy(r->capture + r->capture_len, row, n);
            r->capture_len += n;
        } else {
            r->capture_full = true;
        }
    }
}

static void csv_row(struct report *r, const char *event, const char *value)
{
    csv_row_of(r, r->benchmark ? r->benchmark : "", event, value, NULL, NULL);
}

void report_platform_fact(struct report *r, const char *key, const char *value)
{
    report_line(r, "platform: %s = %s", key, value);
    csv_row_of(r, "platform", key, value, NULL, NULL);
}

/*
 * LAVA's monitor turns each "lava:" line into a test case (lava/README.md):
 * CASE is "benchmark.event" with every character that is not a letter,
 * digit, '.', '_' or '-' made '_' (names with spaces stay one word).
 */
static size_t lava_case(char *out, size_t cap, const char *benchmark, const char *what)
{
    size_t n = nb_snprintf(out, cap, "%s.%s", benchmark ? benchmark : "suite", what);
    for (size_t i = 0; i < n && out[i]; i++) {
        char c = out[i];
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
        if (!word)
            out[i] = '_';
    }
    return n;
}

/* Serial only: the .txt file stays the human report. */
static void lava_line(struct report *r, const char *what, const char *result, const char *value,
                      const char *units, bool per_rep)
{
    char line[LINE_MAX], id[LINE_MAX / 2];
    lava_case(id, sizeof(id), r->benchmark, what);
    size_t n;
    if (value)
        n = nb_snprintf(line, sizeof(line) - 1, "lava: %s %s %s %s%s", id, result, value, units,
                        per_rep && r->lava_units_suffix ? r->lava_units_suffix : "");
    else
        n = nb_snprintf(line, sizeof(line) - 1, "lava: %s %s", id, result);
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    serial_line(r, line, n);
}

/* The measurement of a value as printed ("32.00", "-1.50 [...]"), or 0 bytes when it is not a number. */
static size_t leading_number(const char *value, char *out, size_t cap)
{
    size_t n = 0;
    if (value[n] == '-')
        n++;
    if (value[n] < '0' || value[n] > '9')
        return 0;
    while ((value[n] >= '0' && value[n] <= '9') || value[n] == '.')
        n++;
    if (n + 1 > cap)
        return 0;
    nb_memcpy(out, value, n);
    out[n] = '\0';
    return n;
}

static void lava_value(struct report *r, const char *event, const char *value, const char *units,
                       bool per_rep)
{
    char number[32];
    if (leading_number(value, number, sizeof(number)))
        lava_line(r, event, "pass", number, units, per_rep);
    else
        lava_line(r, event, "skip", NULL, NULL, false); /* n/a: the event or metric does not exist here */
}

void report_lava_begin(struct report *r, const char *units_suffix)
{
    r->lava = true;
    r->lava_units_suffix = units_suffix;
}

void report_lava_check(struct report *r, const char *event, const char *result)
{
    if (r->lava) {
        char what[LINE_MAX / 4];
        nb_snprintf(what, sizeof(what), "expect.%s", event);
        lava_line(r, what, result, NULL, NULL, false);
    }
}

void report_begin(struct report *r, const char *name)
{
    r->benchmark = name;
    r->in_benchmark = true;
    r->lava = false;
    r->pending_txt_len = r->pending_csv_len = 0;
    r->n_benchmarks++;
    report_line(r, "[%s]", name);
}

void report_value(struct report *r, const char *event, const char *value)
{
    if (r->tape) {
        const char *fields[2] = { event, value };
        tape_put(r, TAPE_VALUE, 2, fields);
        return;
    }
    report_line(r, "%s: %s", event, value);
    csv_row(r, event, value);
    if (r->lava)
        lava_value(r, event, value, nb_strcmp(event, "RDTSC") == 0 ? "tsc_ticks" : "events", true);
    if (r->on_value)
        r->on_value(r->observer_arg, event, value);
}

void report_value_range(struct report *r, const char *event, const char *text, const char *value,
                        const char *min, const char *max)
{
    if (r->tape) {
        const char *fields[5] = { event, text, value, min, max };
        tape_put(r, TAPE_RANGE, 5, fields);
        return;
    }
    report_line(r, "%s: %s", event, text);
    csv_row_of(r, r->benchmark ? r->benchmark : "", event, value, min, max);
    if (r->on_value)
        r->on_value(r->observer_arg, event, value);
}

void report_metric(struct report *r, const char *name, const char *csv_name, const char *value)
{
    if (r->tape) {
        const char *fields[3] = { name, csv_name, value };
        tape_put(r, TAPE_METRIC, 3, fields);
        return;
    }
    report_line(r, "%s: %s", name, value);
    csv_row(r, csv_name, value);
    if (r->lava)
        lava_value(r, name, value, "ratio", false);
    if (r->on_value)
        r->on_value(r->observer_arg, csv_name, value);
}

/* An error line and row (counted by the caller). */
static void emit_error(struct report *r, const char *message)
{
    report_line(r, "error: %s", message);
    csv_row(r, "error", message);
    if (r->lava)
        lava_line(r, "error", "fail", NULL, NULL, false);
    if (r->on_error)
        r->on_error(r->observer_arg, message);
}

void report_error(struct report *r, const char *fmt, ...)
{
    char message[LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    nb_vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    r->n_errors++;
    if (r->tape) {
        const char *fields[1] = { message };
        tape_put(r, TAPE_ERROR, 1, fields);
        return;
    }
    emit_error(r, message);
}

void report_tape_start(struct report *r, struct report_tape *t, char *buf, size_t cap)
{
    t->buf = buf;
    t->cap = buf ? cap : 0;
    t->len = 0;
    t->dropped = 0;
    r->tape = t;
}

void report_tape_stop(struct report *r)
{
    r->tape = NULL;
}

void report_tape_replay(struct report *r, const struct report_tape *t)
{
    const char *f[TAPE_MAX_FIELDS];
    static const unsigned n_fields[] = { [TAPE_LINE] = 1, [TAPE_SERIAL] = 1, [TAPE_VALUE] = 2,
                                         [TAPE_RANGE] = 5, [TAPE_METRIC] = 3, [TAPE_ERROR] = 1 };
    for (size_t at = 0; at < t->len;) {
        enum tape_op op = (enum tape_op)t->buf[at++];
        if (op < TAPE_LINE || op > TAPE_ERROR)
            break;
        for (unsigned i = 0; i < n_fields[op]; i++) {
            f[i] = t->buf + at;
            at += nb_strlen(f[i]) + 1;
        }
        switch (op) {
        case TAPE_LINE: report_line(r, "%s", f[0]); break;
        case TAPE_SERIAL: report_serial_line(r, "%s", f[0]); break;
        case TAPE_VALUE: report_value(r, f[0], f[1]); break;
        case TAPE_RANGE: report_value_range(r, f[0], f[1], f[2], f[3], f[4]); break;
        case TAPE_METRIC: report_metric(r, f[0], f[1], f[2]); break;
        case TAPE_ERROR: emit_error(r, f[0]); break;
        }
    }
    if (t->dropped)
        report_line(r, "warning: %u report line%s of the benchmark's processor did not fit in its "
                       "buffer (%llu bytes) and %s lost", t->dropped, t->dropped == 1 ? "" : "s",
                    (unsigned long long)t->cap, t->dropped == 1 ? "was" : "were");
}

void report_end(struct report *r)
{
    if (r->in_benchmark) {
        write_pending(r, r->txt, r->pending_txt, &r->pending_txt_len);
        write_pending(r, r->csv, r->pending_csv, &r->pending_csv_len);
        r->in_benchmark = false;
    }
    if (!r->deferred)
        flush_both(r);
}

void report_close(struct report *r)
{
    report_end(r);
    report_commit(r);
    if (r->commit_txt)
        r->p->free_mem(r->p->ctx, r->commit_txt, r->commit_cap);
    if (r->commit_csv)
        r->p->free_mem(r->p->ctx, r->commit_csv, r->commit_cap);
    r->commit_txt = r->commit_csv = NULL;
    r->deferred = false;
    if (r->txt)
        r->p->close_file(r->p->ctx, r->txt);
    if (r->csv)
        r->p->close_file(r->p->ctx, r->csv);
    r->txt = r->csv = NULL;
    r->files_ok = false;
}
