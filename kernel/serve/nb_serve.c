/*
 * nb_serve.c — serve mode: the receive loop, replies and the in-memory
 * files of requests (see nb_serve.h).
 */
#include "nb_serve.h"
#include "bench_options.h"
#include "nb_text.h"
#include "serve_frame.h"
#include "serve_request.h"

#define OVERLAY_FILES 16

struct overlay_file {
    char path[SERVE_PATH_MAX + 16]; /* "nanobench/" + the request's path */
    uint8_t *data;
    size_t size;
};

/* One image, one serial line: the overlay is the image's (as boot/ keeps its state). */
static struct {
    const struct nb_platform *base;
    struct overlay_file files[OVERLAY_FILES];
    size_t n;
    /* Copies handed to the engine by read_file, freed by free_file. */
    void *given[OVERLAY_FILES];
    size_t given_size[OVERLAY_FILES];
} overlay;

static struct overlay_file *overlay_find(const char *path)
{
    for (size_t i = 0; i < overlay.n; i++)
        if (nb_strcmp(overlay.files[i].path, path) == 0)
            return &overlay.files[i];
    return NULL;
}

static int overlay_read_file(void *ctx, const char *path, void **data, size_t *size)
{
    struct overlay_file *f = overlay_find(path);
    if (!f)
        return overlay.base->read_file(ctx, path, data, size);
    *data = NULL;
    *size = f->size;
    if (!f->size)
        return NB_OK;
    size_t slot = 0;
    while (slot < OVERLAY_FILES && overlay.given[slot])
        slot++;
    if (slot == OVERLAY_FILES)
        return NB_ENOMEM;
    void *copy = overlay.base->alloc_data(ctx, f->size);
    if (!copy)
        return NB_ENOMEM;
    nb_memcpy(copy, f->data, f->size);
    overlay.given[slot] = copy;
    overlay.given_size[slot] = f->size;
    *data = copy;
    return NB_OK;
}

static void overlay_free_file(void *ctx, void *data, size_t size)
{
    for (size_t i = 0; i < OVERLAY_FILES; i++) {
        if (data && overlay.given[i] == data) {
            overlay.base->free_mem(ctx, data, overlay.given_size[i]);
            overlay.given[i] = NULL;
            return;
        }
    }
    overlay.base->free_file(ctx, data, size);
}

static bool overlay_file_exists(void *ctx, const char *path)
{
    return overlay_find(path) || overlay.base->file_exists(ctx, path);
}

void nb_serve_platform(struct nb_platform *out, const struct nb_platform *base)
{
    nb_memset(&overlay, 0, sizeof(overlay));
    overlay.base = base;
    *out = *base;
    out->read_file = overlay_read_file;
    out->free_file = overlay_free_file;
    out->file_exists = overlay_file_exists;
}

/* Keeps a request's file for this and later requests; false with the reason in err. */
static bool overlay_put(const struct nb_platform *p, const struct serve_file *sf, char *err, size_t cap)
{
    char path[sizeof(overlay.files[0].path)];
    nb_snprintf(path, sizeof(path), "nanobench/%.*s", (int)sf->path_len, sf->path);
    struct overlay_file *f = overlay_find(path);
    if (!f) {
        if (overlay.n == OVERLAY_FILES) {
            nb_snprintf(err, cap, "request: file %s: the image keeps at most %d files", path, OVERLAY_FILES);
            return false;
        }
        f = &overlay.files[overlay.n++];
        nb_snprintf(f->path, sizeof(f->path), "%s", path);
    } else if (f->data) {
        p->free_mem(p->ctx, f->data, f->size);
    }
    f->data = NULL;
    f->size = sf->size;
    if (sf->size) {
        f->data = p->alloc_data(p->ctx, sf->size);
        if (!f->data) {
            f->size = 0;
            nb_snprintf(err, cap, "request: file %s: out of memory (%llu bytes)", path,
                        (unsigned long long)sf->size);
            return false;
        }
        nb_memcpy(f->data, sf->data, sf->size);
    }
    return true;
}

struct serve_state {
    const struct nb_platform *p;
    struct report *r;
    const struct nb_serve_ops *ops;
    uint8_t *rx;        /* received bytes not yet consumed */
    size_t rx_cap, have;
    uint8_t *reply;     /* the last reply frame, kept for a repeated request */
    size_t reply_len, reply_cap;
    int last_seq;       /* -1: none yet */
    uint16_t last_crc;
    unsigned served;
};

static void send_frame(struct serve_state *s, uint8_t type, uint8_t seq, const void *payload, size_t len)
{
    uint8_t small[SERVE_OVERHEAD + 160];
    if (len + SERVE_OVERHEAD <= sizeof(small)) {
        size_t n = serve_frame_encode(small, sizeof(small), type, seq, payload, (uint32_t)len);
        s->p->serial_write(s->p->ctx, small, n);
    }
}

