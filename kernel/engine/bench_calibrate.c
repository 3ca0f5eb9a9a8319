/*
 * bench_calibrate.c — load-to-use latency per cache level (see
 * bench_calibrate.h; method: lmbench lat_mem_rd with a random cyclic
 * order, ../shared/METRICS-FACTS.md §3c).
 */
#include "bench_calibrate.h"
#include "bench_stats.h"
#include "core_kind.h"
#include "nb_text.h"
#include "pmu_msrs.h"
#include "tlb_window.h"

#define CALIBRATE_LINE 64u /* node stride when the cache report gives no line size */

static const struct cpu_cache *find_cache(const struct cpu_cache_info *ci, const char *name)
{
    for (unsigned i = 0; ci && i < ci->n_caches; i++) {
        if (nb_strcmp(ci->caches[i].name, name) == 0)
            return &ci->caches[i];
    }
    return NULL;
}

/* Rounded down to a multiple of 2 x line (the chain's halves stay whole nodes). */
static uint64_t whole_nodes(uint64_t bytes, uint64_t line)
{
    return bytes / (2 * line) * (2 * line);
}

void calibrate_sizes(const struct cpu_cache_info *ci, uint64_t dram_min, uint64_t bytes[LAT_LEVELS],
                     const char *why[LAT_LEVELS])
{
    const struct cpu_cache *l1 = find_cache(ci, "L1d"), *l2 = find_cache(ci, "L2"),
                           *l3 = find_cache(ci, "L3");
    uint64_t line = l1 && l1->line ? l1->line : CALIBRATE_LINE;
    for (int i = 0; i < LAT_LEVELS; i++) {
        bytes[i] = 0;
        why[i] = NULL;
    }
    /* Half of each level: it fits there and not in the level above (METRICS-FACTS §3c step 2). */
    if (l1)
        bytes[LAT_L1] = whole_nodes(l1->size / 2, line);
    else
        why[LAT_L1] = "the cache report has no L1d";
    if (l2 && l1 && l2->size / 2 > l1->size)
        bytes[LAT_L2] = whole_nodes(l2->size / 2, line);
    else
        why[LAT_L2] = l2 ? "half the L2 is not larger than the L1d" : "the cache report has no L2";
    if (l3 && l2 && l3->size / 2 > l2->size)
        bytes[LAT_L3] = whole_nodes(l3->size / 2, line);
    else
        why[LAT_L3] = l3 ? "half the L3 is not larger than the L2" : "the cache report has no L3";
    /* DRAM: far beyond the last level (8 x, at least dram_min), within -r14_size's limit. */
    const struct cpu_cache *last = l3 ? l3 : l2 ? l2 : l1;
    uint64_t dram = last ? 8 * last->size : 0;
    if (dram < dram_min)
        dram = dram_min;
    if (dram > CALIBRATE_DRAM_MAX)
        dram = CALIBRATE_DRAM_MAX;
    if (last && (!l3 || dram > 2 * l3->size))
        bytes[LAT_DRAM] = whole_nodes(dram, line);
    else
        why[LAT_DRAM] = last ? "the L3 is too large for a 1 GiB area" : "the cache report has no caches";
    /* The walk's data is the L2 footprint, spread over the pages (METRICS-FACTS §3c step 2). */
    bytes[LAT_WALK] = bytes[LAT_L2];
    if (!bytes[LAT_WALK])
        why[LAT_WALK] = "no L2 footprint for the pages' data";
}

uint64_t calibrate_walk_slot(uint64_t data_bytes, uint64_t pages, uint64_t line)
{
    uint64_t per_page = pages ? data_bytes / pages : 0, slot = 8;
    if (per_page < slot)
        return 0;
    while (slot * 2 <= per_page && slot * 2 <= line)
        slot *= 2;
    return slot;
}

/* xorshift64 (Marsaglia), as tools/gen_latency_suite.sh uses. */
static uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

void calibrate_build_chain(uint8_t *base, uint64_t size, uint64_t stride)
{
    uint64_t nodes = size / stride;
    if (nodes < 2)
        return;
    for (uint64_t i = 0; i < nodes; i++)
        *(uint64_t *)(void *)(base + i * stride) = (uint64_t)(uintptr_t)(base + i * stride);
    /* Sattolo: swapping with a strictly earlier node makes the permutation one cycle. */
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = nodes - 1; i > 0; i--) {
        uint64_t j = xorshift64(&state) % i;
        uint64_t *a = (uint64_t *)(void *)(base + i * stride), *b = (uint64_t *)(void *)(base + j * stride);
        uint64_t t = *a;
        *a = *b;
        *b = t;
    }
}

