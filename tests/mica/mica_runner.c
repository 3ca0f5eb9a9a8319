/*
 * mica_runner.c — runs benchmark code on the Linux host the way the image's
 * trace run does (kernel/codegen/bench_codegen.c, trace mode), between two INT3
 * markers, so `nb_mica -int3_markers -- mica_runner ...` traces exactly the
 * region the image traces for -mica: the capture cross-check of issue 9
 * (tests/mica/xcheck.sh).
 *
 * usage: mica_runner [-page_offset N] [-unroll_count U] [-loop_count L]
 *                    [-init FILE] [-late_init FILE] MAIN_FILE
 * FILEs are flat machine code (nasm -f bin). The code buffer holds:
 *   R14, RDI, RSI, RBP, RSP = the middles of five zeroed 1 MiB areas (page-
 *   aligned, as the image's AllocatePages areas), the other GPRs 0; the init
 *   code; MOV R15, L; NOP padding; INT3; the traced region [late-init, U
 *   copies of the main code, DEC R15 + JNZ rel32 back to the first copy when
 *   L > 0] starting at page offset N; INT3; exit_group(0).
 * As in the image, N is where the late-init code starts; the image pads so
 * that the first copy is 64-byte aligned (pass its trace's first RIP & 4095).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define AREA_BYTES (1u << 20)
#define PAGE 4096u

static uint8_t *code;
static size_t pos, cap;

static void emit(const void *b, size_t n)
{
    if (pos + n > cap) {
        fprintf(stderr, "mica_runner: code too long\n");
        exit(2);
    }
    memcpy(code + pos, b, n);
    pos += n;
}

static void emit_u8(uint8_t b)
{
    emit(&b, 1);
}

/* MOV r64, imm64 (REX.W B8+r). */
static void mov_imm64(int reg, uint64_t v)
{
    emit_u8((uint8_t)(0x48 | (reg >= 8)));
    emit_u8((uint8_t)(0xB8 + (reg & 7)));
    emit(&v, 8);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mica_runner: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    uint8_t *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    long page_offset = 0, unroll = 1, loop = 0;
    const char *init = NULL, *late = NULL, *main_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "-page_offset") == 0 && v)
            page_offset = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-unroll_count") == 0 && v)
            unroll = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-loop_count") == 0 && v)
            loop = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-init") == 0 && v)
            init = argv[++i];
        else if (strcmp(argv[i], "-late_init") == 0 && v)
            late = argv[++i];
        else if (argv[i][0] != '-' && !main_file)
            main_file = argv[i];
        else {
            fprintf(stderr, "usage: mica_runner [-page_offset N] [-unroll_count U] [-loop_count L] "
                            "[-init FILE] [-late_init FILE] MAIN_FILE\n");
            return 2;
        }
    }
    if (!main_file || page_offset < 0 || page_offset >= (long)PAGE || unroll < 0 || loop < 0) {
        fprintf(stderr, "mica_runner: bad arguments\n");
        return 2;
    }
    size_t main_len, init_len = 0, late_len = 0;
    uint8_t *main_code = read_file(main_file, &main_len);
    uint8_t *init_code = init ? read_file(init, &init_len) : NULL;
    uint8_t *late_code = late ? read_file(late, &late_len) : NULL;

    uint64_t middle[5];
    for (int a = 0; a < 5; a++) {
        uint8_t *area = mmap(NULL, AREA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED) {
            perror("mica_runner: mmap");
            return 2;
        }
        middle[a] = (uint64_t)(uintptr_t)(area + AREA_BYTES / 2);
    }
    cap = PAGE * 4 + init_len + late_len + main_len * (size_t)unroll + PAGE;
    cap = (cap + PAGE - 1) & ~(size_t)(PAGE - 1);
    code = mmap(NULL, cap, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mica_runner: mmap");
        return 2;
    }
    /* Registers as the image's trace run sets them (kernel/codegen/bench_codegen.c). */
    mov_imm64(14, middle[0]);
    mov_imm64(7, middle[1]);
    mov_imm64(6, middle[2]);
    mov_imm64(5, middle[3]);
    mov_imm64(4, middle[4]);
    static const int zero[] = { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 15 };
    for (size_t k = 0; k < sizeof(zero) / sizeof(zero[0]); k++) {
        int r = zero[k]; /* XOR r32, r32 zero-extends */
        if (r >= 8)
            emit_u8(0x45);
        emit_u8(0x31);
        emit_u8((uint8_t)(0xC0 | (r & 7) << 3 | (r & 7)));
    }
    if (init_len)
        emit(init_code, init_len);
    if (loop > 0) {
        emit((const uint8_t[]){ 0x49, 0xC7, 0xC7 }, 3); /* MOV R15, imm32 */
        int32_t l = (int32_t)loop;
        emit(&l, 4);
    }
    /* NOPs, then INT3 just before the region, which starts at page_offset. */
    size_t start = (pos + 1 + PAGE - 1 - (size_t)page_offset) / PAGE * PAGE + (size_t)page_offset;
    while (pos < start - 1)
        emit_u8(0x90);
    emit_u8(0xCC);
    emit(late_code, late_len);
    size_t first_copy = pos;
    for (long u = 0; u < unroll; u++)
        emit(main_code, main_len);
    if (loop > 0) {
        emit((const uint8_t[]){ 0x49, 0xFF, 0xCF }, 3); /* DEC R15 */
        int32_t rel = (int32_t)((int64_t)first_copy - (int64_t)(pos + 6));
        emit((const uint8_t[]){ 0x0F, 0x85 }, 2);        /* JNZ rel32 */
        emit(&rel, 4);
    }
    emit_u8(0xCC);
    /* exit_group(0): MOV EAX, 231; XOR EDI, EDI; SYSCALL */
    emit((const uint8_t[]){ 0xB8, 0xE7, 0x00, 0x00, 0x00, 0x31, 0xFF, 0x0F, 0x05 }, 9);
    ((void (*)(void))(uintptr_t)code)();
    return 1;
}
