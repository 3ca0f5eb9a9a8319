/*
 * efi_cpu.c — CPUID, RDTSC and fault-tolerant RDMSR/WRMSR.
 *
 * RDMSR/WRMSR of a reserved or unimplemented MSR raises #GP(0) (SDM Vol. 2B,
 * RDMSR/WRMSR). The firmware's #GP handler would halt the machine, so each
 * access runs with interrupts masked under a private copy of the firmware
 * IDT whose gate 13 points at efi_msr_fault_handler (efi_msr_fault.asm);
 * the handler skips the instruction and raises a flag. Copying the table
 * instead of patching it leaves firmware memory alone (it may be read-only)
 * and keeps every other vector, NMI included, exactly as the firmware had it.
 */
#include "efi_cpu.h"

#include <stddef.h>

#include "nb_platform.h"
#include "x86_insn.h"

#define VECTOR_GP 13
#define IDT_GATES 256
#define GATE_PRESENT 0x80
#define GATE_INTERRUPT_DPL0 0x8E /* present, DPL 0, 64-bit interrupt gate */

/* 64-bit IDT gate descriptor (SDM Vol. 3A §6.14.1, Figure 6-8). */
struct idt_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_high;
    uint32_t reserved;
} __attribute__((packed));

/* Defined in efi_msr_fault.asm. */
extern void efi_msr_fault_handler(void) __attribute__((visibility("hidden")));
extern volatile uint8_t efi_msr_fault_hit __attribute__((visibility("hidden")));
extern uint64_t efi_msr_fault_prev __attribute__((visibility("hidden")));

static struct idt_gate guard_idt[IDT_GATES] __attribute__((aligned(16)));

struct msr_guard {
    struct x86_desc_ptr firmware_idtr;
    uint64_t flags;
};

static uint64_t gate_offset(const struct idt_gate *g)
{
    return g->offset_low | (uint64_t)g->offset_mid << 16 | (uint64_t)g->offset_high << 32;
}

static void set_gate_offset(struct idt_gate *g, uint64_t offset)
{
    g->offset_low = (uint16_t)offset;
    g->offset_mid = (uint16_t)(offset >> 16);
    g->offset_high = (uint32_t)(offset >> 32);
}

static void guard_enter(struct msr_guard *guard)
{
    struct x86_desc_ptr idtr;
    size_t bytes;
    struct idt_gate *gp = &guard_idt[VECTOR_GP];

    guard->flags = x86_irq_save();
    x86_sidt(&guard->firmware_idtr);

    bytes = (size_t)guard->firmware_idtr.limit + 1;
    if (bytes > sizeof(guard_idt))
        bytes = sizeof(guard_idt);
    __builtin_memset(guard_idt, 0, sizeof(guard_idt));
    __builtin_memcpy(guard_idt, (const void *)guard->firmware_idtr.base, bytes);

    /* Unexpected #GPs are passed on to the firmware's own handler. */
    efi_msr_fault_prev = (gp->type_attr & GATE_PRESENT) ? gate_offset(gp) : 0;
    if (!(gp->type_attr & GATE_PRESENT)) {
        gp->selector = x86_read_cs();
        gp->ist = 0;
        gp->type_attr = GATE_INTERRUPT_DPL0;
    }
    set_gate_offset(gp, (uint64_t)(uintptr_t)efi_msr_fault_handler);
    efi_msr_fault_hit = 0;

    idtr.base = (uint64_t)(uintptr_t)guard_idt;
    idtr.limit = sizeof(guard_idt) - 1;
    x86_lidt(&idtr);
}

/* Restores the firmware IDT and IF; returns true if the access faulted. */
static bool guard_leave(struct msr_guard *guard)
{
    bool faulted = efi_msr_fault_hit != 0;

    x86_lidt(&guard->firmware_idtr);
    x86_irq_restore(guard->flags);
    return faulted;
}

int efi_read_msr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct msr_guard guard;
    uint64_t v;

    (void)ctx;
    guard_enter(&guard);
    v = x86_rdmsr(msr);
    if (guard_leave(&guard)) {
        *value = 0;
        return NB_EFAULT;
    }
    *value = v;
    return NB_OK;
}

int efi_write_msr(void *ctx, uint32_t msr, uint64_t value)
{
    struct msr_guard guard;

    (void)ctx;
    guard_enter(&guard);
    x86_wrmsr(msr, value);
    return guard_leave(&guard) ? NB_EFAULT : NB_OK;
}

void efi_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    (void)ctx;
    x86_cpuid(leaf, subleaf, regs);
}

uint64_t efi_read_tsc(void *ctx)
{
    (void)ctx;
    return x86_rdtsc();
}

uint64_t efi_read_cr4(void *ctx)
{
    (void)ctx;
    return x86_read_cr4();
}

void efi_write_cr4(void *ctx, uint64_t value)
{
    (void)ctx;
    x86_write_cr4(value);
}

uint64_t efi_read_xcr0(void *ctx)
{
    (void)ctx;
    return x86_xgetbv0();
}

void efi_write_xcr0(void *ctx, uint64_t value)
{
    (void)ctx;
    x86_xsetbv0(value);
}

uint64_t efi_read_cr0(void *ctx)
{
    (void)ctx;
    return x86_read_cr0();
}

void efi_write_cr0(void *ctx, uint64_t value)
{
    (void)ctx;
    x86_write_cr0(value);
}

uint64_t efi_read_cr3(void *ctx)
{
    (void)ctx;
    return x86_read_cr3();
}

void efi_write_cr3(void *ctx, uint64_t value)
{
    (void)ctx;
    x86_write_cr3(value);
}
