#!/usr/bin/env python3
"""tests/gas/gen_corpus.py — the GNU as corpus of -asm text and its bytes.

Writes tests/gas/corpus.tsv: one case per line, NAME <TAB> TEXT <TAB> HEX,
where TEXT is -asm text as a nanoBench user writes it (statements joined by
';', some cases with a '#' comment, a `|n` NOP or a `N*|..|` repeat) and HEX
the bytes GNU as produces for it. The cases come from the tables below (every
mnemonic class: ALU, x87, SSE, AVX, AVX-512 with masks and broadcasts, AMX,
string ops, near and far branches, RIP-relative, segment overrides, prefixes,
local labels, .rept, .byte and other data).

The bytes are produced ONCE, here, by GNU as itself on a plain source that
spells the user's conventions out: the repeat written out, `|n` as the SDM's
n-byte NOP in .byte, the comment dropped. Each case is its own section, so it
starts at offset 0 as nanoBench's own object does. The committed file is the
reviewed data tests/qemu/gas_tests.sh checks the whole pipeline against
(statement splitting, comments, |n, repeats, suite compilation, the code
blob on the image): regenerate only when a table changes, and review the diff.

usage: tests/gas/gen_corpus.py [OUT.tsv]
"""
import os
import struct
import subprocess
import sys
import tempfile

# `|n`: the SDM's recommended multi-byte NOPs (Vol. 2B, NOP); 10..15 bytes
# are 66h prefixes, a CS override and the 8-byte NOP (kernel/codegen/x86_emit.c).
NOPS = {
    1: "90", 2: "6690", 3: "0f1f00", 4: "0f1f4000", 5: "0f1f440000",
    6: "660f1f440000", 7: "0f1f8000000000", 8: "0f1f840000000000",
    9: "660f1f840000000000",
}
for n in range(10, 16):
    NOPS[n] = "66" * (n - 9) + "2e" + NOPS[8]

R64 = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
       "r13", "r14", "r15"]
