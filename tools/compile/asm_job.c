/*
 * asm_job.c — helpers both assemblers of -asm* text use (asm_job.h).
 */
#define _GNU_SOURCE
#include "asm_job.h"
#include "host_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void asm_text_append(char **out, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *piece;
    int n = vasprintf(&piece, fmt, ap);
    va_end(ap);
    if (n < 0) {
        perror("nanobench");
        exit(2);
    }
    *out = realloc(*out, *len + (size_t)n + 1);
    memcpy(*out + *len, piece, (size_t)n + 1);
    *len += (size_t)n;
    free(piece);
}

void asm_job_print_location(const struct asm_job *j)
{
    if (j->bench_name)
        fprintf(stderr, "nanobench: benchmark '%s'%s%s%s: ", j->bench_name, j->where ? " (" : "",
                j->where ? j->where : "", j->where ? ")" : "");
    else
        fprintf(stderr, "nanobench: ");
}

size_t asm_strip_scope_prefixes(const char *line, size_t len, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap;) {
        size_t d = i + 6;
        if (len - i > 6 && strncmp(line + i, "__nb_p", 6) == 0) {
            while (d < len && line[d] >= '0' && line[d] <= '9')
                d++;
            if (d > i + 6 && d < len && line[d] == '_') {
                i = d + 1;
                continue;
            }
        }
        buf[n++] = line[i++];
    }
    buf[n] = '\0';
    return n;
}

int asm_run_tool(char *const argv[], const char *err_path, const char *package, char **output)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(err_path, "w", stderr))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "nb-internal:0: cannot run %s: %s (install the %s package)\n", argv[0],
                strerror(errno), package);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    size_t size;
    *output = host_read_file(err_path, &size);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int asm_assemble_batched(struct asm_job *jobs, size_t n, const char *workdir, asm_range_fn range)
{
    if (n == 0)
        return 0;
    if (range(jobs, n, 0, n, workdir, false) == 0)
        return 0;
    /* Slow path, only on failure: one run per benchmark for exact attribution. */
    int failed = 0;
    for (size_t first = 0; first < n;) {
        size_t last = first;
        while (last < n && jobs[last].bench == jobs[first].bench)
            last++;
        for (size_t i = first; i < last; i++) {
            free(jobs[i].bytes);
            jobs[i].bytes = NULL;
        }
        if (range(jobs, n, first, last, workdir, true) != 0)
            failed++;
        first = last;
    }
    return failed;
}