/* Window page v's node: its offset in the page (the same in the frame). */
static uint64_t walk_offset(uint64_t v, uint64_t n_frames, uint64_t slot)
{
    return v / n_frames % (TLB_PAGE / slot) * slot;
}

void calibrate_build_walk_chain(uint8_t *frames, uint64_t pages, uint64_t slot, uint64_t window)
{
    uint64_t n = pages * slot / TLB_PAGE;
    if (pages < 2 || !n)
        return;
#define WALK_NODE(v) ((uint64_t *)(void *)(frames + (v) % n * TLB_PAGE + walk_offset((v), n, slot)))
    for (uint64_t v = 0; v < pages; v++)
        *WALK_NODE(v) = window + v * TLB_PAGE + walk_offset(v, n, slot);
    /* Sattolo, as calibrate_build_chain: the contents become one cycle. */
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = pages - 1; i > 0; i--) {
        uint64_t j = xorshift64(&state) % i;
        uint64_t t = *WALK_NODE(i);
        *WALK_NODE(i) = *WALK_NODE(j);
        *WALK_NODE(j) = t;
    }
#undef WALK_NODE
}

struct chain {
    uint64_t stride;
    uint64_t slot, pages, window; /* the walk level (window != 0) */
};

static void prepare_chain(void *arg, struct bench_context *c)
{
    const struct chain *ch = arg;
    if (ch->window)
        calibrate_build_walk_chain(c->areas[AREA_R14], ch->pages, ch->slot, ch->window);
    else
        calibrate_build_chain(c->areas[AREA_R14], c->area_size[AREA_R14], ch->stride);
}

/* mov r14, [r14]: REX.W+R+B (4DH), MOV r64, r/m64 (8BH), ModRM 00 110 110 (SDM vol. 2B MOV). */
static const uint8_t CHASE[] = { 0x4D, 0x8B, 0x36 };

static const char *const LEVEL_NAMES[LAT_LEVELS] = { "L1", "L2", "L3", "DRAM", "TLB walk" };

/*
 * The counter check (METRICS-FACTS.md §3c step 3): per level, the event that
 * counts a chased load served where the footprint was meant to be, by name
 * in order of preference. The encodings come from the CPU's own configs
 * (counters_find_event: the configs its metric file names), so a core whose
 * configs lack these names is not checked, and says so. Intel P-cores
 * MEM_LOAD_RETIRED.* (D1H, Skylake and later) or MEM_LOAD_UOPS_RETIRED.*
 * (Sandy Bridge to Broadwell), DTLB_LOAD_MISSES.WALK_COMPLETED (§1a);
 * Nehalem and Westmere MEM_LOAD_RETIRED.* (CBH: L1D_HIT, L2_HIT, the
 * L3_UNSHARED_HIT a private chain's lines are, L3_MISS; their configs'
 * names); Gracemont and the other Atoms MEM_LOAD_UOPS_RETIRED.* with
 * DRAM_HIT for the DRAM level (§1b);
 * AMD demand L1D fills by source, 043H (§1c: 01H local L2, 02H L3 of the
 * CCX, 08H/48H DRAM), and for the walk L1 DTLB misses that missed the L2
 * DTLB, 045H (F0H all sizes; 10H the 4 KiB pages of our window). The Zen
 * configs name them with AMD's PPR names (configs/tables/zen*_ppr_names.txt):
 * Zen 1 and Zen 2 LsRefillsFromSys.* (nanoBench's Zen 1 spelling, then Zen 2's),
 * Zen 3 LsDmndFillsFromSys.LclL2/IntCache/MemIoLocal, Zen 4 and 5
 * LsDmndFillsFromSys.LocalL2/LocalCcx/DramIoNear (Zen 5 DramIoAll first),
 * LsL1DTlbMiss.TlbReload4KL2Miss (the 4 KiB pages of our window; .AllL2Miss
 * where a config lacks it); the libpfm4 and Linux names stay for configs that
 * use them. AMD has no L1-hit event: its L1 level is not checked.
 */
