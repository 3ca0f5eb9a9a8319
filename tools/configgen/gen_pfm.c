/*
 * gen_pfm — libpfm4 event tables to nanoBench entries (see gen_pfm.h).
 *
 * Every event/umask pair is encoded with pfm_get_os_event_encoding(PFM_OS_NONE),
 * which returns the raw select value in codes[0] and, for the events that need one,
 * the extra register value in codes[1]. Which extra register that is follows from the
 * event select (Intel SDM vol. 3B, "Off-core Response Performance Monitoring",
 * "PEBS Load Latency", "Front-end Retired Facility"); libpfm4 does not say.
 */
#define _GNU_SOURCE /* dladdr */
#include "gen_pfm.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <perfmon/pfmlib.h>

/* Intel events whose codes[1] goes to a known MSR. */
#define EVT_OFFCORE_RSP_0 0xB7 /* B7.01 MSR_OFFCORE_RSP_0; Atom: B7.02 MSR_OFFCORE_RSP_1 */
#define EVT_OFFCORE_RSP_1 0xBB /* BB.01 MSR_OFFCORE_RSP_1 (Core up to Ice Lake) */
#define EVT_OCR_0         0x2A /* 2A.01 MSR_OFFCORE_RSP_0 (Golden Cove and later) */
#define EVT_OCR_1         0x2B /* 2B.01 MSR_OFFCORE_RSP_1 (Golden Cove and later) */
#define EVT_MEM_TRANS     0xCD /* MEM_TRANS_RETIRED: MSR_PEBS_LD_LAT_THRESHOLD */
#define EVT_FRONTEND_RET  0xC6 /* FRONTEND_RETIRED: MSR_PEBS_FRONTEND */

/* Ranks: lower wins among entries that program the same thing (gen_dedupe). */
enum {
    RANK_NAMED = 0, /* EVENT.UMASK, neither an alias */
    RANK_BARE = 1,  /* an event without umasks (architectural names like UNHALTED_CORE_CYCLES) */
    RANK_ALIAS = 2, /* libpfm4 lists the event or umask as equivalent to another */
};

#define MAX_CODES 4

static char pfm_version[32] = "unknown";

int gen_pfm_init(void)
{
    Dl_info info;
    char path[PATH_MAX];
    const char *base, *ver;
    int ret;

    /* Encode events of PMUs this machine does not have (libpfm4 README). */
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    unsetenv("LIBPFM_FORCE_PMU");
    ret = pfm_initialize();
    if (ret != PFM_SUCCESS) {
        fprintf(stderr, "gen_configs: pfm_initialize: %s\n", pfm_strerror(ret));
        return -1;
    }
    /* pfm_get_version() only reports the API (4.0); the file name has the release. */
    if (dladdr((void *)pfm_initialize, &info) && info.dli_fname &&
        realpath(info.dli_fname, path)) {
        base = strrchr(path, '/');
        base = base ? base + 1 : path;
        ver = strstr(base, ".so.");
        if (ver && strlen(ver + 4) < sizeof(pfm_version))
            strcpy(pfm_version, ver + 4);
    }
    return 0;
}

const char *gen_pfm_version(void)
{
    return pfm_version;
}

static int pmu_info(int id, pfm_pmu_info_t *info)
{
    memset(info, 0, sizeof(*info));
    info->size = sizeof(*info);
    return pfm_get_pmu_info((pfm_pmu_t)id, info);
}

static void fill_pmu(int id, const pfm_pmu_info_t *info, struct gen_pmu *pmu)
{
    memset(pmu, 0, sizeof(*pmu));
    pmu->id = id;
    snprintf(pmu->name, sizeof(pmu->name), "%s", info->name);
    snprintf(pmu->desc, sizeof(pmu->desc), "%s", info->desc ? info->desc : "");
    pmu->vendor = strncmp(info->name, "amd64", 5) == 0 ? GEN_VENDOR_AMD : GEN_VENDOR_INTEL;
    pmu->num_cntrs = info->num_cntrs;
    pmu->num_fixed_cntrs = info->num_fixed_cntrs;
    pmu->nevents = info->nevents;
}

