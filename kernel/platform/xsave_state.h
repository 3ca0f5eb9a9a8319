/*
 * xsave_state.h — which processor state benchmark code may use, and how the
 * generated code saves it.
 *
 * The firmware leaves CR4.OSXSAVE clear and XCR0 at its reset value on most
 * machines, so any VEX- or EVEX-encoded instruction raises #UD (SDM vol. 1
 * 13.5-13.8, vol. 2A 2.8). For the length of the session the image sets
 * CR4.OSFXSR, CR4.OSXMMEXCPT and CR4.OSXSAVE and enables in XCR0 every user
 * state component the CPU has among x87, SSE, AVX, AVX-512 (opmask,
 * ZMM_Hi256, Hi16_ZMM) and AMX (TILECFG, TILEDATA); MPX, PKRU and supervisor
 * components stay off. Everything is put back as the firmware had it at the
 * end. CR4 and XCR0 are per logical processor: -cpu N does the same on N.
 *
 * The choice (xsave_choose_xcr0) is a pure function of CPUID, tested on the
 * host with scripted CPUIDs; the session reaches CR4/XCR0/IA32_XFD only
 * through the seam.
 */
#ifndef XSAVE_STATE_H
#define XSAVE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_platform.h"

/* CR4 bits (SDM vol. 3A 2.5, figure 2-7). */
#define CR4_OSFXSR (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CR4_OSXSAVE (1ull << 18)

/* XCR0 state components (SDM vol. 1 13.1, 13.3). */
#define XCR0_X87 (1ull << 0)
#define XCR0_SSE (1ull << 1)
#define XCR0_AVX (1ull << 2)
#define XCR0_BNDREGS (1ull << 3)
#define XCR0_BNDCSR (1ull << 4)
#define XCR0_OPMASK (1ull << 5)
#define XCR0_ZMM_HI256 (1ull << 6)
#define XCR0_HI16_ZMM (1ull << 7)
#define XCR0_PKRU (1ull << 9)
#define XCR0_TILECFG (1ull << 17)
#define XCR0_TILEDATA (1ull << 18)
#define XCR0_AVX512 (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)
#define XCR0_AMX (XCR0_TILECFG | XCR0_TILEDATA)
/* The components benchmarks may use; the others are never enabled. */
#define XCR0_WANTED (XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_AVX512 | XCR0_AMX)
/* XCR0's value after reset (SDM vol. 1 13.3). */
#define XCR0_RESET XCR0_X87

/* IA32_XFD: a set bit makes first use of that component raise #NM (SDM vol. 1 13.14). */
#define MSR_IA32_XFD 0x1C4u

/* FXSAVE64's area, used when there is no XSAVE (SDM vol. 1 10.5.1). */
#define FXSAVE_AREA_SIZE 512u

/* What CPUID says about state saving. */
struct xsave_cpu {
    bool fxsr;          /* CPUID.01H:EDX[24] */
    bool xsave;         /* CPUID.01H:ECX[26] and leaf 0DH exists */
    bool xfd;           /* CPUID.(0DH,1):EAX[4] */
    uint64_t supported; /* CPUID.(0DH,0):EDX:EAX, the XCR0 bits the CPU allows */
};

void xsave_read_cpu(const struct nb_platform *p, struct xsave_cpu *cpu);

/*
 * The XCR0 to enable: the wanted components the CPU supports, made
 * consistent (SDM vol. 1 13.3: bit 0 set; AVX only with SSE; the three
 * AVX-512 bits all or none, and only with AVX; TILECFG and TILEDATA both
 * or neither). 0 when the CPU has no XSAVE.
 */
uint64_t xsave_choose_xcr0(const struct xsave_cpu *cpu);

/* The state of one processor while the image runs, and what to put back. */
struct xsave_session {
    bool managed;       /* begin changed the processor: end must restore it */
    uint64_t xcr0;      /* enabled components; 0: no XSAVE, the code uses FXSAVE64 */
    uint32_t area_size; /* XSAVE area for xcr0 (CPUID.(0DH,0):EBX), or FXSAVE_AREA_SIZE */
    /* The firmware's values. */
    uint64_t old_cr4, old_xcr0, old_xfd;
    bool xfd_changed;
};

/*
 * Enables the state on the processor `p` runs on. Without control-register
 * access (p->read_cr4 NULL: not in ring 0) nothing changes, xcr0 stays 0 and
 * the code saves with FXSAVE64.
 */
void xsave_session_begin(struct xsave_session *s, const struct nb_platform *p);
/* Puts back IA32_XFD, XCR0 and CR4 as begin found them (in that order). */
void xsave_session_end(struct xsave_session *s, const struct nb_platform *p);

/* The fingerprint line, e.g. "xsave: XCR0 0x7 (x87 SSE AVX), 832-byte area". */
void xsave_describe(const struct xsave_session *s, bool ring0, char *buf, size_t cap);

#endif
