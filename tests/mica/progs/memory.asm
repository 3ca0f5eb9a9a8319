; memory.asm — array stores and loads, a pointer chase through a linked
; list, recursive calls (fib) with push/pop/leave. Exit status 0.
bits 64
global _start
section .bss
alignb 64
array:  resq 512
nodes:  resb 64 * 32
section .text
_start:
    and rsp, -4096
    ; array[i] = i * 3, then sum it
    xor ecx, ecx
fill:
    lea rax, [rcx + rcx * 2]
    mov [array + rcx * 8], rax
    inc ecx
    cmp ecx, 512
    jb fill
    xor eax, eax
    xor ecx, ecx
sum:
    add rax, [array + rcx * 8]
    add ecx, 1
    cmp ecx, 512
    jne sum
    ; node j points to node (j * 7 + 1) mod 32, chase 300 steps
    xor ecx, ecx
link:
    imul edx, ecx, 7
    inc edx
    and edx, 31
    shl rdx, 6
    lea rdx, [nodes + rdx]
    mov esi, ecx
    shl rsi, 6
    mov [nodes + rsi], rdx
    inc ecx
    cmp ecx, 32
    jb link
    lea rax, [nodes]
    mov ecx, 300
chase:
    mov rax, [rax]
    add qword [rax + 8], 1
    dec ecx
    jnz chase
    mov edi, 12
    call fib
    mov eax, 60
    xor edi, edi
    syscall
; fib(rdi) recursively, result in rax
fib:
    push rbp
    mov rbp, rsp
    push rbx
    sub rsp, 8
    cmp rdi, 2
    jb .small
    mov [rbp - 16], rdi
    dec rdi
    call fib
    mov rbx, rax
    mov rdi, [rbp - 16]
    sub rdi, 2
    call fib
    add rax, rbx
    jmp .done
.small:
    mov rax, rdi
.done:
    add rsp, 8
    pop rbx
    leave
    ret
