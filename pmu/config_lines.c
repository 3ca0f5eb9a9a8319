/*
 * config_lines.c — config-file line iteration (see config_lines.h).
 */
#include "config_lines.h"
#include "nb_text.h"

void config_for_each_line(const char *text, size_t len, config_line_fn on_line,
                          config_long_line_fn on_long_line, void *arg)
{
    unsigned line = 0;
    size_t i = 0;
    while (i < len) {
        line++;
        size_t start = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t end = i++;
        while (start < end && nb_is_space(text[start]))
            start++;
        while (end > start && nb_is_space(text[end - 1]))
            end--;
        if (start == end || text[start] == '#')
            continue;
        char buf[CONFIG_LINE_MAX];
        if (end - start >= sizeof(buf)) {
            on_long_line(arg, line);
            continue;
        }
        nb_memcpy(buf, text + start, end - start);
        buf[end - start] = '\0';
        if (!on_line(arg, line, buf))
            return;
    }
}
