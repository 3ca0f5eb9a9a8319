/*
 * mica_dbt.c — see mica_dbt.h. Three kinds of threads: QEMU (its own
 * process) writes the stream; this thread reads and decodes it into batches
 * of records; each worker thread runs its share of the analyses (a part of
 * every run, mica_run_new_part) over every batch, in order.
 */
#define _GNU_SOURCE
#include "mica_dbt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mica_dbt_stream.h"
#include "mica_decode.h"

#define BATCH_RECS 2048
#define N_BATCHES 16
#define MAX_WORKERS 2
#define MAX_PARTS 8
#define MAX_ACCESSES 16
#define READ_WORDS (1u << 16)

/*
 * The analyses of a worker, in two groups of about the same cost per record
 * (CPU seconds per 10^8 records of tests/bench/mica_gig.asm, measured one
 * analysis at a time: ilp 4.3, memstackdist + fullmemstackdist (one LRU
 * stack, so together) 3.2, memfootprint 2.0, stride 1.0, ppm 0.6, reg 0.4,
 * itypes 0.2, plus about 1 per worker for walking the records).
 */
static const unsigned worker_mask[MAX_WORKERS] = {
    1u << MICA_ILP | 1u << MICA_ILP_ONE | 1u << MICA_REG | 1u << MICA_PPM | 1u << MICA_ITYPES,
    1u << MICA_MEMSTACKDIST | 1u << MICA_FULLMEMSTACKDIST | 1u << MICA_MEMFOOTPRINT | 1u << MICA_STRIDE,
};

struct batch {
    struct mica_rec rec[BATCH_RECS];
    unsigned n;
};

struct pool {
    struct batch *b;            /* N_BATCHES */
    uint64_t produced;          /* batches published */
    uint64_t consumed[MAX_WORKERS];
    unsigned n_workers;
    bool done;
    pthread_mutex_t lock;
    pthread_cond_t more, room;
};

struct worker {
    struct pool *pool;
    unsigned index;
    struct mica_run *part[MAX_PARTS];
    size_t n_parts;
    double cpu;         /* seconds of this thread */
};

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct pool *p = w->pool;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->consumed[w->index] == p->produced && !p->done)
            pthread_cond_wait(&p->more, &p->lock);
        if (p->consumed[w->index] == p->produced) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        struct batch *b = &p->b[p->consumed[w->index] % N_BATCHES];
        pthread_mutex_unlock(&p->lock);
        for (unsigned k = 0; k < w->n_parts; k++)
            for (unsigned i = 0; i < b->n; i++)
                mica_run_record(w->part[k], &b->rec[i]);
        pthread_mutex_lock(&p->lock);
        p->consumed[w->index]++;
        pthread_cond_signal(&p->room);
        pthread_mutex_unlock(&p->lock);
    }
    for (unsigned k = 0; k < w->n_parts; k++)
        mica_run_finish(w->part[k]);
    w->cpu = thread_cpu();
    return NULL;
}

/* The next empty batch, once every worker is done with what it held. */
static struct batch *take_batch(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    for (;;) {
        uint64_t oldest = p->produced;
        for (unsigned i = 0; i < p->n_workers; i++)
            if (p->consumed[i] < oldest)
                oldest = p->consumed[i];
        if (p->produced - oldest < N_BATCHES)
            break;
        pthread_cond_wait(&p->room, &p->lock);
    }
    struct batch *b = &p->b[p->produced % N_BATCHES];
    pthread_mutex_unlock(&p->lock);
    b->n = 0;
    return b;
}

static void publish(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->produced++;
    pthread_cond_broadcast(&p->more);
    pthread_mutex_unlock(&p->lock);
}

/* One static instruction as the stream defined it. */
struct def {
    uint64_t pc;
    uint32_t handle;    /* into the decoder */
    bool defined;
    bool rep;           /* REP string instruction */
};

struct reader {
    struct mica_decoder dec;
    struct def *defs;
    size_t n_defs;
    /* The instruction executing: its accesses are still coming. */
    bool have_cur;
    uint32_t cur;
    struct mica_access acc[MAX_ACCESSES];
    size_t n_acc;
    uint64_t records;
    uint64_t last_pc;   /* of the last record emitted */
    bool stopped;
    struct pool *pool;
    struct batch *batch;
    char *err;
    size_t errlen;
};

