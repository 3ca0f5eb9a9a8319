/*
 * efi_mp.c — other processors via EFI_MP_SERVICES_PROTOCOL (see efi_mp.h).
 */
#include "efi_mp.h"

#include <efilib.h>

#include "efi_console.h"
#include "efi_memory.h"
#include "x86_insn.h"

/* PI 1.7 vol. 2, 13.4: EFI_MP_SERVICES_PROTOCOL_GUID. */
static EFI_GUID mp_services_guid = { 0x3fdda605, 0xa76e, 0x4f46,
                                     { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } };

typedef struct mp_services mp_services;
typedef VOID(EFIAPI *mp_procedure)(VOID *argument);

/* Member order is the specification's; only the members used here are typed. */
struct mp_services {
    EFI_STATUS(EFIAPI *GetNumberOfProcessors)(mp_services *This, UINTN *total, UINTN *enabled);
    VOID *GetProcessorInfo;
    VOID *StartupAllAPs;
    EFI_STATUS(EFIAPI *StartupThisAP)(mp_services *This, mp_procedure procedure, UINTN processor,
                                      EFI_EVENT wait_event, UINTN timeout_us, VOID *argument,
                                      BOOLEAN *finished);
    VOID *SwitchBSP;
    VOID *EnableDisableAP;
    EFI_STATUS(EFIAPI *WhoAmI)(mp_services *This, UINTN *processor);
};

static mp_services *mp;

void efi_mp_init(void)
{
    VOID *interface = NULL;
    if (!EFI_ERROR(BS->LocateProtocol(&mp_services_guid, NULL, &interface)))
        mp = interface;
}

unsigned efi_cpu_count(void *ctx)
{
    (void)ctx;
    UINTN total = 1, enabled = 1;
    if (!mp || EFI_ERROR(mp->GetNumberOfProcessors(mp, &total, &enabled)))
        return 1;
    return (unsigned)enabled;
}

unsigned efi_current_cpu(void *ctx)
{
    (void)ctx;
    UINTN self = 0;
    if (!mp || EFI_ERROR(mp->WhoAmI(mp, &self)))
        return 0;
    return (unsigned)self;
}

struct ap_call {
    void (*fn)(void *arg);
    void *arg;
    uint8_t *stack_top; /* the processor's own stack (ap_stack_top), or NULL: the firmware's */
};

/*
 * Each AP's procedures run on a stack of ours: the firmware gives an AP
 * PcdCpuApStackSize bytes, 32 KiB in EDK II's UefiCpuPkg but 4 KiB on
 * some platforms, and a benchmark's whole measurement on the AP
 * (kernel/cpu_measure.h) needs about 10 KiB. Allocated by the boot
 * processor at the first call to that AP, kept to the end.
 */
#define AP_STACK_BYTES (128u * 1024u)
#define AP_STACKS 1024u
static uint8_t *ap_stacks[AP_STACKS];

static uint8_t *ap_stack_top(unsigned cpu)
{
    if (cpu >= AP_STACKS)
        return NULL;
    if (!ap_stacks[cpu])
        ap_stacks[cpu] = efi_alloc_data(NULL, AP_STACK_BYTES);
    return ap_stacks[cpu] ? ap_stacks[cpu] + AP_STACK_BYTES : NULL; /* page-aligned: 16-byte aligned */
}

/*
 * fn(arg) (System V) with RSP at `top`, then back on the caller's stack.
 * RBX keeps the caller's RSP (callee-saved in both conventions); fn may
 * clobber every System V scratch register.
 */
static __attribute__((noinline)) void call_on_stack(void (*fn)(void *arg), void *arg, uint8_t *top)
{
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "mov %[top], %%rsp\n\t"
                     "call *%[fn]\n\t"
                     "mov %%rbx, %%rsp"
                     : [fn] "+a"(fn), "+D"(arg)
                     : [top] "r"(top)
                     : "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2",
                       "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                       "xmm13", "xmm14", "xmm15", "memory", "cc");
}

/*
 * Once StartupThisAP refuses non-blocking mode (PI 1.7 vol. 2, 13.4.5: it
 * may return EFI_UNSUPPORTED for a non-blocking request after ReadyToBoot),
 * every later call uses blocking mode.
 */
static BOOLEAN blocking_only;

