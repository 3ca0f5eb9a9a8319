/*
 * host_file.h — small file helpers for the host tools (they run on Linux
 * and may use libc; the target code in kernel/ may not).
 */
#ifndef HOST_FILE_H
#define HOST_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Reads a whole file to EOF (a pipe or /dev/null too); returns malloc'd bytes
 * (NUL-terminated) or NULL with errno set (EISDIR for a folder).
 */
char *host_read_file(const char *path, size_t *size);
/* Writes a whole file; returns 0 or -1 with errno set. */
int host_write_file(const char *path, const void *data, size_t size);
/* mkdir -p; returns 0 or -1 with errno set. */
int host_make_dirs(const char *path);
/* Joins dir and a relative path (absolute paths are kept); malloc'd. */
char *host_path_join(const char *dir, const char *path);
/* Directory part of a path ("." when there is none); malloc'd. */
char *host_dirname(const char *path);

#endif
