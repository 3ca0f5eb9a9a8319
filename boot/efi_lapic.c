/*
 * efi_lapic.c — local APIC register access (see efi_lapic.h).
 */
#include "efi_lapic.h"
#include "efi_cpu.h"
#include "x86_insn.h"
#include "nb_platform.h"

#define MSR_IA32_APIC_BASE 0x1Bu
#define APIC_BASE_X2APIC (1ull << 10)  /* EXTD: x2APIC mode */
#define APIC_BASE_ENABLE (1ull << 11)
#define APIC_BASE_ADDRESS_MASK 0xFFFFFF000ull
#define MSR_X2APIC_FIRST 0x800u

/* 0: not enabled; 1: xAPIC (MMIO at *base); 2: x2APIC. */
static int apic_mode(uint64_t *base)
{
    uint64_t v = 0;
    if (efi_read_msr(NULL, MSR_IA32_APIC_BASE, &v) != NB_OK || !(v & APIC_BASE_ENABLE))
        return 0;
    *base = v & APIC_BASE_ADDRESS_MASK;
    return (v & APIC_BASE_X2APIC) ? 2 : 1;
}

int efi_lapic_read(void *ctx, uint32_t reg, uint32_t *value)
{
    uint64_t base, v;
    (void)ctx;
    switch (apic_mode(&base)) {
    case 1:
        *value = *(volatile uint32_t *)(uintptr_t)(base + reg);
        return NB_OK;
    case 2:
        if (efi_read_msr(NULL, MSR_X2APIC_FIRST + reg / 16, &v) != NB_OK)
            return NB_EFAULT;
        *value = (uint32_t)v;
        return NB_OK;
    default:
        return NB_EUNSUPP;
    }
}

int efi_lapic_write(void *ctx, uint32_t reg, uint32_t value)
{
    uint64_t base;
    (void)ctx;
    switch (apic_mode(&base)) {
    case 1:
        *(volatile uint32_t *)(uintptr_t)(base + reg) = value;
        return NB_OK;
    case 2:
        return efi_write_msr(NULL, MSR_X2APIC_FIRST + reg / 16, value);
    default:
        return NB_EUNSUPP;
    }
}

uint64_t efi_lapic_mmio_base(void *ctx)
{
    uint64_t base;
    (void)ctx;
    return apic_mode(&base) == 1 ? base : 0;
}

#define LAPIC_ID 0x20u
#define LAPIC_ICR_LOW 0x300u
#define LAPIC_ICR_HIGH 0x310u
#define MSR_X2APIC_ICR 0x830u
#define ICR_SEND_PENDING (1u << 12) /* delivery status (xAPIC only) */
#define ICR_IDLE_POLLS 1000000u

uint32_t efi_apic_id(void *ctx)
{
    uint64_t base;
    uint32_t id = 0;
    int mode = apic_mode(&base);
    efi_lapic_read(ctx, LAPIC_ID, &id);
    return mode == 1 ? id >> 24 : id;
}

int efi_send_ipi(void *ctx, uint32_t apic_id, uint32_t icr_low)
{
    uint64_t base;
    (void)ctx;
    switch (apic_mode(&base)) {
    case 1: {
        /* Two writes make one IPI: no interrupt handler may send its own in between (as Linux). */
        uint64_t flags = x86_irq_save();
        volatile uint32_t *icr_low_reg = (volatile uint32_t *)(uintptr_t)(base + LAPIC_ICR_LOW);
        /* The previous IPI must have left before the ICR is written again (as Linux waits). */
        for (uint32_t i = 0; i < ICR_IDLE_POLLS && (*icr_low_reg & ICR_SEND_PENDING); i++)
            __asm__ volatile("pause");
        *(volatile uint32_t *)(uintptr_t)(base + LAPIC_ICR_HIGH) = apic_id << 24;
        *icr_low_reg = icr_low;
        x86_irq_restore(flags);
        return NB_OK;
    }
    case 2:
        return efi_write_msr(NULL, MSR_X2APIC_ICR, (uint64_t)apic_id << 32 | icr_low);
    default:
        return NB_EUNSUPP;
    }
}
