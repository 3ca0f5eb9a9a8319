; float.asm — SSE2 scalar and 16-byte vector loads and stores, x87, a
; locked XADD, XCHG with memory, PUSH/POP of memory, CALL through memory.
; Exit status 0.
bits 64
global _start
section .data
align 64
vals:   dq 1.5, 2.25, 3.0, 0.5, 4.0, 1.25, 6.5, 0.75
one:    dq 1.0
target: dq helper
section .bss
alignb 64
out:    resq 16
counter: resq 1
slot:   resq 1
section .text
_start:
    and rsp, -4096
    mov r12d, 100
round:
    pxor xmm0, xmm0
    xor ecx, ecx
sse:
    movsd xmm1, [vals + rcx * 8]
    mulsd xmm1, [one]
    addsd xmm0, xmm1
    inc ecx
    cmp ecx, 8
    jb sse
    sqrtsd xmm0, xmm0
    movsd [out], xmm0
    movdqu xmm2, [vals]
    movdqu xmm3, [vals + 16]
    paddq xmm2, xmm3
    movdqu [out + 16], xmm2
    fld qword [vals]
    fadd qword [vals + 8]
    fmul st0, st0
    fstp qword [out + 48]
    mov eax, 1
    lock xadd [counter], rax
    mov rbx, 5
    xchg [slot], rbx
    push qword [vals]
    pop qword [out + 56]
    call [target]
    dec r12d
    jnz round
    mov eax, 60
    xor edi, edi
    syscall
helper:
    add qword [out + 64], 1
    ret