int gen_pfm_find(const char *name, struct gen_pmu *pmu)
{
    pfm_pmu_info_t info;

    for (int id = PFM_PMU_NONE; id < PFM_PMU_MAX; id++)
        if (pmu_info(id, &info) == PFM_SUCCESS && strcmp(info.name, name) == 0) {
            fill_pmu(id, &info, pmu);
            return 0;
        }
    return -1;
}

static const char *type_text(pfm_pmu_type_t t)
{
    switch (t) {
    case PFM_PMU_TYPE_CORE:
        return "core";
    case PFM_PMU_TYPE_UNCORE:
        return "uncore";
    case PFM_PMU_TYPE_OS_GENERIC:
        return "os";
    default:
        return "unknown";
    }
}

void gen_pfm_list(FILE *out)
{
    pfm_pmu_info_t info;

    fprintf(out, "# libpfm4 %s PMUs: name, type, events, description\n", pfm_version);
    for (int id = PFM_PMU_NONE; id < PFM_PMU_MAX; id++)
        if (pmu_info(id, &info) == PFM_SUCCESS)
            fprintf(out, "%-28s %-7s %5d  %s\n", info.name, type_text(info.type),
                    info.nevents, info.desc ? info.desc : "");
}

int gen_pfm_check_core(const struct gen_pmu *pmu, const char **why)
{
    pfm_pmu_info_t info;

    if (pmu_info(pmu->id, &info) != PFM_SUCCESS) {
        *why = "libpfm4 has no information on this PMU";
        return -1;
    }
    if (info.type != PFM_PMU_TYPE_CORE) {
        *why = "not a core PMU (uncore and OS PMUs cannot be read with RDPMC)";
        return -1;
    }
    if (strncmp(info.desc ? info.desc : "", "Intel", 5) != 0 &&
        strncmp(info.desc ? info.desc : "", "AMD64", 5) != 0) {
        *why = "not an Intel or AMD x86 PMU";
        return -1;
    }
    if (info.nevents <= 0) {
        *why = "PMU has no events";
        return -1;
    }
    return 0;
}

const char *gen_status_text(enum gen_status s)
{
    static const char *const text[GEN_STATUS_COUNT] = {
        [GEN_KEEP] = "written",
        [GEN_ALIAS] = "alias of a written event",
        [GEN_SKIP_ENCODE] = "libpfm4 cannot encode",
        [GEN_SKIP_FIXED] = "fixed counter only",
        [GEN_SKIP_BITS] = "select bits without a nanoBench modifier",
        [GEN_SKIP_EXTRA] = "extra register nanoBench cannot program",
        [GEN_SKIP_EXCLUDED] = "excluded by the family table",
    };
    return (unsigned)s < GEN_STATUS_COUNT ? text[s] : "?";
}

/* Upper-case, and anything outside [A-Z0-9_.] becomes '_'. */
static void append_name(char *dst, size_t size, const char *part)
{
    size_t n = strlen(dst);

    for (; *part && n + 1 < size; part++)
        dst[n++] = isalnum((unsigned char)*part) || *part == '.'
                       ? (char)toupper((unsigned char)*part)
                       : '_';
    dst[n] = '\0';
}

