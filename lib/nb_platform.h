/*
 * nb_platform.h — the one seam between the freestanding engine (kernel/, pmu/)
 * and the machine it runs on. It lives in lib/ with the string helpers, the
 * only code both kernel/ and pmu/ use (pmu/ must not depend on kernel/).
 *
 * boot/ fills this with UEFI services and real instructions; host unit tests
 * fill it with fakes that record MSR writes, script CPUID answers and keep
 * files in memory. kernel/ and pmu/ never include <efi.h> and never touch
 * hardware except through these pointers (plus CPU instructions that the
 * generated benchmark code itself contains).
 *
 * Every function returns 0 on success and a negative NB_E* status on failure,
 * unless noted otherwise.
 */
#ifndef NB_PLATFORM_H
#define NB_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum nb_status {
    NB_OK = 0,
    NB_ENOENT = -1,   /* file or folder does not exist */
    NB_EIO = -2,      /* device error, read-only or full medium */
    NB_ENOMEM = -3,   /* allocation failed */
    NB_EINVAL = -4,   /* bad argument or input */
    NB_EFAULT = -5,   /* privileged access faulted (e.g. rdmsr of a missing MSR) */
    NB_EUNSUPP = -6,  /* not available on this machine */
};

/*
 * What the firmware knows about the machine, for the platform report
 * (kernel/platform/platform_report.h). Each part has a flag: a table the firmware
 * does not provide is reported as missing, never invented.
 */
struct nb_firmware_facts {
    bool vendor_known;
    char vendor[64];             /* EFI_SYSTEM_TABLE.FirmwareVendor, as ASCII */
    uint32_t revision;           /* EFI_SYSTEM_TABLE.FirmwareRevision */
    uint32_t uefi_revision;      /* EFI_SYSTEM_TABLE.Hdr.Revision (major << 16 | minor) */
    bool memory_known;           /* from the UEFI memory map */
    uint64_t usable_bytes;       /* conventional, loader and boot-services memory */
    uint64_t largest_free_bytes; /* largest run of adjacent EfiConventionalMemory */
    /* SMBIOS structure table (SMBIOS 3.x entry point preferred), NULL when absent. */
    const void *smbios;
    size_t smbios_len;
    uint8_t smbios_major, smbios_minor;
    bool cr3_known;
    uint64_t cr3;                /* the paging root the firmware runs on (identity map) */
    /* The SecureBoot and SetupMode global variables (UEFI 2.10 §3.3), when the firmware has them. */
    bool secure_boot_known;
    uint8_t secure_boot;         /* 1: images are verified against db/dbx before they run */
    bool setup_mode_known;
    uint8_t setup_mode;          /* 1: no platform key enrolled, nothing is verified */
};

/* An open file on the boot partition (opaque to the engine). */
struct nb_file;

enum nb_finish_action {
    NB_FINISH_SHUTDOWN = 0, /* power off (QEMU exits) */
    NB_FINISH_REBOOT,       /* cold reset */
    NB_FINISH_EXIT,         /* return to the firmware (boot manager) */
};

struct nb_platform {
    void *ctx;

    /*
     * Generated code runs in ring 0 (the image): it may load its own IDT to
     * catch the benchmark's exceptions. False for host tests in user mode.
     */
    bool ring0;

    /* Text output: serial port and firmware console. Never fails. */
    void (*write_text)(void *ctx, const char *text, size_t len);

    /*
     * Files on the boot partition. Paths are relative to the volume root and
     * use '/' separators, e.g. "nanobench/suite.nb".
     * read_file allocates *data with alloc_data-compatible memory that must be
     * released with free_file. A 0-byte file yields *data == NULL, *size == 0.
     */
    int (*read_file)(void *ctx, const char *path, void **data, size_t *size);
    void (*free_file)(void *ctx, void *data, size_t size);
    /* true when the path names an existing file or folder */
    bool (*file_exists)(void *ctx, const char *path);
    /* create the folder (parents must exist); existing folder is not an error */
    int (*make_dir)(void *ctx, const char *path);
    /* create (truncate) a file for writing */
    int (*create_file)(void *ctx, const char *path, struct nb_file **file);
    /* open a file for appending at its end, creating it if needed */
    int (*append_file)(void *ctx, const char *path, struct nb_file **file);
    /* append bytes at the current end */
    int (*write_file)(void *ctx, struct nb_file *file, const void *data, size_t len);
    /* make everything written so far durable on the medium */
    int (*flush_file)(void *ctx, struct nb_file *file);
    void (*close_file)(void *ctx, struct nb_file *file);

    /* Memory. Both return page-aligned, zeroed memory or NULL. */
    void *(*alloc_exec)(void *ctx, size_t size); /* readable, writable, executable */
    void *(*alloc_data)(void *ctx, size_t size); /* readable, writable */
    void (*free_mem)(void *ctx, void *p, size_t size);

    /* Processor identification: CPUID leaf/subleaf into regs[0..3] = EAX, EBX, ECX, EDX. */
    void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
    /* Model-specific registers. A #GP on access returns NB_EFAULT and leaves *value 0. */
    int (*read_msr)(void *ctx, uint32_t msr, uint64_t *value);
    int (*write_msr)(void *ctx, uint32_t msr, uint64_t value);

