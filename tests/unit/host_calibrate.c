/*
 * host_calibrate.c — -calibrate on the host (host_calibrate.h).
 */
#include "host_calibrate.h"

#include <stdio.h>
#include <string.h>

void host_add_cache(struct cpu_cache_info *ci, const char *name, unsigned level, uint64_t size)
{
    struct cpu_cache *c = &ci->caches[ci->n_caches++];
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->level = level;
    c->size = size;
    c->line = 64;
}

void host_calibrate_timed(struct host_platform *h, struct bench_context *c, const struct cpu_cache_info *ci,
                          uint64_t dram_min, struct machine_latencies *lat, struct report *r, int last)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        host_text_reset(h);
        memset(lat, 0, sizeof(*lat));
        bench_calibrate(c, NULL, ci, dram_min, lat, r);
        bool all_timed = true;
        for (int i = LAT_L1; i <= last; i++)
            all_timed = all_timed && lat->latency[i] > 0;
        if (all_timed)
            return;
    }
}