/* A reply (R or X) that is kept for a repetition of the request. */
static void reply(struct serve_state *s, const struct serve_frame *f, uint8_t type, const void *payload,
                  size_t len)
{
    s->reply_len = serve_frame_encode(s->reply, s->reply_cap, type, f->seq, payload, (uint32_t)len);
    s->p->serial_write(s->p->ctx, s->reply, s->reply_len);
    s->last_seq = f->seq;
    s->last_crc = f->crc;
}

static void reply_text(struct serve_state *s, const struct serve_frame *f, uint8_t type, const char *text)
{
    reply(s, f, type, text, nb_strlen(text));
}

static void serve_bench(struct serve_state *s, const struct serve_frame *f)
{
    send_frame(s, SERVE_ACK, f->seq, NULL, 0);
    struct serve_request req;
    char err[200];
    if (serve_request_parse(f->payload, f->len, &req, err, sizeof(err)) != 0) {
        reply_text(s, f, SERVE_ERROR, err);
        return;
    }
    for (size_t i = 0; i < req.n_files; i++) {
        if (!overlay_put(s->p, &req.files[i], err, sizeof(err))) {
            reply_text(s, f, SERVE_ERROR, err);
            return;
        }
    }
    /* The rows go into the reply frame's payload area directly. */
    struct report *r = s->r;
    unsigned before = r->n_benchmarks;
    r->capture = (char *)s->reply + SERVE_HEADER;
    r->capture_cap = s->reply_cap - SERVE_OVERHEAD;
    r->capture_len = 0;
    r->capture_full = false;
    r->serial_quiet = true;
    s->ops->run_text(s->ops->arg, req.text, req.text_len);
    r->serial_quiet = false;
    r->capture = NULL;
    s->served++;
    if (r->capture_full) {
        nb_snprintf(err, sizeof(err), "reply: the results are larger than %u bytes", SERVE_REPLY_MAX);
        reply_text(s, f, SERVE_ERROR, err);
    } else if (r->n_benchmarks == before) {
        reply_text(s, f, SERVE_ERROR, "request: no benchmark line in the suite text");
    } else {
        /* Encode in place: the payload is already where the frame wants it. */
        uint8_t *payload = s->reply + SERVE_HEADER;
        size_t len = r->capture_len;
        s->reply_len = serve_frame_encode(s->reply, s->reply_cap, SERVE_RESULT, f->seq, payload, (uint32_t)len);
        s->p->serial_write(s->p->ctx, s->reply, s->reply_len);
        s->last_seq = f->seq;
        s->last_crc = f->crc;
    }
}

static bool parse_finish_word(const uint8_t *w, size_t n, enum nb_finish_action *out)
{
    for (int a = NB_FINISH_SHUTDOWN; a <= NB_FINISH_EXIT; a++) {
        const char *name = finish_action_name((enum nb_finish_action)a);
        if (nb_strlen(name) == n && nb_memcmp(name, w, n) == 0) {
            *out = (enum nb_finish_action)a;
            return true;
        }
    }
    return false;
}

/* The boot's fingerprint lines, then the request limit (for a host that missed the ready frame). */
static void fingerprint_reply(struct serve_state *s, const struct serve_frame *f, char *text, size_t cap)
{
    size_t n = s->ops->fingerprint(s->ops->arg, text, cap);
    if (n < cap)
        nb_snprintf(text + n, cap - n, "serve: limit %u\n", SERVE_REQUEST_MAX);
    reply_text(s, f, SERVE_RESULT, text);
}

/* Handles one good frame; returns true when it was the end request. */
static bool handle(struct serve_state *s, const struct serve_frame *f, enum nb_finish_action *finish,
                   bool *finish_set)
{
    bool again = s->last_seq == f->seq && s->reply_len;
    if (f->type == SERVE_POLL || (again && s->last_crc == f->crc)) {
        /* The host missed the reply (a poll asks for it without resending the request). */
        if (again)
            s->p->serial_write(s->p->ctx, s->reply, s->reply_len);
        else
            send_frame(s, SERVE_NAK, f->seq, NULL, 0);
        return false;
    }
    char text[1024];
    switch (f->type) {
    case SERVE_BENCH:
        serve_bench(s, f);
        return false;
    case SERVE_FINGERPRINT:
        fingerprint_reply(s, f, text, sizeof(text));
        return false;
    case SERVE_END:
        if (f->len && !parse_finish_word(f->payload, f->len, finish)) {
            reply_text(s, f, SERVE_ERROR, "end: the finish action is not one of shutdown, reboot, exit");
            return false;
        }
        if (f->len)
            *finish_set = true;
        nb_snprintf(text, sizeof(text), "served %u request%s", s->served, s->served == 1 ? "" : "s");
        reply_text(s, f, SERVE_RESULT, text);
        return true;
    default:
        nb_snprintf(text, sizeof(text), "request: unknown type 0x%02x (B benchmark, F fingerprint, E end, "
                                        "P poll)", f->type);
        reply_text(s, f, SERVE_ERROR, text);
        return false;
    }
}