/* Is tok one of the ':'-separated names in list (attribute names only, no k=v)? */
static bool in_list(const char *list, const char *tok, size_t len)
{
    const char *p = list;

    while (p && *p) {
        const char *end = strchr(p, ':');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && strncasecmp(p, tok, len) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/*
 * libpfm4 fills in the default umask of every other umask group (e.g. the response
 * half ANY_RESPONSE of an OFFCORE_RESPONSE request umask). Name the entry after all
 * of them, in the order of the fully qualified string: the requested umask stands
 * where it (or what it expands to) appears, the defaults where they appear.
 */
static void name_umasks(char *name, size_t size, const char *fstr, const char *event,
                        const char *umask, const char *equiv, const char *defaults)
{
    const char *p = strstr(fstr, "::");
    bool placed = false;

    p = p ? p + 2 : fstr;
    if (strncasecmp(p, event, strlen(event)) == 0)
        p += strlen(event);
    else
        p = "";
    while (*p == ':') {
        const char *tok = p + 1, *end = strchr(tok, ':');
        size_t len = end ? (size_t)(end - tok) : strlen(tok);
        char part[GEN_NAME_MAX];

        p = end ? end : tok + len;
        if (memchr(tok, '=', len))
            continue; /* a modifier (k=1, c=0, ...) */
        if (!(strlen(umask) == len && strncasecmp(umask, tok, len) == 0) &&
            !(equiv && in_list(equiv, tok, len)) && in_list(defaults, tok, len)) {
            snprintf(part, sizeof(part), ".%.*s", (int)len, tok);
        } else if (!placed) {
            snprintf(part, sizeof(part), ".%s", umask);
            placed = true;
        } else {
            continue; /* more of what the requested umask expands to */
        }
        append_name(name, size, part);
    }
    if (!placed) {
        append_name(name, size, ".");
        append_name(name, size, umask);
    }
}

static bool is_fixed_only(const struct gen_pmu *pmu, const struct gen_evtsel *sel,
                          const char *desc)
{
    if (pmu->vendor != GEN_VENDOR_INTEL)
        return false;
    /* Event select 00H is the pseudo-encoding of the fixed counters (SDM 3B). */
    if (sel->event == 0x00)
        return true;
    /* libpfm4 4.13 encodes SPR INST_RETIRED.ANY as C0.01; its text says fixed counter. */
    return desc && strcasestr(desc, "fixed counter") && !strcasestr(desc, "general counter");
}

/* Put codes[1] into the MSR the event select implies; -1 when none. */
static int place_extra(struct gen_evtsel *sel, uint64_t value)
{
    int msr = -1;

    switch (sel->event) {
    case EVT_OFFCORE_RSP_0:
        msr = sel->umask == 0x02 ? GEN_MSR_RSP1 : GEN_MSR_RSP0;
        break;
    case EVT_OCR_0:
        msr = GEN_MSR_RSP0;
        break;
    case EVT_OFFCORE_RSP_1:
    case EVT_OCR_1:
        msr = GEN_MSR_RSP1;
        break;
    case EVT_MEM_TRANS:
        msr = GEN_MSR_3F6H;
        break;
    case EVT_FRONTEND_RET:
        msr = GEN_MSR_PF;
        break;
    default:
        return -1;
    }
    sel->has_msr[msr] = true;
    sel->msr[msr] = value;
    return 0;
}

struct grow {
    struct gen_entry *v;
    size_t n, cap;
};

static struct gen_entry *grow_push(struct grow *g)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 256;
        struct gen_entry *v = realloc(g->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        g->v = v;
        g->cap = cap;
    }
    memset(&g->v[g->n], 0, sizeof(g->v[0]));
    g->v[g->n].alias_of = -1;
    return &g->v[g->n++];
}

static void encode_one(const struct gen_pmu *pmu, const pfm_event_info_t *ev,
                       const pfm_event_attr_info_t *um, const char *defaults,
                       struct gen_entry *out)
{
    char spec[512];
    uint64_t codes[MAX_CODES] = {0};
    char *fstr = NULL;
    pfm_pmu_encode_arg_t arg;
    const char *why = NULL;
    int ret;

    snprintf(out->name, sizeof(out->name), "%s", "");
    append_name(out->name, sizeof(out->name), ev->name);
    out->rank = um ? RANK_NAMED : RANK_BARE;
    /* PPR: events that can count more than 15 per cycle need two paired counters. */
    out->needs_merge = pmu->vendor == GEN_VENDOR_AMD && ev->desc && strstr(ev->desc, "MergeEvent");
    /* An umask "equiv" without modifiers is a plain second name for another umask. */
    if (ev->equiv || (um && um->equiv && !strpbrk(um->equiv, ":=")))
        out->rank = RANK_ALIAS;

    snprintf(spec, sizeof(spec), "%s::%s%s%s", pmu->name, ev->name, um ? ":" : "",
             um ? um->name : "");
    memset(&arg, 0, sizeof(arg));
    arg.size = sizeof(arg);
    arg.codes = codes;
    arg.count = MAX_CODES;
    arg.fstr = &fstr;
    /* PLM0|PLM3 sets OS and USR, which decode ignores: nanoBench sets them itself. */
    ret = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
    if (ret != PFM_SUCCESS) {
        if (um) {
            append_name(out->name, sizeof(out->name), ".");
            append_name(out->name, sizeof(out->name), um->name);
        }
        out->status = GEN_SKIP_ENCODE;
        snprintf(out->why, sizeof(out->why), "%s", pfm_strerror(ret));
        free(fstr);
        return;
    }
    if (um)
        name_umasks(out->name, sizeof(out->name), fstr ? fstr : "", ev->name, um->name,
                    um->equiv, defaults);
    free(fstr);

    if (gen_evtsel_decode(pmu->vendor, codes[0], &out->sel, &why) != 0) {
        out->status = GEN_SKIP_BITS;
        snprintf(out->why, sizeof(out->why), "raw 0x%llX %s", (unsigned long long)codes[0],
                 why);
        return;
    }
    if (is_fixed_only(pmu, &out->sel, um ? um->desc : ev->desc)) {
        out->status = GEN_SKIP_FIXED;
        snprintf(out->why, sizeof(out->why), "fixed-counter-only event (raw 0x%llX)",
                 (unsigned long long)codes[0]);
        return;
    }
    if (arg.count > 2 || (arg.count == 2 && place_extra(&out->sel, codes[1]) != 0)) {
        out->status = GEN_SKIP_EXTRA;
        snprintf(out->why, sizeof(out->why), "extra code 0x%llX for event %02X has no MSR_* "
                 "modifier", (unsigned long long)codes[1], out->sel.event);
        return;
    }
    out->status = GEN_KEEP;
}

int gen_pfm_collect(const struct gen_pmu *pmu, struct gen_entry **entries, size_t *count)
{
    struct grow g = {0};
    pfm_pmu_info_t pinfo;
    char defaults[1024]; /* ':'-separated default umasks of the current event */

    if (pmu_info(pmu->id, &pinfo) != PFM_SUCCESS)
        return -1;
    for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
        pfm_event_info_t ev;
        int numasks = 0;

        memset(&ev, 0, sizeof(ev));
        ev.size = sizeof(ev);
        if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
            continue;
        if (ev.pmu != (pfm_pmu_t)pmu->id)
            break; /* the next PMU's events follow */
        defaults[0] = '\0';
        for (int a = 0; a < ev.nattrs; a++) {
            pfm_event_attr_info_t at;

            memset(&at, 0, sizeof(at));
            at.size = sizeof(at);
            if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &at) == PFM_SUCCESS &&
                at.type == PFM_ATTR_UMASK && at.is_dfl &&
                strlen(defaults) + strlen(at.name) + 2 < sizeof(defaults)) {
                strcat(defaults, at.name);
                strcat(defaults, ":");
            }
        }
        for (int a = 0; a < ev.nattrs; a++) {
            pfm_event_attr_info_t at;
            struct gen_entry *e;

            memset(&at, 0, sizeof(at));
            at.size = sizeof(at);
            if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &at) != PFM_SUCCESS ||
                at.type != PFM_ATTR_UMASK)
                continue;
            numasks++;
            if (!(e = grow_push(&g)))
                goto nomem;
            encode_one(pmu, &ev, &at, defaults, e);
        }
        if (numasks == 0) {
            struct gen_entry *e = grow_push(&g);
            if (!e)
                goto nomem;
            encode_one(pmu, &ev, NULL, "", e);
        }
    }
    *entries = g.v;
    *count = g.n;
    return 0;
nomem:
    free(g.v);
    fprintf(stderr, "gen_configs: out of memory\n");
    return -1;
}

void gen_dedupe(struct gen_entry *e, size_t n)
{
    /* Quadratic, but a PMU has at most a few thousand entries. */
    for (size_t i = 0; i < n; i++) {
        if (e[i].status != GEN_KEEP)
            continue;
        for (size_t j = i + 1; j < n; j++) {
            if (e[j].status != GEN_KEEP || !gen_evtsel_same(&e[i].sel, &e[j].sel))
                continue;
            size_t win = e[j].rank < e[i].rank ? j : i, lose = win == i ? j : i;
            e[lose].status = GEN_ALIAS;
            e[lose].alias_of = (int)win;
            if (lose == i)
                break; /* i lost; j carries on as the survivor when its turn comes */
        }
    }
    /* Aliases of an entry that later lost point at the final survivor. */
    for (size_t i = 0; i < n; i++)
        while (e[i].status == GEN_ALIAS && e[e[i].alias_of].status == GEN_ALIAS)
            e[i].alias_of = e[e[i].alias_of].alias_of;
}
