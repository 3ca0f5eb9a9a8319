/*
 * mica_record.h — one dynamic instruction as the MICA analyses see it
 * (MICA-SPEC §1.1): the facts Pin hands to MICA's analysis calls, with no
 * decoder behind them. tools/mica/mica_decode.c fills it from a trace; the
 * unit tests fill it by hand, so the analyses are checked without Zydis.
 */
#ifndef MICA_RECORD_H
#define MICA_RECORD_H

#include <stdbool.h>
#include <stdint.h>

/* Register ids are < 4096 (MICA's MAX_NUM_REGS); the decoder uses Zydis's. */
#define MICA_MAX_REG_ID 4096
/* More than any x86 instruction lists after the §1.3 filter (PUSHA: 9). */
#define MICA_MAX_REGS 24

/*
 * XED instruction categories (the names Pin's CATEGORY_StringShort gives and
 * Zydis reports; Zydis took its tables from XED). X-macro: one name per entry.
 */
#define MICA_CATEGORIES(X)                                                                   \
    X(INVALID) X(ADOX_ADCX) X(AES) X(AMD3DNOW) X(AMX_TILE) X(AVX) X(AVX2) X(AVX2GATHER)      \
    X(AVX512) X(AVX512_4FMAPS) X(AVX512_4VNNIW) X(AVX512_BITALG) X(AVX512_VBMI)              \
    X(AVX512_VP2INTERSECT) X(BINARY) X(BITBYTE) X(BLEND) X(BMI1) X(BMI2) X(BROADCAST)        \
    X(CALL) X(CET) X(CLDEMOTE) X(CLFLUSHOPT) X(CLWB) X(CLZERO) X(CMOV) X(COMPRESS)           \
    X(COND_BR) X(CONFLICT) X(CONVERT) X(DATAXFER) X(DECIMAL) X(ENQCMD) X(EXPAND) X(FCMOV)    \
    X(FLAGOP) X(FMA4) X(FP16) X(GATHER) X(GFNI) X(HRESET) X(IFMA) X(INTERRUPT) X(IO)         \
    X(IOSTRINGOP) X(KEYLOCKER) X(KEYLOCKER_WIDE) X(KMASK) X(KNC) X(KNCMASK) X(KNCSCALAR)     \
    X(LEGACY) X(LOGICAL) X(LOGICAL_FP) X(LZCNT) X(MISC) X(MMX) X(MOVDIR) X(MPX) X(NOP)       \
    X(PADLOCK) X(PCLMULQDQ) X(PCONFIG) X(PKU) X(POP) X(PREFETCH) X(PREFETCHWT1) X(PT)        \
    X(PUSH) X(RDPID) X(RDPRU) X(RDRAND) X(RDSEED) X(RDWRFSGS) X(RET) X(ROTATE) X(SCATTER)    \
    X(SEGOP) X(SEMAPHORE) X(SERIALIZE) X(SETCC) X(SGX) X(SHA) X(SHIFT) X(SMAP) X(SSE)        \
    X(STRINGOP) X(STTNI) X(SYSCALL) X(SYSRET) X(SYSTEM) X(TBM) X(TSX_LDTRK) X(UFMA)          \
    X(UINTR) X(UNCOND_BR) X(VAES) X(VBMI2) X(VEX) X(VFMA) X(VPCLMULQDQ) X(VTX) X(WAITPKG)    \
    X(WIDENOP) X(X87_ALU) X(XOP) X(XSAVE) X(XSAVEOPT)

#define MICA_CAT_ENUM_(name) MICA_CAT_##name,
enum mica_category { MICA_CATEGORIES(MICA_CAT_ENUM_) MICA_N_CATEGORIES };
#undef MICA_CAT_ENUM_

/* "COND_BR" for MICA_CAT_COND_BR; NULL when out of range. */
const char *mica_category_name(unsigned category);
/* The category of that name, or -1. */
int mica_category_from_name(const char *name);

struct mica_rec {
    uint64_t pc;
    uint8_t len;
    uint8_t category;       /* enum mica_category */
    const char *iclass;     /* XED iclass name ("RET_NEAR"); compared with strcmp */
    bool mem_read, has_read2, mem_write;
    /* N_hpc counts this record (§1.2): false for REP iterations after the
     * first and for a REP whose count register is 0. */
    bool counts_hpc;
    bool taken;             /* meaningful for COND_BR only */
    uint8_t n_reg_operands; /* unfiltered: flags, RIP, RSP count (§5 step 3) */
    uint8_t n_regs_read, n_regs_written;
    uint16_t regs_read[MICA_MAX_REGS];    /* after the §1.3 filter */
    uint16_t regs_written[MICA_MAX_REGS];
    /* An EA of 0 means "no such access" (MICA's own convention, §2.3). */
    uint64_t read1_ea, read2_ea, write_ea;
    uint32_t read_size;     /* one size for both reads (§1.4) */
    uint32_t write_size;
};

#endif
