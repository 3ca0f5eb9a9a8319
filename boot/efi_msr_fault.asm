; efi_msr_fault.asm — temporary #GP (vector 13) handler that efi_cpu.c
; installs around a single RDMSR or WRMSR, in the current processor's own
; copy of the firmware IDT.
;
; #GP is a fault with an error code, so on entry (SDM Vol. 3A §6.14.2):
;   [rsp] error code, [rsp+8] RIP of the faulting instruction, [rsp+16] CS,
;   [rsp+24] RFLAGS, [rsp+32] RSP, [rsp+40] SS.
; If RIP points at RDMSR (0F 32) or WRMSR (0F 30) the handler sets the
; processor's flag, steps over the 2-byte instruction and returns. Any other
; #GP is a real bug: it is passed on to the firmware handler that gate 13
; held before, with the frame untouched.
;
; Each processor has its own guard (efi_cpu.c, struct guard_idt): the IDT,
; then the firmware's handler at GUARD_PREV and the flag at GUARD_HIT. The
; handler finds them from the IDT it was entered through (SIDT), so two
; processors that access MSRs at once never share a flag.

bits 64
default rel

GUARD_PREV equ 4096
GUARD_HIT equ 4104

section .text

global efi_msr_fault_handler:function hidden

efi_msr_fault_handler:
        push    rax
        mov     rax, [rsp + 16]         ; saved RIP (error code is at rsp+8)
        cmp     byte [rax], 0x0f
        jne     .chain
        cmp     byte [rax + 1], 0x32    ; rdmsr
        je      .skip
        cmp     byte [rax + 1], 0x30    ; wrmsr
        jne     .chain
.skip:
        add     qword [rsp + 16], 2
        call    guard_base
        mov     byte [rax + GUARD_HIT], 1
        pop     rax
        add     rsp, 8                  ; drop the error code before iretq
        iretq
.chain:
        call    guard_base
        mov     rax, [rax + GUARD_PREV]
        test    rax, rax
        jz      .hang
        xchg    rax, [rsp]              ; RAX restored, the firmware's handler on top
        ret                             ; enter it with the frame as the processor pushed it
.hang:
        cli
        hlt
        jmp     .hang

; RAX = the base of the IDT this processor runs on (its guard).
guard_base:
        sub     rsp, 16
        sidt    [rsp]
        mov     rax, [rsp + 2]
        add     rsp, 16
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