static const char *const CHECK_L1[] = { "MEM_LOAD_RETIRED.L1_HIT", "MEM_LOAD_UOPS_RETIRED.L1_HIT",
                                        "MEM_LOAD_RETIRED.L1D_HIT", NULL };
static const char *const CHECK_L2[] = { "MEM_LOAD_RETIRED.L2_HIT", "MEM_LOAD_UOPS_RETIRED.L2_HIT",
                                        "LsDmndFillsFromSys.LocalL2", "LsDmndFillsFromSys.LclL2",
                                        "LsRefillsFromSys.MABRESP_LCL_L2", "LsRefillsFromSys.LsMabrespLclL2",
                                        "LS_DMND_FILLS_FROM_SYS.LOCAL_L2",
                                        "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.LCL_L2",
                                        "DATA_CACHE_REFILLS_FROM_SYSTEM.MABRESP_LCL_L2", NULL };
static const char *const CHECK_L3[] = { "MEM_LOAD_RETIRED.L3_HIT", "MEM_LOAD_UOPS_RETIRED.L3_HIT",
                                        "MEM_LOAD_UOPS_RETIRED.LLC_HIT", "MEM_LOAD_RETIRED.L3_UNSHARED_HIT",
                                        "LsDmndFillsFromSys.LocalCcx", "LsDmndFillsFromSys.IntCache",
                                        "LsRefillsFromSys.LS_MABRESP_LCL_CACHE",
                                        "LsRefillsFromSys.LsMabrespLclCache",
                                        "LS_DMND_FILLS_FROM_SYS.LOCAL_CCX",
                                        "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.LOCAL_CCX",
                                        "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.INT_CACHE",
                                        "DATA_CACHE_REFILLS_FROM_SYSTEM.LS_MABRESP_LCL_CACHE", NULL };
static const char *const CHECK_DRAM[] = { "MEM_LOAD_UOPS_RETIRED.DRAM_HIT", "MEM_LOAD_RETIRED.L3_MISS",
                                          "MEM_LOAD_UOPS_RETIRED.L3_MISS", "LsDmndFillsFromSys.DramIoAll",
                                          "LsDmndFillsFromSys.DramIoNear", "LsDmndFillsFromSys.MemIoLocal",
                                          "LsRefillsFromSys.LS_MABRESP_LCL_DRAM",
                                          "LsRefillsFromSys.LsMabrespLclDram",
                                          "LS_DMND_FILLS_FROM_SYS.DRAM_IO_ALL",
                                          "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM_IO_NEAR",
                                          "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.MEM_IO_LCL",
                                          "DATA_CACHE_REFILLS_FROM_SYSTEM.LS_MABRESP_LCL_DRAM", NULL };
static const char *const CHECK_WALK[] = { "DTLB_LOAD_MISSES.WALK_COMPLETED", "LsL1DTlbMiss.TlbReload4KL2Miss",
                                          "LsL1DTlbMiss.AllL2Miss", "LS_L1_D_TLB_MISS.ALL_L2_MISS",
                                          "L1_DTLB_MISS.TLB_RELOAD_4K_L2_MISS",
                                          "LS_L1_D_TLB_MISS.TLB_RELOAD_4K_L2_MISS", NULL };
static const char *const *const CHECK_EVENTS[LAT_LEVELS] = { CHECK_L1, CHECK_L2, CHECK_L3, CHECK_DRAM, CHECK_WALK };
static const char *const CHECK_VERB[LAT_LEVELS] = { "hit L1", "hit L2", "hit L3", "went to DRAM", "walked" };

/*
 * A level is trusted when at least this percentage of its chased loads were
 * served there. The time per load is then a mix, f x L(level) + (1 - f) x
 * L(elsewhere): at f = 90% it is off by at most a tenth of the gap to the
 * neighbouring level (about one cycle between an L1 and an L2), the size of
 * the run-to-run noise, while a footprint that landed in another level (a
 * wrong cache report, an exclusive or shared L3, a prefetcher) moves the
 * fraction far lower. A retired-load event counts each load once, so a
 * footprint where it belongs reads close to 100%.
 */
#define CALIBRATE_TRUST_PCT 90

