/*
 * mica_dbt_plugin.c — the QEMU user-mode TCG plugin of nb_mica -dbt
 * (build/host/mica_dbt.so): for every instruction the first guest thread
 * executes, one EXEC word, and one LOAD/STORE word per memory access, into
 * the shared ring given as fd=N (format: mica_dbt_stream.h). Nothing else:
 * the decoding and the analyses run in nb_mica, on the other core.
 *
 *   qemu-x86_64 -plugin build/host/mica_dbt.so,fd=3[,max=N] PROGRAM ARGS
 *
 * max=N: record the first N instructions only (the program runs on).
 * Only vCPU 0, the program's initial thread, is recorded (as the ptrace
 * capture traces only the initial thread), and only in the initial process:
 * a child made by fork stops recording (the ring is shared with it).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mica_dbt_stream.h"
#include "qemu_plugin_api.h"

MICA_QEMU_PLUGIN_EXPORT int qemu_plugin_version = MICA_QEMU_PLUGIN_API_VERSION;

/* One static instruction (address + bytes); never freed, so its address is the callbacks' userdata. */
struct insn {
    uint64_t vaddr;
    uint32_t id;
    uint8_t len;
    bool sent;              /* DEF written (vCPU 0 only touches this) */
    uint8_t bytes[MICA_DBT_MAX_BYTES];
    struct insn *next;      /* hash chain */
};

#define HASH_BITS 20
#define CHUNK 4096

static struct insn *table[1u << HASH_BITS];
static struct insn *chunk;
static unsigned chunk_used = CHUNK;
static uint32_t next_id;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static int out_fd = -1;
static struct mica_dbt_ring *ring;
static uint64_t *words, mask;
static uint64_t head, room_until; /* room_until: head may grow to it without looking at tail */
static uint64_t recorded, max_records;
static bool stopped;

/* Waits until nb_mica has consumed enough for one more word. */
static void wait_room(void)
{
    struct timespec nap = { 0, 50000 };
    for (;;) {
        uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        room_until = tail + ring->size_words;
        if (head < room_until)
            return;
        nanosleep(&nap, NULL);
    }
}

static inline void put(uint64_t w)
{
    if (head == room_until)
        wait_room();
    words[head & mask] = w;
    head++;
    /* Published at once (a plain store on x86): nothing waits in this process. */
    __atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
}

static void on_exec(unsigned int vcpu, void *userdata)
{
    if (vcpu != 0 || stopped)
        return;
    struct insn *s = userdata;
    if (max_records && recorded == max_records) {
        stopped = true;
        put(MICA_DBT_EXEC | MICA_DBT_STOP);
        put(s->vaddr); /* where the last recorded instruction went: a branch's outcome */
        return;
    }
    recorded++;
    if (!s->sent) {
        uint64_t w[2];
        memcpy(w, s->bytes, sizeof(w));
        put(MICA_DBT_DEF | (uint64_t)s->len << 32 | s->id);
        put(s->vaddr);
        put(w[0]);
        put(w[1]);
        s->sent = true;
    }
    put(MICA_DBT_EXEC | s->id);
}

/* One callback for every access: QEMU 7.2 calls a callback registered for
 * loads only (QEMU_PLUGIN_MEM_R) for stores too, so the direction comes
 * from the access itself. */
static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)userdata;
    if (vcpu == 0 && !stopped)
        put((qemu_plugin_mem_is_store(info) ? MICA_DBT_STORE : MICA_DBT_LOAD) | (vaddr & MICA_DBT_ADDR_MASK));
}

/* The static instruction at vaddr with these bytes, made when new. */
static struct insn *intern(uint64_t vaddr, const uint8_t *bytes, size_t len)
{
    if (len > MICA_DBT_MAX_BYTES)
        len = MICA_DBT_MAX_BYTES;
    unsigned h = (unsigned)((vaddr * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
    pthread_mutex_lock(&table_lock);
    struct insn *s;
    for (s = table[h]; s; s = s->next)
        if (s->vaddr == vaddr && s->len == len && memcmp(s->bytes, bytes, len) == 0)
            break;
    if (!s) {
        if (chunk_used == CHUNK) {
            chunk = calloc(CHUNK, sizeof(*chunk));
            if (!chunk) {
                qemu_plugin_outs("mica_dbt: out of memory\n");
                abort();
            }
            chunk_used = 0;
        }
        s = &chunk[chunk_used++];
        s->vaddr = vaddr;
        s->len = (uint8_t)len;
        memcpy(s->bytes, bytes, len);
        s->id = next_id++;
        s->next = table[h];
        table[h] = s;
    }
    pthread_mutex_unlock(&table_lock);
    return s;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn *s = intern(qemu_plugin_insn_vaddr(insn), qemu_plugin_insn_data(insn),
                                qemu_plugin_insn_size(insn));
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, s);
        qemu_plugin_register_vcpu_mem_cb(insn, on_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
}

/* In a child of the program's fork: the ring belongs to the parent. */
static void stop_in_child(void)
{
    stopped = true;
}

MICA_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                int argc, char **argv)
{
    if (info->system_emulation || strcmp(info->target_name, "x86_64") != 0) {
        qemu_plugin_outs("mica_dbt: runs under qemu-x86_64 (user mode) only\n");
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        char *end;
        if (strncmp(argv[i], "fd=", 3) == 0)
            out_fd = (int)strtol(argv[i] + 3, &end, 10);
        else if (strncmp(argv[i], "max=", 4) == 0)
            max_records = strtoull(argv[i] + 4, &end, 10);
        else {
            qemu_plugin_outs("mica_dbt: unknown argument (fd=N, max=N)\n");
            return -1;
        }
    }
    struct stat st;
    if (out_fd < 0 || fstat(out_fd, &st) != 0 || (size_t)st.st_size <= MICA_DBT_RING_HEADER) {
        qemu_plugin_outs("mica_dbt: needs fd=N, the ring nb_mica made\n");
        return -1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, out_fd, 0);
    if (m == MAP_FAILED) {
        qemu_plugin_outs("mica_dbt: cannot map the ring\n");
        return -1;
    }
    close(out_fd);
    ring = m;
    words = (uint64_t *)((char *)m + MICA_DBT_RING_HEADER);
    mask = ring->size_words - 1;
    head = ring->head;
    room_until = head;
    pthread_atfork(NULL, NULL, stop_in_child);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
