/*
 * result_path.c — files beside the run's results (see result_path.h).
 */
#include "result_path.h"
#include "nb_text.h"

void result_path(const struct report *r, const char *name, const char *suffix, char *out, size_t cap)
{
    size_t base = nb_strlen(r->txt_path);
    if (base >= 4)
        base -= 4; /* ".txt" */
    char safe[64];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof(safe); c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                  *c == '_' || *c == '-' || *c == '.';
        safe[n++] = ok ? *c : '_';
    }
    safe[n] = '\0';
    nb_snprintf(out, cap, "%.*s-%s%s", (int)base, r->txt_path, safe, suffix);
}