/* The record of the instruction executing, now that the next pc is known. */
static void emit(struct reader *r, uint64_t next_pc, bool last)
{
    const struct def *d = &r->defs[r->cur];
    if (d->rep && r->n_acc == 0 && r->records && r->last_pc == d->pc) {
        /* QEMU enters a REP MOVS/STOS/... once more to find the count at 0
         * and leave: not an iteration (the ptrace capture has no such step). */
        r->have_cur = false;
        return;
    }
    r->last_pc = d->pc;
    struct mica_rec *rec = &r->batch->rec[r->batch->n++];
    mica_decode_fill(&r->dec, d->handle, d->pc, r->acc, r->n_acc, next_pc, rec);
    if (last)
        rec->taken = false; /* nothing follows the program's last instruction */
    r->records++;
    if (r->batch->n == BATCH_RECS) {
        publish(r->pool);
        r->batch = take_batch(r->pool);
    }
    r->have_cur = false;
    r->n_acc = 0;
}

static int define(struct reader *r, const uint64_t *w)
{
    uint32_t id = (uint32_t)w[0];
    unsigned len = (unsigned)(w[0] >> 32) & 0xff;
    if (id >= r->n_defs) {
        size_t n = r->n_defs ? r->n_defs : 1024;
        while (n <= id)
            n *= 2;
        struct def *d = realloc(r->defs, n * sizeof(*d));
        if (!d)
            abort();
        memset(d + r->n_defs, 0, (n - r->n_defs) * sizeof(*d));
        r->defs = d;
        r->n_defs = n;
    }
    uint8_t bytes[MICA_DBT_MAX_BYTES];
    memcpy(bytes, &w[2], sizeof(bytes));
    struct def *d = &r->defs[id];
    d->pc = w[1];
    if (len == 0 || len > MICA_DBT_MAX_BYTES ||
        mica_decode_static_add(&r->dec, d->pc, bytes, len, &d->handle, r->err, r->errlen) < 0) {
        if (len == 0 || len > MICA_DBT_MAX_BYTES)
            snprintf(r->err, r->errlen, "the plugin sent a %u-byte instruction at 0x%llx", len,
                     (unsigned long long)d->pc);
        else {
            /* QEMU hands over only the bytes it understood: an instruction TCG
             * lacks (AVX-512, ...) arrives cut short. */
            size_t k = strlen(r->err);
            snprintf(r->err + k, r->errlen - k, " (as QEMU read it: an instruction QEMU's TCG cannot "
                     "run, e.g. AVX-512, stops the program with SIGILL; use the ptrace capture, "
                     "without -dbt)");
        }
        return -1;
    }
    d->defined = true;
    d->rep = mica_decode_is_rep(&r->dec, d->handle);
    return 0;
}

/* Consumes words; returns how many were used (a DEF cut by the read stays), or -1. */
static ssize_t consume(struct reader *r, const uint64_t *w, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint64_t x = w[i];
        switch (x & MICA_DBT_TAG_MASK) {
        case MICA_DBT_LOAD:
        case MICA_DBT_STORE:
            if (r->have_cur && r->n_acc < MAX_ACCESSES) {
                r->acc[r->n_acc].addr = x & MICA_DBT_ADDR_MASK;
                r->acc[r->n_acc].is_store = (x & MICA_DBT_TAG_MASK) == MICA_DBT_STORE;
                r->n_acc++;
            }
            i++;
            break;
        case MICA_DBT_EXEC: {
            uint32_t id = (uint32_t)x;
            if (id == MICA_DBT_STOP) {
                if (n - i < 2)
                    return (ssize_t)i;
                if (r->have_cur)
                    emit(r, w[i + 1], false);
                r->stopped = true;
                i += 2;
                break;
            }
            if (id >= r->n_defs || !r->defs[id].defined) {
                snprintf(r->err, r->errlen, "the plugin ran instruction %u before defining it", id);
                return -1;
            }
            if (r->have_cur)
                emit(r, r->defs[id].pc, false);
            r->cur = id;
            r->have_cur = true;
            i++;
            break;
        }
        default: /* DEF */
            if (n - i < MICA_DBT_DEF_WORDS)
                return (ssize_t)i;
            if (define(r, &w[i]) < 0)
                return -1;
            i += MICA_DBT_DEF_WORDS;
            break;
        }
    }
    return (ssize_t)i;
}

