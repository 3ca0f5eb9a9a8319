/*
 * efi_halt.c — HLT until the next interrupt, on any processor (see efi_halt.h).
 *
 * The firmware's IDT has no handler for the watchdog's wake-up vector (an
 * unknown vector ends in its exception dump), so for the HLT the processor
 * loads an IDT of its own: the firmware's gates 0-31 (exceptions keep their
 * handlers) and an IRET-only gate for 32-255. The caller sends the EOI.
 * Every processor that halts here uses the same table, which never changes
 * after it is built (CS is the same on all processors under UEFI).
 */
#include "efi_halt.h"
#include "x86_insn.h"

#include <stdint.h>

#define IDT_ENTRIES 256
#define FIRST_INTERRUPT 32
#define GATE_INTERRUPT 0x8E /* present, DPL 0, 64-bit interrupt gate (SDM vol. 3A figure 6-8) */

/* IRETQ alone: the handler of every vector from 32 on. */
__asm__(".text\n.globl efi_iret_only\n.hidden efi_iret_only\nefi_iret_only:\n\tiretq\n");
void efi_iret_only(void);

static uint64_t halt_idt[IDT_ENTRIES * 2] __attribute__((aligned(16)));
static volatile int halt_idt_ready;

static void build_idt(const struct x86_desc_ptr *firmware)
{
    const uint64_t *fw = (const uint64_t *)firmware->base;
    unsigned fw_entries = (firmware->limit + 1u) / 16u;
    for (unsigned v = 0; v < FIRST_INTERRUPT && v < fw_entries; v++) {
        halt_idt[2 * v] = fw[2 * v];
        halt_idt[2 * v + 1] = fw[2 * v + 1];
    }
    uint64_t handler = (uint64_t)(uintptr_t)efi_iret_only;
    uint64_t low = (handler & 0xFFFF) | (uint64_t)x86_read_cs() << 16 | (uint64_t)GATE_INTERRUPT << 40 |
                   ((handler >> 16) & 0xFFFF) << 48;
    for (unsigned v = FIRST_INTERRUPT; v < IDT_ENTRIES; v++) {
        halt_idt[2 * v] = low;
        halt_idt[2 * v + 1] = handler >> 32;
    }
}

void efi_halt_until_interrupt(void *ctx)
{
    (void)ctx;
    struct x86_desc_ptr firmware, ours = { IDT_ENTRIES * 16 - 1, (uint64_t)(uintptr_t)halt_idt };
    /*
     * Interrupts stay disabled on return whatever they were: the caller's
     * EOI follows, and an interrupt pending behind it must not reach the
     * firmware's IDT (which has no handler for the wake-up vector).
     */
    x86_irq_save();
    x86_sidt(&firmware);
    /* Built once, by whichever processor halts first (only one watches at a time). */
    if (!halt_idt_ready) {
        build_idt(&firmware);
        halt_idt_ready = 1;
    }
    x86_lidt(&ours);
    /* STI's shadow: an interrupt already pending is taken after HLT, which then returns. */
    __asm__ volatile("sti\n\thlt\n\tcli" : : : "memory");
    x86_lidt(&firmware);
}
