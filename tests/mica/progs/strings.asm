; strings.asm — REP MOVSB, REP STOSQ, REPE CMPSB stopping at a difference,
; REPNE SCASB, LODSB and single MOVSQ/CMPSQ, every count > 0. Exit status 0.
bits 64
global _start
section .data
text:   db "the quick brown fox jumps over the lazy dog", 0
textlen equ $ - text
section .bss
alignb 64
copy:   resb 256
zeros:  resq 64
section .text
_start:
    and rsp, -4096
    cld
    mov r12d, 20
again:
    lea rsi, [text]
    lea rdi, [copy]
    mov ecx, textlen
    rep movsb
    mov byte [copy + 20], 'X'
    lea rdi, [zeros]
    xor eax, eax
    mov ecx, 64
    rep stosq
    lea rsi, [text]
    lea rdi, [copy]
    mov ecx, textlen
    repe cmpsb
    lea rdi, [text]
    mov al, 'z'
    mov ecx, textlen
    repne scasb
    lea rsi, [text]
    mov ecx, 10
    xor edx, edx
sumchars:
    lodsb
    add edx, eax
    dec ecx
    jnz sumchars
    lea rsi, [text]
    lea rdi, [copy + 64]
    movsq
    lea rsi, [text]
    lea rdi, [copy + 64]
    cmpsq
    dec r12d
    jnz again
    mov eax, 60
    xor edi, edi
    syscall
