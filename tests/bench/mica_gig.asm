; mica_gig.asm — the program of the MICA capture benchmark
; (tests/bench/mica_dbt_speed.sh): exactly 10^9 + 9 instructions, a mix of
; integer and SSE arithmetic, pseudo-random loads over 1 MiB, sequential
; stores, a data-dependent branch, calls with PUSH/POP. Static, no libc.
; nasm -DITERATIONS=N gives 25 N + 9 instructions (default N = 40,000,000).
bits 64
global _start
%ifndef ITERATIONS
%define ITERATIONS 40000000
%endif
section .bss
alignb 4096
array:  resq (1 << 17) + 8
section .text
_start:
    and rsp, -4096
    lea r8, [array]
    mov r9d, 12345
    mov ecx, ITERATIONS
    xor eax, eax
    xor ebx, ebx
body:                               ; 25 instructions on either path
    imul r9d, r9d, 1103515245       ; LCG
    add r9d, 12345
    mov edx, r9d
    shr edx, 12
    and edx, (1 << 17) - 1
    mov rsi, [r8 + rdx * 8]         ; random load
    add rax, rsi
    mov [r8 + rbx * 8], rax         ; sequential store
    inc ebx
    and ebx, (1 << 17) - 1
    test r9d, 1 << 20
    jz .clear
    add rax, 3
    jmp .joined
.clear:
    sub rax, 1
    nop
.joined:
    call mix
    cvtsi2sd xmm0, rax
    addsd xmm1, xmm0
    movsd xmm2, [r8 + rdx * 8]
    mulsd xmm2, xmm1
    dec ecx
    jnz body
    mov eax, 60
    xor edi, edi
    syscall
mix:
    push rdx
    add rdx, rax
    pop rdx
    ret
