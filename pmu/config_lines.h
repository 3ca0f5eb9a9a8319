/*
 * config_lines.h — the line discipline shared by nanoBench's config formats
 * (event configs and MSR configs): one entry per line, blank lines and '#'
 * comment lines ignored, surrounding white space trimmed, bounded length.
 */
#ifndef CONFIG_LINES_H
#define CONFIG_LINES_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_LINE_MAX 512

/* Called with a trimmed, NUL-terminated copy of each entry line; return false to stop. */
typedef bool (*config_line_fn)(void *arg, unsigned line, char *text);
/* Called for a line too long to be an entry (it is skipped). */
typedef void (*config_long_line_fn)(void *arg, unsigned line);

void config_for_each_line(const char *text, size_t len, config_line_fn on_line,
                          config_long_line_fn on_long_line, void *arg);

#endif
