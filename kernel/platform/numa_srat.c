/*
 * numa_srat.c — SRAT parser (see numa_srat.h). Offsets: ACPI 6.5 5.2.16.
 */
#include "numa_srat.h"
#include "nb_text.h"

#define SRAT_HEADER_LEN 36u     /* the ACPI table header (5.2.6) */
#define SRAT_ENTRIES_AT 48u     /* header, reserved 4 bytes (1 for compatibility), reserved 8 */
#define SRAT_LAPIC_AFFINITY 0u  /* 5.2.16.1, 16 bytes */
#define SRAT_MEMORY_AFFINITY 1u /* 5.2.16.2, 40 bytes */
#define SRAT_X2APIC_AFFINITY 2u /* 5.2.16.3, 24 bytes */
#define SRAT_ENABLED (1u << 0)
#define SRAT_MEM_HOTPLUG (1u << 1)
#define SRAT_MEM_NONVOLATILE (1u << 2)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void add_domain(struct numa_map *m, uint32_t d, uint32_t *seen, unsigned *n_seen)
{
    for (unsigned i = 0; i < *n_seen; i++)
        if (seen[i] == d)
            return;
    if (*n_seen < NUMA_MAX_CPUS)
        seen[(*n_seen)++] = d;
    m->n_domains = *n_seen;
}

bool numa_parse_srat(const void *table, size_t len, struct numa_map *m, char *why, size_t cap)
{
    const uint8_t *t = table;
    static uint32_t seen[NUMA_MAX_CPUS];
    unsigned n_seen = 0;
    nb_memset(m, 0, sizeof(*m));
    if (!t || len < SRAT_ENTRIES_AT || nb_memcmp(t, "SRAT", 4) != 0) {
        nb_snprintf(why, cap, "no SRAT");
        return false;
    }
    size_t total = le32(t + 4);
    if (total < SRAT_ENTRIES_AT || total > len) {
        nb_snprintf(why, cap, "SRAT length %u does not fit the table", (unsigned)total);
        return false;
    }
    for (size_t at = SRAT_ENTRIES_AT; at + 2 <= total;) {
        const uint8_t *e = t + at;
        unsigned type = e[0], elen = e[1];
        if (elen < 2 || at + elen > total) {
            nb_snprintf(why, cap, "SRAT entry at offset %u has a bad length", (unsigned)at);
            return false;
        }
        if (type == SRAT_LAPIC_AFFINITY && elen >= 16 && (le32(e + 4) & SRAT_ENABLED) &&
            m->n_cpus < NUMA_MAX_CPUS) {
            uint32_t d = e[2] | (uint32_t)e[9] << 8 | (uint32_t)e[10] << 16 | (uint32_t)e[11] << 24;
            m->cpu[m->n_cpus].apic_id = e[3];
            m->cpu[m->n_cpus++].domain = d;
            add_domain(m, d, seen, &n_seen);
        } else if (type == SRAT_X2APIC_AFFINITY && elen >= 24 && (le32(e + 12) & SRAT_ENABLED) &&
                   m->n_cpus < NUMA_MAX_CPUS) {
            m->cpu[m->n_cpus].apic_id = le32(e + 8);
            m->cpu[m->n_cpus++].domain = le32(e + 4);
            add_domain(m, le32(e + 4), seen, &n_seen);
        } else if (type == SRAT_MEMORY_AFFINITY && elen >= 40 && (le32(e + 28) & SRAT_ENABLED) &&
                   m->n_ranges < NUMA_MAX_RANGES) {
            uint32_t flags = le32(e + 28);
            m->range[m->n_ranges].domain = le32(e + 2);
            m->range[m->n_ranges].base = le64(e + 8);
            m->range[m->n_ranges].length = le64(e + 16);
            m->range[m->n_ranges].hotplug = (flags & SRAT_MEM_HOTPLUG) != 0;
            m->range[m->n_ranges++].nonvolatile = (flags & SRAT_MEM_NONVOLATILE) != 0;
            add_domain(m, le32(e + 2), seen, &n_seen);
        }
        at += elen;
    }
    return true;
}

bool numa_domain_of(const struct numa_map *m, uint32_t apic_id, uint32_t *domain)
{
    for (unsigned i = 0; i < m->n_cpus; i++) {
        if (m->cpu[i].apic_id == apic_id) {
            *domain = m->cpu[i].domain;
            return true;
        }
    }
    return false;
}

uint64_t numa_domain_memory(const struct numa_map *m, uint32_t domain)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < m->n_ranges; i++)
        if (m->range[i].domain == domain && !m->range[i].hotplug && !m->range[i].nonvolatile)
            total += m->range[i].length;
    return total;
}
