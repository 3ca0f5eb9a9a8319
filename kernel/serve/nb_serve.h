/*
 * nb_serve.h — serve mode (-serve): after the suite the image answers
 * benchmark requests framed on the serial line (serve_frame.h,
 * serve_request.h; docs/serve.md) until a request to end.
 *
 * Every good request is acknowledged (A) at once, then answered: R with the
 * benchmark's CSV rows (the same names and values as the results file, which
 * records every served benchmark), or X with the reason it was refused. A
 * damaged request gets N (the host sends it again); a request larger than
 * the image accepts gets X naming the limit. The last reply is kept: a
 * request that arrives again with the same sequence number and CRC (the
 * host did not see the reply) gets the same reply without running again.
 */
#ifndef NB_SERVE_H
#define NB_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_platform.h"
#include "nb_report.h"

/*
 * The largest request payload the image accepts (the limit is in every
 * refusal): room for the largest event config (about 80 KB), and 23 s of
 * line at 115200 baud.
 */
#define SERVE_REQUEST_MAX (256u * 1024u)
/* The largest reply payload: the CSV rows of one request. */
#define SERVE_REPLY_MAX (256u * 1024u)

struct nb_serve_ops {
    void *arg;
    /* Runs the benchmarks of a request's suite text as suite entries (their rows go to the report). */
    void (*run_text)(void *arg, const char *text, size_t len);
    /* Writes the machine's fingerprint lines (cpu:, tsc:, ...) to out; returns the length. */
    size_t (*fingerprint)(void *arg, char *out, size_t cap);
};

/*
 * Fills `out` with `base` whose file reads also see the files requests
 * carried (nanobench/<path>), so the engine reads a request's code and
 * configs as it reads a suite's.
 */
void nb_serve_platform(struct nb_platform *out, const struct nb_platform *base);

/*
 * Serves until an end request (true, *finish set when it named an action)
 * or until the serial port is gone (false). `p` is the platform from
 * nb_serve_platform.
 */
bool nb_serve(const struct nb_platform *p, struct report *r, const struct nb_serve_ops *ops,
              enum nb_finish_action *finish, bool *finish_set);

#endif
