/*
 * gen_evtsel — one nanoBench config entry as data, for the host config generator.
 *
 * Decodes a raw IA32_PERFEVTSELx (Intel SDM vol. 3B, "Architectural Performance
 * Monitoring") or PERF_CTLx (AMD APM vol. 2, "Performance Monitoring Counters")
 * value into the fields of a nanoBench config line, formats such a line, and parses
 * one back (for `gen_configs verify`). No libpfm4 here: the generator feeds it the
 * raw values libpfm4 produced, the checker feeds it text.
 *
 * Line grammar (nanoBench README, "Performance Counter Config Files"):
 *   EvtSel.UMASK(.CMSK=n)(.AnyT)(.EDG)(.INV)(.TakenAlone)(.CTR=set)
 *       (.MSR_3F6H=x)(.MSR_PF=x)(.MSR_RSP0=x)(.MSR_RSP1=x) Name
 * EvtSel is 2 hex digits on Intel and 3 on AMD (event[11:8] included), UMASK 2 hex
 * digits, CMSK decimal, MSR values 0x-prefixed hex. CTR is the set of counters the
 * event may use: decimal indices and ranges, "0-3", "0,1,2,3", "0-1,4"; a single
 * index keeps nanoBench's meaning (pinned to that counter).
 */
#ifndef GEN_EVTSEL_H
#define GEN_EVTSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gen_vendor { GEN_VENDOR_INTEL, GEN_VENDOR_AMD };

/* Extra MSRs a nanoBench entry can program, in grammar order. */
enum gen_msr {
    GEN_MSR_3F6H, /* MSR_PEBS_LD_LAT_THRESHOLD (0x3F6): load-latency threshold */
    GEN_MSR_PF,   /* MSR_PEBS_FRONTEND (0x3F7): FRONTEND_RETIRED qualifier */
    GEN_MSR_RSP0, /* MSR_OFFCORE_RSP_0 (0x1A6) */
    GEN_MSR_RSP1, /* MSR_OFFCORE_RSP_1 (0x1A7) */
    GEN_MSR_COUNT
};

struct gen_evtsel {
    uint16_t event; /* Intel: 8 bits; AMD: 12 bits (PERF_CTL[35:32] and [7:0]) */
    uint8_t umask;
    uint8_t cmask;  /* 0: no counter mask */
    bool any;       /* AnyThread (Intel only) */
    bool edge;
    bool inv;
    bool taken_alone;
    uint32_t ctr_mask; /* bit i: counter i allowed; 0: any (.CTR=n pins to n, .CTR=0-3 a set) */
    bool has_msr[GEN_MSR_COUNT];
    uint64_t msr[GEN_MSR_COUNT];
};

/* Longest line we format or accept, name included. */
#define GEN_LINE_MAX 512
/* Longest event name we accept. */
#define GEN_NAME_MAX 256

void gen_evtsel_init(struct gen_evtsel *e);

/*
 * Fill e from a raw select value. The enable, USR, OS, INT (and Intel PC) bits are
 * ignored: nanoBench sets them itself. Returns 0, or -1 when raw has bits the
 * grammar cannot express (why names them, e.g. the Intel TSX IN_TX/IN_TXCP filters).
 */
int gen_evtsel_decode(enum gen_vendor vendor, uint64_t raw, struct gen_evtsel *e,
                      const char **why);

/* Format "EvtSel.UMASK..." (no name) into buf; returns the length written. */
size_t gen_evtsel_format(enum gen_vendor vendor, const struct gen_evtsel *e, char *buf,
                         size_t size);

/*
 * Same hardware programming? Offcore-response entries that differ only in which of
 * the two MSR_OFFCORE_RSP registers carries the same value count as the same.
 */
bool gen_evtsel_same(const struct gen_evtsel *a, const struct gen_evtsel *b);

/*
 * Parse one non-comment line. The vendor is taken from the event-code width (2 hex
 * digits Intel, 3 AMD) and returned. Returns 0, or -1 with *why set.
 */
int gen_evtsel_parse(const char *line, enum gen_vendor *vendor, struct gen_evtsel *e,
                     char *name, size_t name_size, const char **why);

/* Format a counter set as ascending ranges ("0-3,5"); returns the length. */
size_t gen_ctr_format(uint32_t mask, char *buf, size_t size);

/* Parse "0-3", "0,1", "2" (len bytes); 0, or -1 when malformed or empty. */
int gen_ctr_parse(const char *s, size_t len, uint32_t *mask);

/* True for [A-Za-z0-9_.]+ — the names the generator writes (vendor names are upper
 * case; nanoBench's AMD short names are CamelCase: LsNotHaltedCyc). */
bool gen_name_ok(const char *name);

#endif /* GEN_EVTSEL_H */
