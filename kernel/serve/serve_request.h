/*
 * serve_request.h — the payload of a serve-mode benchmark request (frame
 * type B, serve_frame.h): files the benchmark needs, then its suite text.
 *
 *   u8  file count (at most SERVE_FILES_MAX)
 *   per file: u8 path length, path (relative to nanobench/, e.g.
 *             "code/r.bin" or "configs/r.cfg"), u32 little-endian size, bytes
 *   the rest: suite text, as in nanobench/suite.nb (`name: -code ... `;
 *             `defaults:` lines allowed, several benchmarks allowed)
 *
 * Files stay in the image's memory for later requests (a config is sent
 * once, not with every benchmark); a file of the same path replaces it.
 * Parsing only points into the payload: nothing is copied.
 */
#ifndef SERVE_REQUEST_H
#define SERVE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#define SERVE_FILES_MAX 8
#define SERVE_PATH_MAX 96

struct serve_file {
    const char *path; /* not NUL-terminated: path_len bytes */
    size_t path_len;
    const uint8_t *data;
    size_t size;
};

struct serve_request {
    struct serve_file files[SERVE_FILES_MAX];
    size_t n_files;
    const char *text;
    size_t text_len;
};

/*
 * Returns 0, or -1 with a one-line reason in err (which byte, what was
 * expected) for a payload that does not parse.
 */
int serve_request_parse(const uint8_t *payload, size_t len, struct serve_request *r, char *err,
                        size_t err_cap);

#endif