/* argv[0] as execvp would find it (QEMU does not search PATH). */
static char *find_program(const char *name)
{
    if (strchr(name, '/'))
        return strdup(name);
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *e = strchr(path, ':');
        size_t len = e ? (size_t)(e - path) : strlen(path);
        char buf[4096];
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", name);
        if (access(buf, X_OK) == 0)
            return strdup(buf);
        path += len + (e != NULL);
    }
    return strdup(name);
}

int mica_dbt_run(char *const *argv, const struct mica_dbt_options *o, struct mica_run **runs,
                 size_t n_runs, struct mica_dbt_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    double wall0 = wall_now(), cpu0 = thread_cpu();
    struct stat st;
    if (stat(o->plugin, &st) != 0) {
        snprintf(err, errlen, "%s: %s (the QEMU plugin; make build/host/mica_dbt.so)", o->plugin,
                 strerror(errno));
        return -1;
    }
    int ready[2];
    size_t ring_bytes = MICA_DBT_RING_HEADER + (size_t)MICA_DBT_RING_WORDS * sizeof(uint64_t);
    int ring_fd = memfd_create("mica_dbt_ring", 0); /* not close-on-exec: QEMU's plugin maps it */
    if (ring_fd < 0 || ftruncate(ring_fd, (off_t)ring_bytes) != 0) {
        snprintf(err, errlen, "memfd for the ring: %s", strerror(errno));
        if (ring_fd >= 0)
            close(ring_fd);
        return -1;
    }
    void *ring_map = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
    if (ring_map == MAP_FAILED || pipe2(ready, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "ring: %s", strerror(errno));
        if (ring_map != MAP_FAILED)
            munmap(ring_map, ring_bytes);
        close(ring_fd);
        return -1;
    }
    struct mica_dbt_ring *ring = ring_map;
    const uint64_t *ring_words = (const uint64_t *)((char *)ring_map + MICA_DBT_RING_HEADER);
    ring->size_words = MICA_DBT_RING_WORDS;
    char *prog = find_program(argv[0]);
    char plugin_arg[4200];
    int n = snprintf(plugin_arg, sizeof(plugin_arg), "%s,fd=%d", o->plugin, ring_fd);
    if (o->max_instructions)
        snprintf(plugin_arg + n, sizeof(plugin_arg) - (size_t)n, ",max=%llu",
                 (unsigned long long)o->max_instructions);
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **qargv = calloc(argc + 5, sizeof(*qargv));
    qargv[0] = (char *)o->qemu;
    qargv[1] = "-plugin";
    qargv[2] = plugin_arg;
    qargv[3] = prog;
    for (size_t i = 1; i < argc; i++)
        qargv[3 + i] = argv[i];
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        free(qargv);
        free(prog);
        munmap(ring_map, ring_bytes);
        close(ring_fd);
        return -1;
    }
    if (pid == 0) {
        close(ready[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* no QEMU left waiting on a ring nobody reads */
        execvp(qargv[0], qargv);
        int e = errno;
        if (write(ready[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(127);
    }
    close(ring_fd);
    close(ready[1]);
    free(qargv);
    int child_errno = 0;
    bool no_exec = read(ready[0], &child_errno, sizeof(child_errno)) == (ssize_t)sizeof(child_errno);
    close(ready[0]);
    if (no_exec) {
        waitpid(pid, NULL, 0);
        munmap(ring_map, ring_bytes);
        snprintf(err, errlen, "%s: cannot run it: %s (install qemu-user: tools/install-deps.sh)",
                 o->qemu, strerror(child_errno));
        free(prog);
        return -1;
    }

    /* Workers: each takes its group's part of every run. */
    struct pool pool = { .n_workers = o->threads == 1 ? 1 : MAX_WORKERS };
    pool.b = malloc(N_BATCHES * sizeof(*pool.b));
    if (!pool.b)
        abort();
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.more, NULL);
    pthread_cond_init(&pool.room, NULL);
    struct worker workers[MAX_WORKERS];
    pthread_t tids[MAX_WORKERS];
    memset(workers, 0, sizeof(workers));
    for (unsigned k = 0; k < pool.n_workers; k++) {
        workers[k].pool = &pool;
        workers[k].index = k;
        unsigned mask = pool.n_workers == 1 ? ~0u : worker_mask[k];
        for (size_t i = 0; i < n_runs && workers[k].n_parts < MAX_PARTS; i++)
            workers[k].part[workers[k].n_parts++] = mica_run_new_part(mica_run_options(runs[i]), mask);
        pthread_create(&tids[k], NULL, work, &workers[k]);
    }

    struct reader r = { .pool = &pool, .err = err, .errlen = errlen };
    mica_decoder_init(&r.dec, 0, 0);
    r.dec.nop_mem = false; /* QEMU makes no access for them: see mica_dbt.h */
    r.batch = take_batch(&pool);
    uint64_t *words = malloc(READ_WORDS * sizeof(uint64_t));
    size_t have = 0; /* bytes in words[] not consumed yet */
    int rc = 0, status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof(usage));
    bool exited = false;
    uint64_t tail = 0;
    struct timespec nap = { 0, 20000 };
    for (;;) {
        uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
        if (head < tail || head - tail > MICA_DBT_RING_WORDS) {
            snprintf(err, errlen, "the plugin's ring is damaged (head %llu, tail %llu)",
                     (unsigned long long)head, (unsigned long long)tail);
            rc = -1;
            break;
        }
        if (head == tail) {
            if (exited) {
                if (have) {
                    snprintf(err, errlen, "the plugin's stream ends inside a record");
                    rc = -1;
                }
                break;
            }
            /* Idle: has QEMU ended? Then one more look at head (it stored before exiting). */
            pid_t w = wait4(pid, &status, WNOHANG, &usage);
            if (w == pid || (w < 0 && errno != EINTR))
                exited = true;
            else
                nanosleep(&nap, NULL);
            continue;
        }
        /* Copy what came (up to the buffer's room) out of the ring, then hand the room back. */
        size_t room = READ_WORDS - have / sizeof(uint64_t), k = 0;
        uint64_t avail = head - tail;
        size_t take = avail < room ? (size_t)avail : room;
        while (k < take) {
            size_t at = (size_t)((tail + k) & (MICA_DBT_RING_WORDS - 1));
            size_t run = MICA_DBT_RING_WORDS - at;
            if (run > take - k)
                run = take - k;
            memcpy((char *)words + have + k * sizeof(uint64_t), ring_words + at, run * sizeof(uint64_t));
            k += run;
        }
        tail += take;
        __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
        have += take * sizeof(uint64_t);
        ssize_t used = consume(&r, words, have / sizeof(uint64_t));
        if (used < 0) {
            rc = -1;
            break;
        }
        have -= (size_t)used * sizeof(uint64_t);
        memmove(words, words + used, have);
    }
    if (rc == 0 && r.have_cur)
        emit(&r, 0, true); /* the program's last instruction (its exit) */
    if (r.batch->n)
        publish(&pool);
    pthread_mutex_lock(&pool.lock);
    pool.done = true;
    pthread_cond_broadcast(&pool.more);
    pthread_mutex_unlock(&pool.lock);
    for (unsigned k = 0; k < pool.n_workers; k++)
        pthread_join(tids[k], NULL);
    if (!exited) {
        kill(pid, SIGKILL); /* an error: stop QEMU */
        while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR)
            ;
    }
    res->wall = wall_now() - wall0;
    res->cpu_qemu = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
                    (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
    res->cpu_reader = thread_cpu() - cpu0;
    res->n_workers = pool.n_workers;
    for (unsigned k = 0; k < pool.n_workers; k++)
        res->cpu_worker[k] = workers[k].cpu;
    munmap(ring_map, ring_bytes);
    if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) {
        res->killed = true;
        res->signal = WTERMSIG(status);
    }
    res->instructions = r.records;
    res->too_long = r.stopped;
    if (rc == 0 && r.records == 0 && res->exit_status != 0) {
        snprintf(err, errlen, "%s: nothing recorded (%s exit status %d; does it run under %s?)", prog,
                 o->qemu, res->exit_status, o->qemu);
        rc = -1;
    }
    /* The parts' analyses move into the runs (each run's parts are disjoint). */
    for (unsigned k = 0; k < pool.n_workers; k++)
        for (size_t i = 0; i < workers[k].n_parts; i++) {
            mica_run_adopt(runs[i], workers[k].part[i]);
            mica_run_free(workers[k].part[i]);
        }
    free(words);
    free(r.defs);
    mica_decoder_free(&r.dec);
    free(pool.b);
    free(prog);
    pthread_mutex_destroy(&pool.lock);
    pthread_cond_destroy(&pool.more);
    pthread_cond_destroy(&pool.room);
    return rc;
}
