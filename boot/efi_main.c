/*
 * efi_main.c — UEFI entry point: bring up the platform services, fill the
 * engine's seam (lib/nb_platform.h), run the suite, finish.
 *
 * Built with GNU_EFI_USE_MS_ABI, so firmware calls are plain typed calls
 * through EFIAPI (ms_abi) pointers. efi_main itself is called by gnu-efi's
 * crt0 with the System V convention after self-relocation.
 *
 * The boot units keep their state in file-scope statics (there is one
 * firmware and one volume), so the seam's ctx is unused.
 */
#include <efi.h>
#include <efilib.h>

#include "efi_acpi.h"
#include "efi_console.h"
#include "efi_cpu.h"
#include "efi_facts.h"
#include "efi_file.h"
#include "efi_finish.h"
#include "efi_halt.h"
#include "efi_lapic.h"
#include "efi_memory.h"
#include "efi_mp.h"
#include "efi_serial.h"
#include "nb_main.h"

/* Busy wait on the firmware timer (UEFI 2.10 §7.5, Stall). */
static void efi_stall_us(void *ctx, uint32_t microseconds)
{
    (void)ctx;
    BS->Stall(microseconds);
}

static const struct nb_platform efi_platform = {
    .ctx = NULL,
    .ring0 = true,
    .write_text = efi_write_text,
    .read_file = efi_read_file,
    .free_file = efi_free_file,
    .file_exists = efi_file_exists,
    .make_dir = efi_make_dir,
    .create_file = efi_create_file,
    .append_file = efi_append_file,
    .write_file = efi_write_file,
    .flush_file = efi_flush_file,
    .close_file = efi_close_file,
    .alloc_exec = efi_alloc_exec,
    .alloc_data = efi_alloc_data,
    .free_mem = efi_free_mem,
    .cpuid = efi_cpuid,
    .read_msr = efi_read_msr,
    .write_msr = efi_write_msr,
    .read_cr4 = efi_read_cr4,
    .write_cr4 = efi_write_cr4,
    .read_xcr0 = efi_read_xcr0,
    .write_xcr0 = efi_write_xcr0,
    .read_cr0 = efi_read_cr0,
    .write_cr0 = efi_write_cr0,
    .read_cr3 = efi_read_cr3,
    .write_cr3 = efi_write_cr3,
    .read_tsc = efi_read_tsc,
    .lapic_read = efi_lapic_read,
    .lapic_write = efi_lapic_write,
    .lapic_mmio_base = efi_lapic_mmio_base,
    .stall_us = efi_stall_us,
    .cpu_count = efi_cpu_count,
    .current_cpu = efi_current_cpu,
    .run_on_cpu = efi_run_on_cpu,
    .start_on_cpu = efi_start_on_cpu,
    .join_cpu = efi_join_cpu,
    .apic_id = efi_apic_id,
    .send_ipi = efi_send_ipi,
    .halt_until_interrupt = efi_halt_until_interrupt,
    .port_in8 = efi_port_in8,
    .port_out8 = efi_port_out8,
    .firmware_facts = efi_firmware_facts,
    .acpi_table = efi_acpi_table,
    .alloc_data_range = efi_alloc_data_range,
    .finish = efi_finish,
    .serial_read = efi_serial_read,
    .serial_write = efi_serial_write_raw,
};

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *system_table)
{
    EFI_STATUS status;
    enum nb_finish_action action;

    InitializeLib(image, system_table);

    /* The boot manager arms a 5-minute watchdog (UEFI 2.10 §3.1.2); suites run longer. */
    BS->SetWatchdogTimer(0, 0, 0, NULL);

    efi_console_init(efi_serial_init());
    efi_memory_init();
    efi_mp_init();
    status = efi_file_init(image);
    if (EFI_ERROR(status))
        efi_log_status("cannot open the boot volume", status);

    action = nb_run_image(&efi_platform);
    /*
     * Unframed, so it is no result line: tells a host watching the serial
     * port that the results files are closed (tools/results.awk ends QEMU
     * on it for -finish exit, where the firmware would wait at its menu).
     */
    static const char closed[] = "nanoBench-EFI: results closed\n";
    efi_write_text(NULL, closed, sizeof(closed) - 1);
    efi_serial_release();
    efi_finish(NULL, action);
    return EFI_SUCCESS;
}
