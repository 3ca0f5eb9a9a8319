; efi_msr_fault.asm — temporary #GP (vector 13) handler that efi_cpu.c
; installs around a single RDMSR or WRMSR.
;
; #GP is a fault with an error code, so on entry (SDM Vol. 3A §6.14.2):
;   [rsp] error code, [rsp+8] RIP of the faulting instruction, [rsp+16] CS,
;   [rsp+24] RFLAGS, [rsp+32] RSP, [rsp+40] SS.
; If RIP points at RDMSR (0F 32) or WRMSR (0F 30) the handler sets
; efi_msr_fault_hit, steps over the 2-byte instruction and returns. Any other
; #GP is a real bug: it is passed on to the firmware handler that gate 13
; held before (efi_msr_fault_prev), with the frame untouched.

bits 64
default rel

section .data

global efi_msr_fault_hit:data hidden
global efi_msr_fault_prev:data hidden

align 8
efi_msr_fault_prev:     dq 0
efi_msr_fault_hit:      db 0

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
        mov     byte [efi_msr_fault_hit], 1
        pop     rax
        add     rsp, 8                  ; drop the error code before iretq
        iretq
.chain:
        pop     rax
        cmp     qword [efi_msr_fault_prev], 0
        je      .hang
        jmp     [efi_msr_fault_prev]
.hang:
        cli
        hlt
        jmp     .hang

section .note.GNU-stack noalloc noexec nowrite progbits