/*
 * The counter reads: RDTSC, the fixed counters and, when `check` is given
 * and can be programmed, that event last. *cycles = the core-cycle read or
 * 0 (RDTSC); *event = the check event's read or 0.
 */
static size_t calibration_reads(struct counter_env *env, const struct pmu_event *check, struct counter_read *reads,
                                size_t *cycles, size_t *event)
{
    *cycles = *event = 0;
    reads[0] = (struct counter_read){ READ_TSC, 0, "RDTSC", 64, 0, 0 };
    if (!env || !env->usable)
        return 1;
    struct pmu_group g;
    const struct pmu_group *group = check && pmu_schedule(check, 1, pmu_sched_mask(&env->desc), &g) ? &g : NULL;
    const struct pmu_event *events = group ? check : env->events;
    if (!pmu_program_group(&env->session, events, group, true) || env->session.last.fixed_failed)
        return group ? calibration_reads(env, NULL, reads, cycles, event) : 1;
    size_t n = pmu_group_reads(&env->session, events, group, true, reads);
    for (size_t k = 1; k < n; k++) {
        /* Intel fixed counter 1 (CPU_CLK_UNHALTED.THREAD); AMD APERF (core clocks in C0). */
        if (nb_strcmp(reads[k].name, pmu_intel_fixed_names[1]) == 0 || nb_strcmp(reads[k].name, "APERF") == 0)
            *cycles = k;
    }
    if (group && !env->session.last.skipped[0])
        *event = n - 1;
    return n;
}

/* "calibration: check L1 100% of loads hit L1, ..." or why the check was not done. */
static void report_check(const struct machine_latencies *l, const struct counter_env *counters,
                         const char *const check_why[LAT_LEVELS], struct report *r)
{
    bool any = false;
    const char *why = NULL;
    for (int level = 0; level < LAT_LEVELS; level++) {
        any |= l->checked[level];
        if (!why && l->latency[level] && level != LAT_L1)
            why = check_why[level];
    }
    if (!l->core_cycles) {
        report_line(r, "calibration: check not done: %s (the load-hit and page-walk counters need one)",
                    counters && counters->usable ? "the fixed counters could not be programmed" : "no usable PMU");
        return;
    }
    if (!any) {
        report_line(r, "calibration: check not done: %s", why ? why : "no level measured");
        return;
    }
    char line[480];
    size_t len = nb_snprintf(line, sizeof(line), "calibration: check");
    for (int level = 0; level < LAT_LEVELS && len < sizeof(line); level++) {
        const char *sep = level ? "," : "";
        if (!l->latency[level])
            len += nb_snprintf(line + len, sizeof(line) - len, "%s %s n/a", sep, LEVEL_NAMES[level]);
        else if (!l->checked[level])
            len += nb_snprintf(line + len, sizeof(line) - len, "%s %s not checked (%s)", sep, LEVEL_NAMES[level],
                               check_why[level] ? check_why[level] : "no event");
        else
            len += nb_snprintf(line + len, sizeof(line) - len, "%s %s %lld%% of loads %s%s", sep,
                               LEVEL_NAMES[level], (long long)l->check_pct[level], CHECK_VERB[level],
                               l->distrusted[level] ? " (not trusted)" : "");
    }
    report_line(r, "%s; a level under %d%% is not trusted", line, CALIBRATE_TRUST_PCT);
}

void bench_calibrate(struct bench_context *bench, struct counter_env *counters,
                     const struct cpu_cache_info *caches, uint64_t dram_min, struct machine_latencies *out,
                     struct report *r)
{
    struct machine_latencies *l = out;
    nb_memset(l, 0, sizeof(*l));
    /* The kind of core the chase runs on (-cpu N: processor N's CPUID). */
    core_kind_read(bench->cpu_p ? bench->cpu_p : bench->p, &l->kind);
    l->cpu = bench->cpu;
    calibrate_sizes(caches, dram_min, l->bytes, l->why);
    const struct cpu_cache *l1 = find_cache(caches, "L1d");
    struct chain ch = { .stride = l1 && l1->line ? l1->line : CALIBRATE_LINE };
    struct counter_read reads[NB_MAX_COUNTERS];
    size_t cycles, event_at;
    size_t n_reads = calibration_reads(counters, NULL, reads, &cycles, &event_at);
    const char *check_why[LAT_LEVELS] = { 0 };
    l->measured = true;
    l->core_cycles = cycles != 0;
    l->cycle_counter = reads[cycles].name;

