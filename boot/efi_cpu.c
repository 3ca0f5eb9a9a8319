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
 *
 * The copy and the flag are per processor, in a slot found by the APIC ID
 * (lib/nb_cpu_slots.h): the boot processor, a benchmark's AP (-cpu N) and
 * the NMI watchdog's AP (whose x2APIC registers are MSRs) may access MSRs at
 * the same time. The handler finds its flag next to the IDT it was entered
 * through (SIDT), so it needs no processor number.
 */
#include "efi_cpu.h"

#include <stddef.h>

#include "nb_cpu_slots.h"
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

/*
 * One processor's guard. efi_msr_fault.asm reads `prev` and `hit` at fixed
 * offsets from the IDT base (GUARD_PREV, GUARD_HIT there).
 */
struct guard_idt {
    struct idt_gate idt[IDT_GATES];
    uint64_t prev;       /* the firmware's gate-13 handler, or 0 */
    volatile uint8_t hit;
} __attribute__((aligned(16)));

_Static_assert(offsetof(struct guard_idt, prev) == 4096, "efi_msr_fault.asm GUARD_PREV");
_Static_assert(offsetof(struct guard_idt, hit) == 4104, "efi_msr_fault.asm GUARD_HIT");

/* A slot per processor, and one shared under a lock for processors beyond NB_CPU_SLOTS. */
static struct guard_idt guards[NB_CPU_SLOTS + 1];
static struct nb_cpu_slots guard_slots;
static volatile uint32_t shared_guard_lock;

struct msr_guard {
    struct x86_desc_ptr firmware_idtr;
    uint64_t flags;
    struct guard_idt *g;
    bool shared;
};

/* The current processor's APIC ID: CPUID 0BH's x2APIC ID, else CPUID.01H:EBX[31:24]. */
static uint32_t current_apic_id(void)
{
    static uint32_t max_leaf;
    uint32_t r[4];
    if (!max_leaf) {
        x86_cpuid(0, 0, r);
        max_leaf = r[0] ? r[0] : 1;
    }
    if (max_leaf >= 0xB) {
        x86_cpuid(0xB, 0, r);
        if (r[1]) /* EBX 0: leaf 0BH not implemented (SDM vol. 2A CPUID) */
            return r[3];
    }
    x86_cpuid(1, 0, r);
    return r[1] >> 24;
}

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

    guard->flags = x86_irq_save();
    int slot = nb_cpu_slot(&guard_slots, current_apic_id());
    guard->shared = slot < 0;
    if (guard->shared) {
        while (__atomic_exchange_n(&shared_guard_lock, 1u, __ATOMIC_ACQUIRE))
            __builtin_ia32_pause();
        slot = NB_CPU_SLOTS;
    }
    struct guard_idt *g = guard->g = &guards[slot];
    struct idt_gate *gp = &g->idt[VECTOR_GP];
    x86_sidt(&guard->firmware_idtr);

    bytes = (size_t)guard->firmware_idtr.limit + 1;
    if (bytes > sizeof(g->idt))
        bytes = sizeof(g->idt);
    __builtin_memset(g->idt, 0, sizeof(g->idt));
    __builtin_memcpy(g->idt, (const void *)guard->firmware_idtr.base, bytes);

    /* Unexpected #GPs are passed on to the firmware's own handler. */
    g->prev = (gp->type_attr & GATE_PRESENT) ? gate_offset(gp) : 0;
    if (!(gp->type_attr & GATE_PRESENT)) {
        gp->selector = x86_read_cs();
        gp->ist = 0;
        gp->type_attr = GATE_INTERRUPT_DPL0;
    }
    set_gate_offset(gp, (uint64_t)(uintptr_t)efi_msr_fault_handler);
    g->hit = 0;

    idtr.base = (uint64_t)(uintptr_t)g->idt;
    idtr.limit = sizeof(g->idt) - 1;
    x86_lidt(&idtr);
}

/* Restores the firmware IDT and IF; returns true if the access faulted. */
static bool guard_leave(struct msr_guard *guard)
{
    bool faulted = guard->g->hit != 0;

    x86_lidt(&guard->firmware_idtr);
    if (guard->shared)
        __atomic_store_n(&shared_guard_lock, 0u, __ATOMIC_RELEASE);
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
