/*
 * x86_insn.h — the few privileged or identifying instructions boot/ needs:
 * CPUID, RDTSC, RDMSR/WRMSR, SIDT/LIDT and interrupt masking. One inline-asm
 * wrapper each, no logic; efi_cpu.c builds the platform seam on top of them.
 */
#ifndef BOOT_X86_INSN_H
#define BOOT_X86_INSN_H

#include <stdint.h>

/* IDTR image for SIDT/LIDT (SDM Vol. 3A §6.10, 64-bit form: 2 + 8 bytes). */
struct x86_desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

#define X86_RFLAGS_IF (1ULL << 9)

static inline void x86_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    __asm__ volatile("cpuid"
                     : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3])
                     : "a"(leaf), "c"(subleaf));
}

static inline uint64_t x86_rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/*
 * RDMSR/WRMSR must stay the bare 2-byte opcodes (0F 32 / 0F 30): the #GP
 * handler in efi_msr_fault.asm recognises and skips exactly those bytes.
 * The "memory" clobber keeps the fault flag reads on the right side.
 */
static inline uint64_t x86_rdmsr(uint32_t msr)
{
    uint32_t lo = 0, hi = 0;

    __asm__ volatile("rdmsr" : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline void x86_wrmsr(uint32_t msr, uint64_t value)
{
    __asm__ volatile("wrmsr"
                     :
                     : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
                     : "memory");
}

static inline void x86_sidt(struct x86_desc_ptr *idtr)
{
    __asm__ volatile("sidt %0" : "=m"(*idtr));
}

static inline void x86_lidt(const struct x86_desc_ptr *idtr)
{
    __asm__ volatile("lidt %0" : : "m"(*idtr) : "memory");
}

static inline uint16_t x86_read_cs(void)
{
    uint16_t cs;

    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    return cs;
}

/* CR3: the root of the paging structures (SDM vol. 3A 4.5). */
static inline uint64_t x86_read_cr3(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

static inline void x86_write_cr3(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t x86_read_cr0(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr0, %0" : "=r"(v));
    return v;
}

static inline void x86_write_cr0(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t x86_read_cr4(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr4, %0" : "=r"(v));
    return v;
}

static inline void x86_write_cr4(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

/* XGETBV/XSETBV with ECX = 0 (XCR0); both #UD unless CR4.OSXSAVE is set (SDM vol. 2C). */
static inline uint64_t x86_xgetbv0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static inline void x86_xsetbv0(uint64_t v)
{
    __asm__ volatile("xsetbv" : : "c"(0), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* Masks maskable interrupts and returns the previous RFLAGS. */
static inline uint64_t x86_irq_save(void)
{
    uint64_t flags;

    __asm__ volatile("pushfq\n\tpopq %0\n\tcli" : "=r"(flags) : : "memory");
    return flags;
}

/* Re-enables interrupts only if they were enabled before x86_irq_save. */
static inline void x86_irq_restore(uint64_t flags)
{
    if (flags & X86_RFLAGS_IF)
        __asm__ volatile("sti" : : : "memory");
}

#endif