    struct bench_options o;
    bench_options_init(&o);
    struct bench_code code;
    nb_memset(&code, 0, sizeof(code));
    code.part[PART_MAIN] = CHASE;
    code.len[PART_MAIN] = sizeof(CHASE);
    bench->reads = reads;
    bench->n_reads = n_reads;
    bench->n_fixed = n_reads;
    bench->verbose_skip = 0;
    bench->prepare_areas = prepare_chain;
    bench->prepare_arg = &ch;
    for (int level = 0; level < LAT_LEVELS; level++) {
        if (!l->bytes[level])
            continue;
        int64_t sizes[AREA_COUNT] = { 0 };
        char why[160];
        sizes[AREA_R14] = (int64_t)l->bytes[level];
        ch.window = 0;
        if (level == LAT_WALK) {
            /* The frames behind the window: pages x slot bytes, all of them nodes. */
            ch.pages = CALIBRATE_WALK_PAGES;
            ch.slot = calibrate_walk_slot(l->bytes[level], ch.pages, ch.stride);
            if (!ch.slot) {
                l->why[level] = "the L2 footprint gives under 8 bytes per page";
                continue;
            }
            l->walk_pages = ch.pages;
            l->bytes[level] = ch.pages * ch.slot;
            sizes[AREA_R14] = (int64_t)l->bytes[level];
        }
        if (bench_context_size_areas(bench, sizes, why, sizeof(why)) != NB_OK) {
            l->why[level] = "no contiguous memory of that size";
            continue;
        }
        struct tlb_window w = { 0 };
        if (level == LAT_WALK) {
            if (tlb_window_map(&w, bench->p, ch.pages, bench->areas[AREA_R14],
                               l->bytes[level] / TLB_PAGE, l->walk_why, sizeof(l->walk_why)) != NB_OK) {
                l->why[level] = l->walk_why;
                continue;
            }
            ch.window = (uint64_t)(uintptr_t)w.base;
        }
        /* The check event counts in the same runs as the cycles (METRICS-FACTS.md §3c step 3). */
        struct pmu_event check;
        bool have_check = false;
        if (!l->core_cycles)
            check_why[level] = "no core-cycle counter";
        else if (counters->vendor == VENDOR_AMD && level == LAT_L1)
            check_why[level] = "AMD has no L1-hit event";
        else
            have_check = counters_find_event(counters, CHECK_EVENTS[level], &check, &check_why[level], r);
        n_reads = calibration_reads(counters, have_check ? &check : NULL, reads, &cycles, &event_at);
        if (have_check && !event_at)
            check_why[level] = "its event could not be programmed";
        if (l->core_cycles && !cycles) {
            /* The unit must not change between levels. */
            tlb_window_unmap(&w, bench->p);
            l->why[level] = "the fixed counters could not be programmed";
            continue;
        }
        bench->n_reads = n_reads;
        bench->n_fixed = event_at ? event_at : n_reads;
        struct bench_result result;
        char error[200];
        bench_benchmark_begin(bench);
        int st = bench_measure(bench, &o, &code, &result, error, sizeof(error));
        bench->benchmark_started = false;
        /* The firmware's map as it was before the next benchmark (and before any report line). */
        tlb_window_unmap(&w, bench->p);
        if (st != NB_OK) {
            report_line(r, "calibration: %s (%llu bytes): %s", LEVEL_NAMES[level],
                        (unsigned long long)l->bytes[level], error);
            l->why[level] = "the measurement failed";
            continue;
        }
        l->latency[level] = result.values[cycles] > 0 ? result.values[cycles] : 0;
        if (!l->latency[level])
            l->why[level] = "measured no time";
        if (event_at && l->latency[level]) {
            /* Events per load in hundredths: the percentage of the loads. */
            l->checked[level] = true;
            l->check_pct[level] = result.values[event_at] > 0 ? result.values[event_at] : 0;
            l->distrusted[level] = l->check_pct[level] < CALIBRATE_TRUST_PCT;
            if (l->distrusted[level])
                nb_snprintf(l->distrust_why[level], sizeof(l->distrust_why[level]),
                            "calibration: %s not trusted: %lld%% of its loads %s (under %d%%)", LEVEL_NAMES[level],
                            (long long)l->check_pct[level], CHECK_VERB[level], CALIBRATE_TRUST_PCT);
        }
        /* DRAM in ns: RDTSC (reads[0]) per load over the TSC frequency (METRICS-FACTS §3c step 4). */
        if (level == LAT_DRAM && l->latency[level] && bench->tsc_hz && result.values[0] > 0)
            l->dram_ns = (int64_t)(((uint64_t)result.values[0] * 1000000000ull + bench->tsc_hz / 2) /
                                   bench->tsc_hz);
    }
    bench->prepare_areas = NULL;
    bench->prepare_arg = NULL;
    int64_t defaults[AREA_COUNT] = { 0 };
    char why[160];
    bench_context_size_areas(bench, defaults, why, sizeof(why));

