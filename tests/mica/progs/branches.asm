; branches.asm — Collatz sequences of 1..200 (data-dependent branches),
; SETcc, CMOVcc with a memory operand, BT, DIV. Exit status 0.
bits 64
global _start
section .data
limit:  dq 1000
small:  dq 16
section .text
_start:
    and rsp, -4096
    mov r12d, 1
    xor r13d, r13d              ; total steps
number:
    mov rax, r12
steps:
    cmp rax, 1
    je next
    bt rax, 0
    jc odd
    shr rax, 1
    jmp counted
odd:
    lea rax, [rax + rax * 2 + 1]
counted:
    inc r13
    cmp rax, [limit]
    setg cl
    cmovg rax, [small]          ; above the limit: restart from 16 (ends at 1)
    movzx ecx, cl
    add r14, rcx
    jmp steps
next:
    mov rax, r13
    xor edx, edx
    mov ecx, 7
    div rcx
    add r15, rdx
    inc r12d
    cmp r12d, 200
    jbe number
    mov eax, 60
    xor edi, edi
    syscall
