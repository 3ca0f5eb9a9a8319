/*
 * platform_report.c — see platform_report.h.
 */
#include "platform_report.h"

#include "cpu_caches.h"
#include "nb_text.h"
#include "paging_census.h"
#include "smbios.h"
#include "uarch_facts.h"
#include "cpuid_bits.h"

/* Calibration for the report when the fingerprint took the frequency from CPUID. */
#define PLATFORM_TSC_CALIBRATION_MS 50

static void fact(struct report *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fact(struct report *r, const char *key, const char *fmt, ...)
{
    char value[160];
    va_list ap;
    va_start(ap, fmt);
    nb_vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    report_platform_fact(r, key, value);
}

static void fact_u64(struct report *r, const char *key, uint64_t v)
{
    fact(r, key, "%llu", (unsigned long long)v);
}

static void cpu_facts(struct report *r, const struct machine_info *m)
{
    fact(r, "cpu.vendor", "%s", m->vendor);
    fact(r, "cpu.brand", "%s", m->brand);
    fact_u64(r, "cpu.family", m->family);
    fact_u64(r, "cpu.model", m->model);
    fact_u64(r, "cpu.stepping", m->stepping);
    if (m->microcode_known)
        fact_u64(r, "cpu.microcode", m->microcode);
    else
        fact(r, "cpu.microcode", "missing (IA32_BIOS_SIGN_ID not readable)");
}

static void tsc_facts(struct report *r, const struct nb_platform *p, const struct machine_info *m)
{
    struct tsc_sources t;
    bool calibrated = m->tsc_source == TSC_FREQ_CALIBRATED;
    machine_tsc_sources(p, m, calibrated ? 0 : PLATFORM_TSC_CALIBRATION_MS, &t);
    if (calibrated)
        t.calibrated_hz = m->tsc_hz;
    fact_u64(r, "tsc.hz", m->tsc_hz);
    fact(r, "tsc.source", "%s", m->tsc_source == TSC_FREQ_CPUID_15H ? "cpuid_15h"
                                : m->tsc_source == TSC_FREQ_CPUID_16H ? "cpuid_16h"
                                : calibrated ? "calibrated" : "unknown");
    fact_u64(r, "tsc.invariant", m->tsc_invariant);
    fact_u64(r, "tsc.calibrated_hz", t.calibrated_hz);
    if (m->vendor_id == VENDOR_AMD) {
        fact_u64(r, "tsc.amd_p0_hz", t.amd_p0_hz);
    } else {
        fact_u64(r, "tsc.cpuid_15h_hz", t.cpuid_15h_hz);
        fact_u64(r, "tsc.cpuid_16h_hz", t.cpuid_16h_hz);
    }
}

static void cache_facts(struct report *r, const struct nb_platform *p, const struct machine_info *m)
{
    struct cpu_cache_info ci;
    cpu_caches_read(p, m, &ci);
    if (!ci.n_caches)
        fact(r, "cache", "missing (CPUID describes no cache)");
    for (unsigned i = 0; i < ci.n_caches; i++) {
        const struct cpu_cache *c = &ci.caches[i];
        char key[32];
        nb_snprintf(key, sizeof(key), "cache.%s.size", c->name);
        fact_u64(r, key, c->size);
        nb_snprintf(key, sizeof(key), "cache.%s.ways", c->name);
        fact_u64(r, key, c->ways);
        nb_snprintf(key, sizeof(key), "cache.%s.line", c->name);
        fact_u64(r, key, c->line);
        nb_snprintf(key, sizeof(key), "cache.%s.sets", c->name);
        fact_u64(r, key, c->sets);
        nb_snprintf(key, sizeof(key), "cache.%s.shared_by", c->name);
        if (c->shared_by)
            fact_u64(r, key, c->shared_by);
        else
            fact(r, key, "unknown (%s does not say)", ci.cache_source);
    }
    if (ci.n_caches)
        fact(r, "cache.source", "%s", ci.cache_source);
    if (!ci.tlb_source) {
        fact(r, "tlb", "missing (%s)", ci.tlb_missing);
        return;
    }
    for (unsigned i = 0; i < ci.n_tlbs; i++) {
        const struct cpu_tlb *t = &ci.tlbs[i];
        char key[48];
        nb_snprintf(key, sizeof(key), "tlb.%s.%s.entries", t->name, t->pages);
        fact_u64(r, key, t->entries);
        nb_snprintf(key, sizeof(key), "tlb.%s.%s.ways", t->name, t->pages);
        fact_u64(r, key, t->ways);
    }
    fact(r, "tlb.source", "%s", ci.tlb_source);
}

/*
 * The machine constants the metrics use (pmu/uarch_facts.c): a value only
 * where the table has a sourced one, "unknown (why)" otherwise.
 */
static void metrics_facts(struct report *r, const struct nb_platform *p, const struct machine_info *m)
{
    unsigned core_type = 0;
    if (m->vendor_id == VENDOR_INTEL && m->max_leaf >= CPUID_LEAF_HYBRID) {
        uint32_t regs[4];
        p->cpuid(p->ctx, CPUID_LEAF_HYBRID, 0, regs);
        core_type = HYBRID_CORE_TYPE(regs[CPUID_EAX]);
    }
    struct uarch_facts f;
    uarch_facts_for(m->vendor_id, m->family, m->model, core_type, &f);
    fact(r, "metrics.uarch", "%s", f.name ? f.name : "unknown (not in the table of pmu/uarch_facts.c)");
    if (f.issue_width)
        fact_u64(r, "metrics.issue_width", f.issue_width);
    else
        fact(r, "metrics.issue_width", "unknown (%s)", f.width_why);
    if (f.peak_dp) {
        fact_u64(r, "metrics.peak_flop_per_cycle", f.peak_dp);
        fact_u64(r, "metrics.peak_flop_per_cycle_sp", f.peak_sp);
    } else {
        fact(r, "metrics.peak_flop_per_cycle", "unknown (%s)", f.peak_why);
    }
}

static void smbios_facts(struct report *r, const struct nb_firmware_facts *f)
{
    if (!f->smbios) {
        fact(r, "smbios", "missing (the firmware publishes no SMBIOS table)");
        return;
    }
    static struct smbios_facts s; /* ~1 KiB: kept off the firmware's stack */
    smbios_parse(f->smbios, f->smbios_len, &s);
    fact(r, "smbios.version", "%u.%u", f->smbios_major, f->smbios_minor);
    if (s.bios_found) {
        fact(r, "smbios.bios.vendor", "%s", s.bios_vendor);
        fact(r, "smbios.bios.version", "%s", s.bios_version);
        fact(r, "smbios.bios.date", "%s", s.bios_date);
    } else {
        fact(r, "smbios.bios", "missing (no type 0 structure)");
    }
    if (s.system_found) {
        fact(r, "smbios.system.manufacturer", "%s", s.system_manufacturer);
        fact(r, "smbios.system.product", "%s", s.system_product);
    } else {
        fact(r, "smbios.system", "missing (no type 1 structure)");
    }
    if (s.board_found) {
        fact(r, "smbios.board.manufacturer", "%s", s.board_manufacturer);
        fact(r, "smbios.board.product", "%s", s.board_product);
    } else {
        fact(r, "smbios.board", "missing (no type 2 structure)");
    }
    if (s.processor_found) {
        fact_u64(r, "smbios.processor.current_mhz", s.processor_current_mhz);
        fact_u64(r, "smbios.processor.max_mhz", s.processor_max_mhz);
    } else {
        fact(r, "smbios.processor", "missing (no type 4 structure)");
    }
    if (!s.n_memory)
        fact(r, "smbios.memory", "missing (no installed type 17 device)");
    for (unsigned i = 0; i < s.n_memory; i++) {
        char key[48];
        const char *type = smbios_memory_type_name(s.memory[i].type);
        nb_snprintf(key, sizeof(key), "smbios.memory.%u.size_mib", i);
        fact_u64(r, key, s.memory[i].size_mib);
        nb_snprintf(key, sizeof(key), "smbios.memory.%u.speed_mts", i);
        fact_u64(r, key, s.memory[i].speed_mts);
        nb_snprintf(key, sizeof(key), "smbios.memory.%u.type", i);
        if (type)
            fact(r, key, "%s", type);
        else
            fact(r, key, "0x%x", s.memory[i].type);
    }
    if (s.truncated)
        fact(r, "smbios.truncated", "1");
}

static void firmware_facts(struct report *r, const struct nb_platform *p)
{
    struct nb_firmware_facts f;
    nb_memset(&f, 0, sizeof(f));
    if (!p->firmware_facts) {
        fact(r, "firmware", "missing (this platform reports no firmware facts)");
        return;
    }
    p->firmware_facts(p->ctx, &f);
    if (f.memory_known) {
        fact_u64(r, "memory.usable_bytes", f.usable_bytes);
        fact_u64(r, "memory.largest_free_bytes", f.largest_free_bytes);
    } else {
        fact(r, "memory", "missing (no UEFI memory map)");
    }
    if (f.vendor_known) {
        fact(r, "firmware.vendor", "%s", f.vendor);
        fact_u64(r, "firmware.revision", f.revision);
        fact(r, "firmware.uefi", "%u.%u", f.uefi_revision >> 16, f.uefi_revision & 0xFFFF);
    } else {
        fact(r, "firmware", "missing (no vendor in the system table)");
    }
    /* Secure Boot: on means this image passed the firmware's signature check (db). */
    if (f.secure_boot_known)
        fact(r, "firmware.secure_boot", "%s", f.secure_boot ? "on" : "off");
    else
        fact(r, "firmware.secure_boot", "unknown (no SecureBoot variable)");
    if (f.setup_mode_known)
        fact(r, "firmware.setup_mode", "%s", f.setup_mode ? "yes (no platform key enrolled)" : "no");
    smbios_facts(r, &f);
    if (f.cr3_known && p->read_cr4) {
        struct paging_census c;
        char sizes[16];
        paging_census(f.cr3, p->read_cr4(p->ctx), &c);
        paging_page_sizes(&c, sizes, sizeof(sizes));
        fact_u64(r, "paging.levels", c.levels);
        fact(r, "paging.page_sizes", "%s", sizes);
        fact_u64(r, "paging.pages_4k", c.pages_4k);
        fact_u64(r, "paging.pages_2m", c.pages_2m);
        fact_u64(r, "paging.pages_1g", c.pages_1g);
    } else {
        fact(r, "paging", "missing (paging root not readable here)");
    }
}

void platform_report(struct report *r, const struct nb_platform *p, const struct machine_info *m)
{
    cpu_facts(r, m);
    tsc_facts(r, p, m);
    cache_facts(r, p, m);
    metrics_facts(r, p, m);
    firmware_facts(r, p);
}