R32 = ["eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "r8d", "r9d", "r12d", "r15d"]
R16 = ["ax", "bx", "cx", "dx", "si", "di", "bp", "r8w", "r13w"]
R8 = ["al", "bl", "cl", "dl", "ah", "bh", "sil", "dil", "r8b", "r14b"]
MEMS = ["[rax]", "[rbx + 8]", "[r14 + rcx*4]", "[rsp + 0x80]", "[rbp - 0x10]", "[r13]",
        "[r12 + r9*8 + 0x1234]", "[rip + 0x40]", "[0x1000]", "[rdi + rsi*2 - 4]"]
SIZES = {64: "QWORD PTR ", 32: "DWORD PTR ", 16: "WORD PTR ", 8: "BYTE PTR "}
ALU = ["add", "sub", "and", "or", "xor", "adc", "sbb", "cmp", "mov", "test"]
IMMS = ["1", "0x7f", "-1", "0x1234", "-0x80000000"]


def alu():
    out = []
    for op in ALU:
        for bits, regs in ((64, R64), (32, R32), (16, R16), (8, R8)):
            for i, r in enumerate(regs):
                s = regs[(i + 3) % len(regs)]
                if bits == 8 and ({r, s} & {"ah", "bh"}) and ({r, s} & {"sil", "dil", "r8b", "r14b"}):
                    continue
                out.append(f"{op} {r}, {s}")
            for m in MEMS[:6]:
                out.append(f"{op} {SIZES[bits]}{m}, {regs[1]}")
                if op != "test":
                    out.append(f"{op} {regs[2]}, {SIZES[bits]}{m}")
            for imm in IMMS[: (5 if bits >= 32 else 2)]:
                if bits == 64 and op == "mov" and imm == "-0x80000000":
                    continue
                out.append(f"{op} {regs[0]}, {imm}")
                out.append(f"{op} {SIZES[bits]}{MEMS[1]}, {imm}")
    return out


def unary_shift_misc():
    out = []
    for op in ["inc", "dec", "neg", "not", "mul", "imul", "div", "idiv"]:
        for r in R64[:8] + R32[:4] + R16[:3] + R8[:3]:
            out.append(f"{op} {r}")
        for m in MEMS[:4]:
            out.append(f"{op} QWORD PTR {m}")
    for op in ["shl", "shr", "sar", "rol", "ror", "rcl", "rcr"]:
        for r in ["rax", "ecx", "dx", "bl", "r9"]:
            out += [f"{op} {r}, 1", f"{op} {r}, 5", f"{op} {r}, cl"]
    for r in R64:
        out += [f"push {r}", f"pop {r}", f"bswap {r}", f"lea {r}, [{R64[(R64.index(r) + 1) % 16]} + 8]"]
    out += ["movabs rax, 0x1122334455667788", "movabs rcx, 0x8000000000000000",
            "mov rax, 1", "mov eax, 1", "mov rax, -1", "mov r15, 0xffffffff",
            "movzx eax, bl", "movzx rax, WORD PTR [rbx]", "movsx rcx, BYTE PTR [rsi]",
            "movsxd rdx, DWORD PTR [rdi]", "movsxd rax, ecx", "imul rax, rbx, 7",
            "imul ecx, DWORD PTR [rax], 0x1000", "cmovz rax, rbx", "cmovnc ecx, [rdx]",
            "setz al", "setnbe BYTE PTR [rbx]", "xchg rax, rbx", "xchg eax, eax", "xadd [rax], rcx",
            "cmpxchg [rbx], rdx", "cmpxchg16b [rsi]", "bt rax, 3", "bts QWORD PTR [rax], rcx",
            "popcnt rax, rbx", "lzcnt ecx, edx", "tzcnt r8, r9", "andn rax, rbx, rcx",
            "bextr eax, ebx, ecx", "pdep rax, rbx, rcx", "pext rax, rbx, [rcx]", "shlx rax, rbx, rcx",
            "rorx eax, ebx, 3", "mulx rax, rbx, rcx", "adcx rax, rbx", "adox ecx, edx",
            "crc32 eax, bl", "crc32 rax, QWORD PTR [rsi]", "cpuid", "rdtsc", "rdtscp", "rdpmc",
            "lfence", "mfence", "sfence", "pause", "nop", "nop eax", "nop DWORD PTR [rax]",
            "nop WORD PTR [rax + rax*1 + 0]", "ud2", "int3", "int 0x80", "hlt", "cli", "sti",
            "clc", "stc", "cmc", "cld", "std", "cqo", "cdq", "cwd", "cdqe", "cwde", "cbw",
            "pushfq", "popfq", "lahf", "sahf", "xlatb", "leave", "enter 16, 0", "rdrand rax",
            "rdseed ecx", "clflush [rax]", "clflushopt [rbx]", "clwb [rcx]", "prefetcht0 [rax]",
            "prefetcht1 [rbx + 64]", "prefetchnta [rcx]", "prefetchw [rdx]", "movnti [rax], rbx",
            "wbinvd", "invlpg [rax]", "rdmsr", "wrmsr", "xgetbv", "lgdt [rax]", "sgdt [rbx]",
            "mov cr3, rax", "mov rax, cr0", "mov rax, dr7", "swapgs", "in al, dx", "out 0x80, al",
            "fxsave64 [rax]", "xsave [rbx]", "xrstor64 [rcx]", "xsaveopt [rdx]", "monitor",
            "mwait", "serialize", "rdpid rax", "wrfsbase rax", "rdgsbase rcx", "endbr64",
            "movbe rax, [rbx]", "movbe [rcx], edx", "lar eax, bx", "lsl rax, bx", "verr ax",
            "xlat BYTE PTR [rbx]"]
    return out


def x87():
    out = []
    for op in ["fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr"]:
        for i in range(8):
            out.append(f"{op} st(0), st({i})")
            out.append(f"{op} st({i}), st(0)")
        out += [f"{op} DWORD PTR [rax]", f"{op} QWORD PTR [rbx + 8]", f"{op}p st(1), st"]
        out.append(f"fi{op[1:]} DWORD PTR [rcx]")
    for i in range(8):
        out += [f"fxch st({i})", f"fld st({i})", f"fst st({i})", f"fstp st({i})", f"fcom st({i})",
                f"fucomi st, st({i})", f"fcomip st, st({i})", f"fcmovb st, st({i})",
                f"ffree st({i})"]
    out += ["fld DWORD PTR [rax]", "fld QWORD PTR [rax]", "fld TBYTE PTR [rax]", "fild WORD PTR [rbx]",
            "fild DWORD PTR [rbx]", "fild QWORD PTR [rbx]", "fistp QWORD PTR [rcx]",
            "fisttp DWORD PTR [rcx]", "fbld TBYTE PTR [rdx]", "fbstp TBYTE PTR [rdx]", "fld1", "fldz",
            "fldpi", "fldl2e", "fldln2", "fsqrt", "fsin", "fcos", "fsincos", "fptan", "fpatan",
            "f2xm1", "fyl2x", "fyl2xp1", "fscale", "fprem", "fprem1", "frndint", "fxtract", "fabs",
            "fchs", "ftst", "fxam", "fninit", "fnclex", "fwait", "fnstsw ax", "fnstcw WORD PTR [rax]",
            "fldcw WORD PTR [rax]", "fnstenv [rax]", "fldenv [rax]", "fnsave [rbx]", "frstor [rbx]",
            "fdecstp", "fincstp", "fnop", "fcompp", "fucompp", "emms"]
    return out


XMM = [f"xmm{i}" for i in (0, 1, 2, 7, 8, 15)]
YMM = [f"ymm{i}" for i in (0, 1, 3, 8, 14, 15)]


def sse():
    out = []
    ops = ["addps", "addpd", "addss", "addsd", "mulps", "mulpd", "subps", "divsd", "sqrtps",
           "maxps", "minpd", "andps", "andnpd", "orps", "xorps", "unpcklps", "paddb", "paddw",
           "paddd", "paddq", "psubb", "pmullw", "pmuludq", "pand", "por", "pxor", "pcmpeqb",
           "pcmpgtd", "pshufb", "pmaddwd", "psadbw", "pavgb", "pminub", "pmaxsw", "packsswb",
           "punpcklbw", "phaddd", "pmulld", "pminsd", "ptest", "aesenc", "aesdec", "pclmulqdq_"]
    for op in ops:
        if op.endswith("_"):
            continue
        for i, x in enumerate(XMM[:4]):
            out.append(f"{op} {x}, {XMM[(i + 2) % len(XMM)]}")
        out.append(f"{op} xmm3, [rax]")
    out += ["pclmulqdq xmm0, xmm1, 0x11", "shufps xmm0, xmm1, 0x1b", "pshufd xmm2, xmm3, 0xe4",
            "roundps xmm0, xmm1, 4", "blendps xmm0, xmm1, 5", "pblendvb xmm0, xmm1, xmm0",
            "insertps xmm0, xmm1, 0x10", "pextrq rax, xmm1, 1", "pinsrq xmm2, rbx, 0",
            "pextrb eax, xmm3, 15", "movd eax, xmm0", "movq rax, xmm1", "movq xmm2, rbx",
            "movq xmm3, QWORD PTR [rax]", "movaps xmm0, [rax]", "movups [rbx], xmm1",
            "movapd xmm8, xmm15", "movdqa xmm0, XMMWORD PTR [rip + 0x100]", "movdqu xmm9, [r14]",
            "movntdq [rax], xmm0", "movntdqa xmm1, [rbx]", "lddqu xmm2, [rcx]", "movss xmm0, [rax]",
            "movsd xmm1, QWORD PTR [rbx]", "movhlps xmm0, xmm1", "movlhps xmm2, xmm3",
            "cvtsi2sd xmm0, rax", "cvtsi2ss xmm1, DWORD PTR [rbx]", "cvttsd2si rax, xmm0",
            "cvtps2pd xmm0, xmm1", "cvtdq2ps xmm2, xmm3", "comisd xmm0, xmm1", "ucomiss xmm2, [rax]",
            "cmpps xmm0, xmm1, 2", "cmpltsd xmm1, xmm2", "pmovmskb eax, xmm1", "movmskps ecx, xmm2",
            "psllq xmm0, 3", "psrld xmm1, xmm2", "psrldq xmm3, 8", "pslldq xmm4, 4",
            "ldmxcsr [rax]", "stmxcsr DWORD PTR [rbx]", "sha1rnds4 xmm0, xmm1, 1",
            "sha256rnds2 xmm0, xmm1", "pcmpistri xmm0, xmm1, 0x18", "dpps xmm0, xmm1, 0xff",
            "paddb mm0, mm1", "movq mm0, [rax]", "pshufw mm1, mm2, 0x1b", "pmaddubsw xmm0, xmm1",
            "aeskeygenassist xmm0, xmm1, 1", "aesimc xmm2, xmm3", "aesenclast xmm4, [rax]"]
    return out


def avx():
    out = []
    ops = ["vaddps", "vaddpd", "vmulps", "vsubpd", "vdivps", "vmaxps", "vandps", "vxorps",
           "vpaddd", "vpaddq", "vpsubb", "vpmulld", "vpand", "vpor", "vpxor", "vpcmpeqd",
           "vpshufb", "vpmaddwd", "vunpcklpd", "vpermilps"]
    for op in ops:
        for i, y in enumerate(YMM[:4]):
            out.append(f"{op} {y}, {YMM[(i + 1) % 6]}, {YMM[(i + 2) % 6]}")
        out.append(f"{op} xmm0, xmm1, xmm2")
        out.append(f"{op} ymm3, ymm4, YMMWORD PTR [rax + 32]")
    for op in ["vfmadd132ps", "vfmadd213pd", "vfmadd231ps", "vfmaddsub231ps"]:
        out += [f"{op} ymm0, ymm1, ymm2", f"{op} xmm3, xmm4, [rax]"]
    for op in ["vfmsub231sd", "vfnmadd213ss"]:
        out += [f"{op} xmm0, xmm1, xmm2", f"{op} xmm3, xmm4, [rax]"]
    out += ["vmovaps ymm0, [rax]", "vmovups [rbx], ymm1", "vmovdqa ymm8, ymm15",
            "vmovdqu ymm2, YMMWORD PTR [r14 + 64]", "vbroadcastss ymm0, DWORD PTR [rax]",
            "vbroadcastsd ymm1, xmm2", "vpbroadcastd ymm3, xmm4", "vpbroadcastb xmm5, [rcx]",
            "vperm2f128 ymm0, ymm1, ymm2, 0x20", "vpermq ymm0, ymm1, 0x4e", "vpermd ymm0, ymm1, ymm2",
            "vinsertf128 ymm0, ymm1, xmm2, 1", "vextracti128 xmm0, ymm1, 1", "vzeroupper",
            "vzeroall", "vptest ymm0, ymm1", "vtestps ymm2, ymm3", "vblendvps ymm0, ymm1, ymm2, ymm3",
            "vgatherdps ymm0, [rax + ymm1*4], ymm2", "vpgatherqq ymm3, [rbx + ymm4*8], ymm5",
            "vmaskmovps ymm0, ymm1, [rax]", "vpmaskmovd [rbx], ymm2, ymm3", "vcvtps2pd ymm0, xmm1",
            "vcvtph2ps ymm0, xmm1", "vcvtps2ph xmm0, ymm1, 4", "vroundpd ymm0, ymm1, 1",
            "vsqrtps ymm0, ymm1", "vrcpps ymm2, ymm3", "vrsqrtps xmm4, xmm5", "vpsllvd ymm0, ymm1, ymm2",
            "vpsrlvq xmm0, xmm1, xmm2", "vpsravd ymm3, ymm4, ymm5", "vmovmskps eax, ymm0",
            "vpmovmskb ecx, ymm1", "vaesenc ymm0, ymm1, ymm2", "vpclmulqdq ymm0, ymm1, ymm2, 0",
            "vldmxcsr [rax]", "vstmxcsr [rbx]", "vmovd xmm0, eax", "vmovq rax, xmm1",
            "{vex3} vaddps ymm0, ymm1, ymm2", "{vex2} vaddps xmm0, xmm1, xmm2",
            "vpdpbusd ymm0, ymm1, ymm2", "{vex} vpdpbusd xmm0, xmm1, xmm2"]
    return out


ZMM = [f"zmm{i}" for i in (0, 1, 5, 16, 29, 31)]


def avx512():
    out = []
    ops = ["vaddps", "vaddpd", "vmulps", "vsubpd", "vpaddd", "vpaddq", "vpandd", "vporq",
           "vpxord", "vpmulld", "vmaxps", "vminpd", "vpsubq", "vpermt2d", "vpternlogd_"]
    for op in ops:
        if op.endswith("_"):
            continue
        for i, z in enumerate(ZMM[:4]):
            out.append(f"{op} {z}, {ZMM[(i + 1) % 6]}, {ZMM[(i + 2) % 6]}")
        out += [f"{op} zmm0{{k1}}, zmm1, zmm2", f"{op} zmm3{{k2}}{{z}}, zmm4, zmm5",
                f"{op} zmm6, zmm7, ZMMWORD PTR [rax + 64]", f"{op} ymm16, ymm17, ymm18",
                f"{op} xmm20{{k7}}, xmm21, xmm22"]
        el = "QWORD" if op.endswith(("pd", "q")) else "DWORD"  # the broadcast element
        n = "16" if el == "DWORD" else "8"
        out.append(f"{op} zmm8, zmm9, {el} PTR [rbx]{{1to{n}}}")
    out += ["vpternlogd zmm0, zmm1, zmm2, 0x96", "vpternlogq zmm3{k1}, zmm4, [rax]{1to8}, 0xe8",
            "vaddps zmm0, zmm1, zmm2, {rn-sae}", "vaddpd zmm3, zmm4, zmm5, {rz-sae}",
            "vcvtps2dq zmm0, zmm1, {ru-sae}", "vmaxps zmm0, zmm1, zmm2, {sae}",
            "vmovaps zmm0, [rax]", "vmovups [rbx]{k1}, zmm1", "vmovdqa64 zmm2{k2}{z}, zmm3",
            "vmovdqu8 zmm4, [rcx]", "vmovdqu16 zmm5{k3}, [rdx]", "vmovdqu32 [rsi], zmm6",
            "vmovdqu64 zmm31, [rdi + 0x40]", "vpbroadcastd zmm0, eax", "vpbroadcastq zmm1{k1}, rbx",
            "vbroadcastss zmm2, xmm3", "vbroadcastf32x4 zmm4, [rax]", "vbroadcasti64x4 zmm5, [rbx]",
            "kmovw k1, eax", "kmovq k2, rbx", "kmovd eax, k3", "kmovb k4, [rax]", "kandw k1, k2, k3",
            "korq k4, k5, k6", "kxnorb k7, k1, k2", "knotw k1, k2", "kortestw k1, k2",
            "kshiftlw k1, k2, 3", "kunpckbw k1, k2, k3", "vpcmpeqd k1, zmm0, zmm1",
            "vpcmpgtq k2{k1}, zmm2, zmm3", "vpcmpd k3, zmm4, zmm5, 2", "vcmpps k1, zmm0, zmm1, 0x1e",
            "vptestmd k1, zmm0, zmm1", "vpmovm2d zmm0, k1", "vpmovd2m k1, zmm0",
            "vcompressps [rax]{k1}, zmm0", "vexpandpd zmm0{k1}{z}, [rbx]",
            "vgatherdps zmm0{k1}, [rax + zmm1*4]", "vpscatterdd [rbx + zmm2*4]{k2}, zmm3",
            "vpermi2q zmm0, zmm1, zmm2", "vshuff32x4 zmm0, zmm1, zmm2, 0x44",
            "valignd zmm0, zmm1, zmm2, 3", "vpconflictd zmm0, zmm1", "vplzcntq zmm2, zmm3",
            "vrcp14ps zmm0, zmm1", "vrsqrt14pd zmm2, zmm3", "vgetexpps zmm0, zmm1",
            "vfixupimmps zmm0, zmm1, zmm2, 0", "vreduceps zmm0, zmm1, 1", "vrndscalepd zmm0, zmm1, 4",
            "vpmovqd ymm0, zmm1", "vpmovzxbd zmm0, xmm1", "vinserti64x4 zmm0, zmm1, ymm2, 1",
            "vextractf32x8 ymm0, zmm1, 1", "vpdpbusd zmm0, zmm1, zmm2", "vpopcntd zmm0, zmm1",
            "vpshldvd zmm0, zmm1, zmm2", "vpermb zmm0, zmm1, zmm2", "vdpbf16ps zmm0, zmm1, zmm2",
            "vcvtne2ps2bf16 zmm0, zmm1, zmm2", "vfmadd231ps zmm0{k1}, zmm1, [rax]{1to16}",
            "vaddps zmm0, zmm1, DWORD PTR [rax + 0x1000]{1to16}", "{evex} vaddps xmm0, xmm1, xmm2",
            "vaddph zmm0, zmm1, zmm2", "vfmadd132ph zmm3{k1}, zmm4, zmm5"]
    return out


def amx():
    out = ["ldtilecfg [rax]", "sttilecfg [rbx]", "tilerelease", "tilezero tmm0", "tilezero tmm7"]
    for t in range(8):
        out += [f"tileloadd tmm{t}, [rax + rcx*1]", f"tileloaddt1 tmm{t}, [r14 + rdx*1]",
                f"tilestored [rbx + rsi*1], tmm{t}"]
    for a, b, c in ((0, 1, 2), (3, 4, 5), (6, 7, 0), (1, 2, 3)):
        for op in ["tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud", "tdpbf16ps", "tdpfp16ps"]:
            out.append(f"{op} tmm{a}, tmm{b}, tmm{c}")
    return out


def strings():
    out = []
    for op in ["movs", "stos", "lods", "scas", "cmps"]:
        for sz in "bwdq":
            out += [f"{op}{sz}", f"rep {op}{sz}" if op in ("movs", "stos", "lods") else f"repe {op}{sz}"]
            if op in ("scas", "cmps"):
                out.append(f"repne {op}{sz}")
    out += ["rep movsb", "rep stosq", "movs BYTE PTR es:[rdi], BYTE PTR ds:[rsi]",
            "stos QWORD PTR es:[rdi], rax", "lods eax, DWORD PTR ds:[rsi]",
            "scas al, BYTE PTR es:[rdi]", "addr32 rep movsb", "insb", "outsb", "rep insd"]
    return out


def branches():
    out = []
    for r in R64[:8]:
        out += [f"jmp {r}", f"call {r}", f"jmp QWORD PTR [{r}]", f"call QWORD PTR [{r} + 8]"]
    out += ["jmp FWORD PTR [rax]", "call FWORD PTR [rbx]", "jmp FWORD PTR [rcx + 8]",
            "retf", "retf 8", "lret", "ret", "ret 16", "iretq", "syscall", "sysretq",
            "notrack jmp rax", "notrack call QWORD PTR [rbx]", "bnd jmp rcx", "bnd ret",
            "jmp QWORD PTR [rip + 0x10]", "call QWORD PTR [rip + 0x20]", "jmp .", "jz .", "call .",
            "jmp . + 2", "jnz . - 0x100", "call . + 0x1000"]
    return out


JCC = ["jrcxz", "jecxz", "loop", "loope", "loopne", "jo", "jno", "jb", "jae", "je", "jne", "jbe", "ja", "js", "jns", "jp", "jnp", "jl", "jge",
       "jle", "jg", "jc", "jnc", "jz", "jnz", "jmp"]


def label_cases():
    """Multi-statement cases: local labels, near/short jumps over distances, .rept, data."""
    cases = []
    for j in JCC:
        cases.append([f"{j} 1f", "nop", "1: nop"])
        cases.append(["1: dec ecx", f"{j} 1b"])
        if j.startswith(("jrcxz", "jecxz", "loop")):
            continue
        cases.append([f"{j} 2f", ".skip 200, 0x90", "2: nop"])
        cases.append(["3: .skip 130, 0x90", f"{j} 3b"])
    cases += [["lea rax, [rip + 1f]", "1: nop"], ["mov rax, QWORD PTR [rip + 1f]", "ret", "1: .quad 7"],
              ["call 1f", "1: pop rax"], ["loop_a: dec rcx", "jnz loop_a"],
              ["top: add rax, rbx", "cmp rax, rcx", "jb top", "jmp done", "done: nop"],
              ["x = 5", "mov eax, x"], [".set y, 0x10", "add rcx, y"], [".equ z, 3", "shl rax, z"],
              [".rept 3", "add rax, rbx", ".endr"], [".rept 2", "nop", "xor eax, eax", ".endr"],
              [".irp r, rax, rbx, rcx", "inc \\r", ".endr"],
              [".macro twice i", "\\i", "\\i", ".endm", "twice nop", "twice cpuid"],
              [".align 16", "nop"], ["nop", ".align 16"], ["nop", ".p2align 5"], ["nop", ".balign 8, 0xcc"],
              ["nop", ".p2align 4,,7"], [".byte 0x90, 0x0f, 0x0b"], [".byte 1, 2, 3, 4, 5, 6, 7, 8"],
              [".word 0x1234, 0x5678"], [".short 1"], [".long 0xdeadbeef"], [".int 7"],
              [".quad 0x1122334455667788"], [".ascii \"nanoBench\""], [".asciz \"ab\""],
              [".string \"xyz\""], [".skip 5"], [".skip 3, 0x90"], [".space 4, 0xcc"], [".zero 6"],
              [".fill 3, 2, 0x9090"], [".byte 010, 0x10, 10"], [".intel_syntax noprefix", "mov rax, 1"],
              [".att_syntax prefix", "movq $1, %rax"], [".code32", "inc eax"], [".code16", "mov ax, 1"],
              ["mov rax, OFFSET 1f", "1: nop"]]
    return cases


def segment_prefix():
    out = []
    for seg in ["fs", "gs", "es", "cs", "ss", "ds"]:
        out += [f"mov rax, QWORD PTR {seg}:[rbx]", f"mov {seg}:[rcx + 8], edx",
                f"add BYTE PTR {seg}:[rax], 1", f"mov eax, DWORD PTR {seg}:0x10"]
    out += ["mov ax, fs", "mov gs, ax", "push fs", "pop gs", "mov eax, fs:[0x28]",
            "lea rax, fs:[rbx]"]
    for p in ["lock add QWORD PTR [rax], 1", "lock xadd [rbx], ecx", "lock cmpxchg [rcx], rdx",
              "lock inc DWORD PTR [rax]", "lock or BYTE PTR [rbx], 1", "xacquire lock add [rax], ecx",
              "xrelease lock sub [rbx], edx", "xacquire lock xchg [rax], rcx",
              "data16 nop", "addr32 mov eax, [ebx]", "mov eax, [ebx]", "mov rax, [eax + ecx*2]",
              "rex.w nop", "rex nop", "rep ret", "repz nop", "cs nop",
              "ds jz 0x10", "{disp32} mov rax, [rbx]", "{disp8} mov rax, [rbx + 4]",
              "{load} mov rax, rbx", "{store} mov rax, rbx", "{nooptimize} and rax, 1",
              "xbegin 0x10", "xend", "xabort 1", "xtest", "mov rax, [r12]", "mov rax, [r13]",
              "mov rax, [rsp]", "mov rax, [rbp]", "mov rax, [rax*2]", "mov rax, [rax*8 + 0x100]"]:
        out.append(p)
    return out


def nanobench_cases():
    """nanoBench's own conventions around the statements."""
    cases = []
    for i, n in enumerate(range(1, 16)):
        cases.append((f"nop{n}", f"|{n}", NOPS[n], None))
        cases.append((f"add_nop{n}", f"add rax, rbx; |{n}; add rbx, rax", None,
                      ["add rax, rbx", f".byte {','.join('0x' + NOPS[n][k:k + 2] for k in range(0, len(NOPS[n]), 2))}",
                       "add rbx, rax"]))
    for n in (1, 2, 3, 7, 16):
        cases.append((f"repeat{n}", f"{n}*|add rax, rbx; imul rcx, rdx|", None,
                      ["add rax, rbx", "imul rcx, rdx"] * n))
        cases.append((f"repeat_nop{n}", f"{n}*|inc rax; |3|", None,
                      ["inc rax", ".byte 0x0f,0x1f,0x00"] * n))
    cases.append(("comment", "add rax, rbx # the rest; is a comment", None, ["add rax, rbx"]))
    cases.append(("comment2", "add rax, rbx; # nothing; sub rax, rbx", None, ["add rax, rbx"]))
    cases.append(("comment3", "mov eax, 1 ;  add eax, 2#x", None, ["mov eax, 1", "add eax, 2"]))
    cases.append(("newline", "add rax, rbx\nsub rcx, rdx", None, ["add rax, rbx", "sub rcx, rdx"]))
    cases.append(("blank", ";;add rax, rbx;;", None, ["add rax, rbx"]))
    cases.append(("jmp_over_nop", "jmp 1f; |5; 1: nop", None, ["jmp 1f", ".byte 0x0f,0x1f,0x44,0x00,0x00", "1: nop"]))
    cases.append(("zero_repeat", "0*|nop|; inc rax", None, ["inc rax"]))
    return cases


def all_cases():
    """(name, user text, plain statements for as)."""
    cases = []
    tables = [("alu", alu()), ("misc", unary_shift_misc()), ("x87", x87()), ("sse", sse()),
              ("avx", avx()), ("avx512", avx512()), ("amx", amx()), ("str", strings()),
              ("br", branches()), ("seg", segment_prefix())]
    for table, stmts in tables:
        # A case is up to 4 statements joined by ';', as users write them.
        for k in range(0, len(stmts), 4):
            group = stmts[k:k + 4]
            cases.append((f"{table}{k // 4}", "; ".join(group), group))
    for i, group in enumerate(label_cases()):
        cases.append((f"lab{i}", "; ".join(group), group))
    for name, text, _hex, plain in nanobench_cases():
        if plain is None:
            plain = [f".byte {','.join('0x' + _hex[k:k + 2] for k in range(0, len(_hex), 2))}"]
        cases.append((f"nb_{name}", text, plain))
    return cases


def read_sections(obj):
    """{section name: bytes} of an ELF64 object file."""
    data = open(obj, "rb").read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in headers:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] == 1 else b""  # SHT_PROGBITS
    return out


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus.tsv")
    cases = all_cases()
    src = []
    for i, (_name, _text, plain) in enumerate(cases):
        src.append(f'.section .text.c{i},"ax",@progbits\n.intel_syntax noprefix\n.code64\n')
        src += [s + "\n" for s in plain]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "c.s"), "w") as f:
            f.write("".join(src))
        subprocess.run(["as", "--64", "-o", os.path.join(tmp, "c.o"), os.path.join(tmp, "c.s")],
                       check=True)
        sections = read_sections(os.path.join(tmp, "c.o"))
    statements = 0
    with open(out_path, "w") as f:
        f.write("# Generated by tests/gas/gen_corpus.py with " +
                subprocess.run(["as", "--version"], capture_output=True, text=True).stdout.splitlines()[0] +
                "; the bytes are GNU as's. NAME<TAB>-asm text (\\n: newline)<TAB>bytes\n")
        for i, (name, text, plain) in enumerate(cases):
            statements += len(plain)
            f.write(f"{name}\t{text.replace(chr(10), chr(92) + 'n')}\t{sections.get(f'.text.c{i}', b'').hex()}\n")
    print(f"{out_path}: {len(cases)} cases, {statements} statements", file=sys.stderr)


if __name__ == "__main__":
    main()