    const char *unit = l->core_cycles ? "cycles" : "TSC ticks";
    char line[400];
    size_t len = nb_snprintf(line, sizeof(line), "calibration:");
    for (int level = 0; level < LAT_LEVELS && len < sizeof(line); level++) {
        char value[32];
        if (l->latency[level])
            stats_format(value, sizeof(value), l->latency[level], false);
        len += nb_snprintf(line + len, sizeof(line) - len, "%s %s %s", level ? "," : "",
                           LEVEL_NAMES[level], l->latency[level] ? value : "n/a");
        if (l->latency[level] && len < sizeof(line))
            len += nb_snprintf(line + len, sizeof(line) - len, " %s", unit);
    }
    /* On a hybrid part: the processor and its kind, whose benchmarks get these values. */
    char kind[96], on[128] = "";
    core_kind_describe(&l->kind, kind, sizeof(kind));
    if (kind[0])
        nb_snprintf(on, sizeof(on), ", on processor %u: %s", l->cpu, kind);
    report_line(r, "%s (%s per dependent load: %s)%s", line,
                l->core_cycles ? "core cycles" : "TSC ticks",
                l->core_cycles ? l->cycle_counter : "no usable PMU", on);
    len = nb_snprintf(line, sizeof(line), "calibration: footprints");
    for (int level = 0; level < LAT_LEVELS && len < sizeof(line); level++) {
        if (l->latency[level] && level == LAT_WALK)
            len += nb_snprintf(line + len, sizeof(line) - len, ", %s %llu pages of 4 KiB on %llu bytes",
                               LEVEL_NAMES[level], (unsigned long long)l->walk_pages,
                               (unsigned long long)l->bytes[level]);
        else if (l->latency[level])
            len += nb_snprintf(line + len, sizeof(line) - len, "%s %s %llu bytes", level ? "," : "",
                               LEVEL_NAMES[level], (unsigned long long)l->bytes[level]);
        else
            len += nb_snprintf(line + len, sizeof(line) - len, "%s %s n/a (%s)", level ? "," : "",
                               LEVEL_NAMES[level], l->why[level] ? l->why[level] : "not measured");
    }
    report_line(r, "%s", line);
    report_check(l, counters, check_why, r);
    /* The model's penalties relative to an L1 hit (METRICS-FACTS §3c step 3). */
    static const char *const N_NAMES[LAT_LEVELS] = { NULL, "N1 (L2 - L1)", "N2 (L3 - L1)", "N3 (DRAM - L1)",
                                                     "N4 (TLB walk - L2)" };
    len = nb_snprintf(line, sizeof(line), "calibration:");
    for (int level = LAT_L2; level < LAT_LEVELS && len < sizeof(line); level++) {
        int64_t n;
        char value[32] = "n/a";
        if (machine_latency_penalty(l, (enum latency_level)level, &n))
            stats_format(value, sizeof(value), n, false);
        len += nb_snprintf(line + len, sizeof(line) - len, "%s %s %s", level > LAT_L2 ? "," : "",
                           N_NAMES[level], value);
    }
    report_line(r, "%s %s", line, unit);
    if (l->dram_ns) {
        char ns[32];
        stats_format(ns, sizeof(ns), l->dram_ns, false);
        report_line(r, "calibration: DRAM %s ns (TSC ticks per load / the TSC frequency)", ns);
    }
}