    /*
     * Control registers of the current processor (ring 0; NULL where the
     * engine may not touch them): CR4, and XCR0 through XGETBV/XSETBV, which
     * raise #UD unless CR4.OSXSAVE is set (SDM vol. 2C XGETBV, XSETBV). The
     * caller passes only values the SDM allows (kernel/platform/xsave_state.c).
     */
    uint64_t (*read_cr4)(void *ctx);
    void (*write_cr4)(void *ctx, uint64_t value);
    uint64_t (*read_xcr0)(void *ctx);
    void (*write_xcr0)(void *ctx, uint64_t value);
    /*
     * CR0 and CR3 (ring 0; NULL where the engine may not touch them), for
     * kernel/engine/tlb_window.h: CR0.WP (bit 16) lets ring 0 write read-only
     * pages when clear (SDM vol. 3A 4.6.1); writing CR3 flushes the
     * non-global TLB entries and the paging-structure caches (SDM vol. 3A
     * 4.10.4.1).
     */
    uint64_t (*read_cr0)(void *ctx);
    void (*write_cr0)(void *ctx, uint64_t value);
    uint64_t (*read_cr3)(void *ctx);
    void (*write_cr3)(void *ctx, uint64_t value);

    /*
     * The current processor's local APIC, by xAPIC register offset (SDM vol.
     * 3A table 11-1); the platform uses MMIO or, in x2APIC mode, MSR
     * 800H + offset/16. NB_EUNSUPP when there is no enabled local APIC.
     */
    int (*lapic_read)(void *ctx, uint32_t reg, uint32_t *value);
    int (*lapic_write)(void *ctx, uint32_t reg, uint32_t value);
    /* Where the xAPIC registers are mapped, for generated code; 0 in x2APIC mode or without one. */
    uint64_t (*lapic_mmio_base)(void *ctx);

    /* Clock: the time-stamp counter, and a busy wait of the firmware's own timer. */
    uint64_t (*read_tsc)(void *ctx);
    void (*stall_us)(void *ctx, uint32_t microseconds);

    /*
     * Processors. cpu_count and current_cpu use the firmware's processor
     * numbers (0..count-1). run_on_cpu runs fn(arg) on processor `cpu` and
     * waits for it; fn may only execute instructions (no firmware calls).
     * Returns NB_EINVAL for a processor that does not exist or is disabled.
     */
    unsigned (*cpu_count)(void *ctx);
    unsigned (*current_cpu)(void *ctx);
    int (*run_on_cpu)(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg);

    /*
     * Runs fn(local, arg) in ONE call on the processor this platform stands
     * for, where `local`'s CPUID/MSR/TSC/LAPIC calls act on that processor
     * directly (kernel/platform/cpu_platform.h: a whole counter-group programming is
     * one AP call, not one per MSR). fn may only use those calls. NULL: the
     * platform is the processor's own (fn(this platform, arg) is called).
     */
    int (*run_locally)(void *ctx, void (*fn)(const struct nb_platform *local, void *arg), void *arg);
    /*
     * What the NMI watchdog needs (kernel/guard/nmi_watchdog.h); NULL where the
     * platform cannot. start_on_cpu runs fn(arg) on processor `cpu` WITHOUT
     * waiting; fn may only execute instructions and the calls that act on
     * the current processor (read_tsc, lapic_read/write, apic_id, send_ipi,
     * halt_until_interrupt). join_cpu waits until it has returned.
     */
    int (*start_on_cpu)(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg);
    int (*join_cpu)(void *ctx, unsigned cpu);
    /* The current processor's local APIC ID (xAPIC: bits 31:24 of register 20H; x2APIC: 32 bits). */
    uint32_t (*apic_id)(void *ctx);
    /*
     * An IPI from the current processor to one APIC ID: `icr_low` is the
     * ICR's low half (vector, delivery mode; SDM vol. 3A 11.6.1), the
     * destination goes in the high half (xAPIC) or bits 63:32 (x2APIC).
     */
    int (*send_ipi)(void *ctx, uint32_t apic_id, uint32_t icr_low);
    /*
     * Called with interrupts disabled: STI; HLT; CLI on the current
     * processor, with an IDT whose gates 32-255 only IRET (the caller sends
     * the EOI), so it returns after the next interrupt (STI's one-instruction
     * shadow keeps an interrupt from slipping in before the HLT).
     */
    void (*halt_until_interrupt)(void *ctx);
    /*
     * x86 I/O ports (IN/OUT of one byte), for -debug_gdb's UART on COM2
     * (kernel/debug/debug_uart.h); NULL where the engine may not touch them. Pure
     * instructions: callable on any processor, with interrupts disabled.
     */
    uint8_t (*port_in8)(void *ctx, uint16_t port);
    void (*port_out8)(void *ctx, uint16_t port, uint8_t value);
    /* Fills what the firmware knows (NULL on platforms that know nothing). */
    void (*firmware_facts)(void *ctx, struct nb_firmware_facts *out);
    /*
     * NUMA (kernel/platform/numa_srat.h); NULL where the platform cannot. acpi_table:
     * the first ACPI table with this 4-character signature, header included,
     * and its length (NULL: none). alloc_data_range: zeroed pages wholly inside
     * the physical range [lo, hi) (identity-mapped), freed with free_mem; NULL
     * when none is free there.
     */
    const void *(*acpi_table)(void *ctx, const char *signature, size_t *len);
    void *(*alloc_data_range)(void *ctx, size_t size, uint64_t lo, uint64_t hi);
    /* What to do when the suite has ended. Does not return on success. */
    void (*finish)(void *ctx, enum nb_finish_action action);

    /*
     * Serve mode (kernel/serve/nb_serve.h): the serial line's receive side and raw
     * bytes out (no "\n" to "\r\n"); NULL where there is no serial port.
     * serial_read waits until it has at least `min` bytes (with nothing
     * else, firmware included, taking bytes from the port meanwhile), then
     * takes what else has arrived, up to `cap`. Returns 0 when the port is
     * gone.
     */
    size_t (*serial_read)(void *ctx, void *buf, size_t min, size_t cap);
    void (*serial_write)(void *ctx, const void *data, size_t len);
};

#endif