/* The firmware calls APs with the UEFI (ms_abi) convention; the engine uses System V. */
static VOID EFIAPI ap_entry(VOID *argument)
{
    struct ap_call *call = argument;
    /*
     * The AP may run code the boot processor has just written (generated
     * benchmark code, the probe): cross-modifying code needs a serialising
     * instruction on the executing processor after the writes and before
     * the code runs (SDM vol. 3A 8.1.3, 9.1.3 in later editions, "Handling Self- and Cross-Modifying
     * Code"). CPUID serialises.
     */
    uint32_t regs[4];
    x86_cpuid(0, 0, regs);
    if (call->stack_top)
        call_on_stack(call->fn, call->arg, call->stack_top);
    else
        call->fn(call->arg);
}

int efi_run_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    if (cpu == efi_current_cpu(ctx)) {
        fn(arg);
        return NB_OK;
    }
    if (!mp || cpu >= efi_cpu_count(ctx))
        return NB_EINVAL;
    struct ap_call call = { fn, arg, ap_stack_top(cpu) };
    EFI_STATUS status = EFI_UNSUPPORTED;
    if (!blocking_only) {
        /*
         * Non-blocking mode with a wait event, then WaitForEvent: the boot
         * processor halts in the firmware's idle loop instead of spinning on
         * the AP's state (PI 1.7 vol. 2, 13.4.5). Spinning starves the AP
         * under an emulator that runs all processors on one thread (QEMU TCG
         * with -icount).
         */
        EFI_EVENT done;
        status = BS->CreateEvent(0, 0, NULL, NULL, &done);
        if (EFI_ERROR(status)) {
            efi_log_status("CreateEvent for MP services", status);
            return NB_EINVAL;
        }
        status = mp->StartupThisAP(mp, ap_entry, cpu, done, 0, &call, NULL);
        if (!EFI_ERROR(status)) {
            UINTN index;
            status = BS->WaitForEvent(1, &done, &index);
        }
        BS->CloseEvent(done);
        if (status == EFI_UNSUPPORTED)
            blocking_only = TRUE;
    }
    if (blocking_only)
        status = mp->StartupThisAP(mp, ap_entry, cpu, NULL, 0, &call, NULL);
    if (EFI_ERROR(status)) {
        efi_log_status("MP services StartupThisAP", status);
        return NB_EINVAL;
    }
    return NB_OK;
}

/*
 * One procedure started without waiting (the NMI watchdog's watcher): its
 * call record and completion event live until join_cpu.
 */
static struct ap_call async_call;
static EFI_EVENT async_done;
static unsigned async_cpu;

/*
 * The started procedure runs with interrupts disabled (the watcher's HLT
 * enables them only inside efi_halt_until_interrupt, with its own IDT), and
 * gives the firmware back the flag it had.
 */
static VOID EFIAPI ap_entry_masked(VOID *argument)
{
    uint64_t flags = x86_irq_save();
    ap_entry(argument);
    x86_irq_restore(flags);
}

int efi_start_on_cpu(void *ctx, unsigned cpu, void (*fn)(void *arg), void *arg)
{
    if (!mp || blocking_only || async_done || cpu == efi_current_cpu(ctx) || cpu >= efi_cpu_count(ctx))
        return NB_EUNSUPP;
    EFI_STATUS status = BS->CreateEvent(0, 0, NULL, NULL, &async_done);
    if (EFI_ERROR(status)) {
        async_done = NULL;
        return NB_EUNSUPP;
    }
    async_call = (struct ap_call){ fn, arg, ap_stack_top(cpu) };
    async_cpu = cpu;
    status = mp->StartupThisAP(mp, ap_entry_masked, cpu, async_done, 0, &async_call, NULL);
    if (EFI_ERROR(status)) {
        BS->CloseEvent(async_done);
        async_done = NULL;
        if (status == EFI_UNSUPPORTED)
            blocking_only = TRUE;
        return NB_EUNSUPP;
    }
    return NB_OK;
}

int efi_join_cpu(void *ctx, unsigned cpu)
{
    (void)ctx;
    if (!async_done || cpu != async_cpu)
        return NB_EINVAL;
    UINTN index;
    BS->WaitForEvent(1, &async_done, &index);
    BS->CloseEvent(async_done);
    async_done = NULL;
    return NB_OK;
}
