; loops.asm — nested counted loops, register arithmetic only (issue 23's
; ptrace/DBT comparison, tests/mica_dbt_test.sh). Exit status 0.
bits 64
global _start
section .text
_start:
    and rsp, -4096              ; the same stack offsets under ptrace and QEMU
    xor eax, eax
    mov ebx, 1
    mov r8d, 40
outer:
    mov ecx, 50
inner:
    add rax, rbx
    imul rbx, rbx, 3
    xor rbx, rax
    shr rbx, 1
    rol rax, 5
    dec ecx
    jnz inner
    sub r8d, 1
    jnz outer
    mov eax, 60
    xor edi, edi
    syscall
