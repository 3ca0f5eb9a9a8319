; images/kvm_probe.asm — a 64 KiB firmware (QEMU -bios) that proves an
; accelerator runs real guest code before a run trusts it with OVMF.
;
; A /dev/kvm that opens, and on which QEMU can create a paused guest, may
; still fail on the first instructions firmware executes: paravirtualised or
; nested KVM without VMX/SVM emulates real and protected mode in software and
; stops at what its emulator lacks (x87 FINIT is where OVMF's SEC code failed,
; "KVM internal error. Suberror: 1"). So this does what firmware does first, in
; the order OVMF does it, and leaves through isa-debug-exit with PASS_CODE:
;   real mode: CLI, FINIT, POST-code port I/O, CPUID, LGDT
;   protected mode: segment loads, SSE enabled (CR0.MP, CR4.OSFXSR) and used,
;     RDMSR of IA32_APIC_BASE and IA32_MTRRCAP, WRMSR of IA32_MTRR_DEF_TYPE
;   long mode: 4 GiB identity map with 2 MiB pages, EFER.LME, CR0.PG, a far
;     jump to a 64-bit segment, CPUID, SSE2 and a loop whose sum is checked.
; Any other ending (FAIL_CODE, a triple fault that resets the guest, a KVM
; error that pauses it, no exit in time) means "KVM is not usable here"
; (images/kvm-probe.sh decides; QEMU's exit status is (code << 1) | 1).
;
; QEMU maps a -bios image of 64 KiB just below 4 GiB; the processor starts at
; F000:FFF0 with CS.base = 0xFFFF0000 (SDM vol. 3A 9.1.4, "First Instruction
; Executed"), so file offsets are CS offsets and linear = ROM_BASE + offset.
;
; build: nasm -f bin -o kvm_probe.bin images/kvm_probe.asm

bits 16
org 0

ROM_BASE        equ 0xffff0000
EXIT_PORT       equ 0xf4            ; -device isa-debug-exit,iobase=0xf4,iosize=0x04
PASS_CODE       equ 0x2a            ; QEMU exits with status 85
FAIL_CODE       equ 0x15            ; QEMU exits with status 43
POST_PORT       equ 0x80

; Page tables in low RAM (QEMU's RAM starts at 0).
PML4            equ 0x10000
PDPT            equ 0x11000
PD0             equ 0x12000         ; four page directories: 0x12000..0x15fff
PT_BYTES        equ 0x6000

CR0_PE          equ 1 << 0
CR0_MP          equ 1 << 1
CR0_EM          equ 1 << 2
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5
CR4_OSFXSR      equ 1 << 9
CR4_OSXMMEXCPT  equ 1 << 10
MSR_IA32_APIC_BASE      equ 0x1b
MSR_IA32_MTRRCAP        equ 0xfe
MSR_IA32_MTRR_DEF_TYPE  equ 0x2ff
MSR_EFER        equ 0xc0000080
EFER_LME        equ 1 << 8
PTE_P           equ 1 << 0
PTE_RW          equ 1 << 1
PTE_PS          equ 1 << 7

SEL_CODE32      equ 0x08
SEL_DATA        equ 0x10
SEL_CODE64      equ 0x18

real_mode:
    cli
    cld
    finit                           ; 9B DB E3: the instruction OVMF's SEC code stopped at
    mov al, 0x01
    out POST_PORT, al
    xor eax, eax
    cpuid
    o32 lgdt [cs:gdt_descriptor]
    mov eax, cr0
    or eax, CR0_PE
    mov cr0, eax
    jmp dword SEL_CODE32:(ROM_BASE + protected_mode)

bits 32
protected_mode:
    mov ax, SEL_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov fs, ax
    mov gs, ax
    mov al, 0x02
    out POST_PORT, al
    ; SSE as firmware enables it (SDM vol. 3A 13.1.3).
    mov eax, cr0
    and eax, ~CR0_EM
    or eax, CR0_MP
    mov cr0, eax
    mov eax, cr4
    or eax, CR4_OSFXSR | CR4_OSXMMEXCPT
    mov cr4, eax
    pxor xmm0, xmm0
    ; The MSRs OVMF's early code reads and writes.
    mov ecx, MSR_IA32_APIC_BASE
    rdmsr
    mov ecx, MSR_IA32_MTRRCAP
    rdmsr
    mov ecx, MSR_IA32_MTRR_DEF_TYPE
    xor eax, eax
    xor edx, edx
    wrmsr
    ; Identity map of the first 4 GiB (2 MiB pages) so that this ROM stays
    ; reachable after paging is on.
    mov edi, PML4
    mov ecx, PT_BYTES / 4
    xor eax, eax
    rep stosd
    mov dword [PML4], PDPT | PTE_P | PTE_RW
    mov dword [PDPT + 0], (PD0 + 0x0000) | PTE_P | PTE_RW
    mov dword [PDPT + 8], (PD0 + 0x1000) | PTE_P | PTE_RW
    mov dword [PDPT + 16], (PD0 + 0x2000) | PTE_P | PTE_RW
    mov dword [PDPT + 24], (PD0 + 0x3000) | PTE_P | PTE_RW
    mov edi, PD0
    mov eax, PTE_P | PTE_RW | PTE_PS
    mov ecx, 4 * 512
.fill:
    mov [edi], eax                  ; the high dword stays 0 (rep stosd above)
    add eax, 0x200000
    add edi, 8
    loop .fill
    ; Long mode (SDM vol. 3A 10.8.5): PAE, CR3, EFER.LME, then CR0.PG.
    mov eax, cr4
    or eax, CR4_PAE
    mov cr4, eax
    mov eax, PML4
    mov cr3, eax
    mov ecx, MSR_EFER
    rdmsr
    or eax, EFER_LME
    wrmsr
    mov eax, cr0
    or eax, CR0_PG
    mov cr0, eax
    jmp SEL_CODE64:(ROM_BASE + long_mode)

bits 64
long_mode:
    mov al, 0x03
    out POST_PORT, al
    mov eax, 1
    cpuid
    movq xmm1, rax
    paddq xmm0, xmm1                ; SSE2 in long mode
    ; Real work whose result is known: 1 + 2 + ... + 1000.
    xor eax, eax
    mov ecx, 1000
.sum:
    add eax, ecx
    loop .sum
    cmp eax, 500500
    jne .fail
    mov al, PASS_CODE
    out EXIT_PORT, al
.fail:
    mov al, FAIL_CODE
    out EXIT_PORT, al
.halt:
    hlt
    jmp .halt

align 8
gdt:
    dq 0                            ; null
    dq 0x00cf9a000000ffff           ; 0x08: 32-bit code, base 0, 4 GiB
    dq 0x00cf92000000ffff           ; 0x10: data, base 0, 4 GiB
    dq 0x00af9a000000ffff           ; 0x18: 64-bit code (L=1)
gdt_end:

gdt_descriptor:
    dw gdt_end - gdt - 1
    dd ROM_BASE + gdt

; The reset vector: the last 16 bytes of the image.
    times 0x10000 - 16 - ($ - $$) db 0
bits 16
reset_vector:
    jmp real_mode
    times 0x10000 - ($ - $$) db 0xf4