/* Drops n bytes from the front of the receive buffer (a forward copy: the regions may overlap). */
static void drop(struct serve_state *s, size_t n)
{
    for (size_t i = n; i < s->have; i++)
        s->rx[i - n] = s->rx[i];
    s->have -= n;
}

bool nb_serve(const struct nb_platform *p, struct report *r, const struct nb_serve_ops *ops,
              enum nb_finish_action *finish, bool *finish_set)
{
    if (!p->serial_read || !p->serial_write) {
        report_line(r, "serve: error: this platform has no serial receive path");
        r->n_errors++;
        return false;
    }
    static struct serve_state s;
    nb_memset(&s, 0, sizeof(s));
    s.p = p;
    s.r = r;
    s.ops = ops;
    s.last_seq = -1;
    s.rx_cap = SERVE_REQUEST_MAX + SERVE_OVERHEAD + 4096;
    s.reply_cap = SERVE_REPLY_MAX + SERVE_OVERHEAD;
    s.rx = p->alloc_data(p->ctx, s.rx_cap);
    s.reply = p->alloc_data(p->ctx, s.reply_cap);
    bool ended = false;
    if (!s.rx || !s.reply) {
        report_line(r, "serve: error: out of memory for the receive buffers");
        r->n_errors++;
        goto out;
    }
    report_line(r, "serve: waiting for requests on the serial line (at most %u bytes each; docs/serve.md)",
                SERVE_REQUEST_MAX);
    report_commit(r);
    char ready[64];
    size_t n = nb_snprintf(ready, sizeof(ready), "limit %u", SERVE_REQUEST_MAX);
    send_frame(&s, SERVE_READY, 0, ready, n);
    bool continued = false; /* C was sent for the frame now arriving */
    while (!ended) {
        struct serve_frame f;
        size_t consumed = 0, want = 1;
        if (s.have) {
            enum serve_scan st = serve_frame_scan(s.rx, s.have, SERVE_REQUEST_MAX, &f, &consumed);
            if (st == SERVE_SCAN_MORE) {
                size_t pending = s.have - consumed;
                want = pending >= SERVE_HEADER ? serve_frame_size(f.len) - pending : SERVE_HEADER - pending;
                /* A long request waits after its first chunk until we have seen its header. */
                if (pending >= SERVE_HEADER && serve_frame_size(f.len) > SERVE_CHUNK && !continued) {
                    send_frame(&s, SERVE_CONTINUE, f.seq, NULL, 0);
                    continued = true;
                }
                drop(&s, consumed);
            } else {
                continued = false;
                /* f.payload points into the buffer: drop the frame only after handling it. */
                if (st == SERVE_SCAN_FRAME)
                    ended = handle(&s, &f, finish, finish_set);
                drop(&s, consumed);
                if (st == SERVE_SCAN_DAMAGED) {
                    send_frame(&s, SERVE_NAK, f.seq, NULL, 0);
                } else if (st == SERVE_SCAN_TOO_LARGE) {
                    /*
                     * Refused at its header: the host stops sending, and what
                     * it sent of the payload is scanned past like any text
                     * (a false frame in it would need both CRCs to match).
                     */
                    char why[160];
                    nb_snprintf(why, sizeof(why), "request: %lu bytes is more than this image accepts "
                                                  "(limit %u bytes)", (unsigned long)f.len, SERVE_REQUEST_MAX);
                    f.crc = 0;
                    reply_text(&s, &f, SERVE_ERROR, why);
                    s.last_seq = -1; /* never a repetition: the payload was not read */
                }
                continue;
            }
        }
        if (s.have + want > s.rx_cap)
            want = s.rx_cap - s.have;
        size_t got = p->serial_read(p->ctx, s.rx + s.have, want, s.rx_cap - s.have);
        if (!got) {
            report_line(r, "serve: error: the serial port is gone");
            r->n_errors++;
            break;
        }
        s.have += got;
    }
    /* The log goes on: its next line starts on a line of its own, not after the last frame. */
    p->serial_write(p->ctx, "\r\n", 2);
    report_line(r, "serve: %u request%s served", s.served, s.served == 1 ? "" : "s");
out:
    if (s.rx)
        p->free_mem(p->ctx, s.rx, s.rx_cap);
    if (s.reply)
        p->free_mem(p->ctx, s.reply, s.reply_cap);
    return ended;
}
