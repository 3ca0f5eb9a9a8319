/*
 * mica_ptrace.c — see mica_ptrace.h.
 */
#define _GNU_SOURCE
#include "mica_ptrace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mica_capture.h"

/* Records are flushed to the file whenever less than one record is left. */
#define BUF_BYTES (1u << 20)
/* Distinct instruction addresses whose bytes are remembered (a full table only costs space). */
#define SEEN_ENTRIES (1u << 18)
#define RFLAGS_TF (1ull << 8)
#define INT3 0xCC

struct tracer {
    pid_t pid;
    int mem;              /* /proc/PID/mem */
    FILE *out;
    struct mica_capture cap;
    uint64_t fs_base, gs_base;
    bool write_failed;
};

static void regs_from_user(const struct user_regs_struct *u, uint64_t *r)
{
    r[NB_TRACE_RAX] = u->rax;
    r[NB_TRACE_RCX] = u->rcx;
    r[NB_TRACE_RDX] = u->rdx;
    r[NB_TRACE_RBX] = u->rbx;
    r[NB_TRACE_RSP] = u->rsp;
    r[NB_TRACE_RBP] = u->rbp;
    r[NB_TRACE_RSI] = u->rsi;
    r[NB_TRACE_RDI] = u->rdi;
    r[NB_TRACE_R8] = u->r8;
    r[NB_TRACE_R9] = u->r9;
    r[NB_TRACE_R10] = u->r10;
    r[NB_TRACE_R11] = u->r11;
    r[NB_TRACE_R12] = u->r12;
    r[NB_TRACE_R13] = u->r13;
    r[NB_TRACE_R14] = u->r14;
    r[NB_TRACE_R15] = u->r15;
    r[NB_TRACE_RFLAGS] = u->eflags & ~RFLAGS_TF;
}

/* The 15 bytes at rip; what lies beyond the mapping reads as 0. */
static void read_bytes(struct tracer *t, uint64_t rip, uint8_t *bytes)
{
    memset(bytes, 0, NB_TRACE_MAX_INSN_BYTES);
    size_t got = 0;
    while (got < NB_TRACE_MAX_INSN_BYTES) {
        /* Up to the page end first, so an unmapped next page only cuts the tail. */
        size_t want = NB_TRACE_MAX_INSN_BYTES - got, to_page = 4096 - ((rip + got) & 4095);
        ssize_t n = pread(t->mem, bytes + got, want < to_page ? want : to_page, (off_t)(rip + got));
        if (n <= 0)
            break;
        got += (size_t)n;
    }
}

static void flush(struct tracer *t)
{
    if (t->cap.len && fwrite(t->cap.buf, 1, t->cap.len, t->out) != t->cap.len)
        t->write_failed = true;
    t->cap.len = 0;
}

/* Waits for the next stop of t->pid. Returns the status. */
static int wait_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, __WALL) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static bool is_int3_stop(pid_t pid, int status)
{
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP || (status >> 16) != 0)
        return false;
    siginfo_t si;
    return ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == 0 && si.si_code == SI_KERNEL;
}

/* The signal to hand on when resuming after this stop (0 for ptrace's own stops). */
static int signal_to_deliver(int status)
{
    if (!WIFSTOPPED(status))
        return 0;
    int sig = WSTOPSIG(status);
    if (sig == SIGTRAP || (status >> 16) != 0)
        return 0;
    return sig;
}

/* Runs the program on untraced until it ends; the markers' INT3 traps are swallowed. */
static void run_to_end(struct tracer *t, int status, struct mica_ptrace_result *res)
{
    for (;;) {
        if (WIFEXITED(status)) {
            res->exit_status = WEXITSTATUS(status);
            return;
        }
        if (WIFSIGNALED(status)) {
            res->killed = true;
            res->signal = WTERMSIG(status);
            return;
        }
        int sig = is_int3_stop(t->pid, status) ? 0 : signal_to_deliver(status);
        if (ptrace(PTRACE_CONT, t->pid, 0, sig) != 0 || (status = wait_child(t->pid)) < 0)
            return;
    }
}

/* The exception vector of a deadly signal, for the header (SDM vol. 3A table 6-1). */
static uint32_t vector_of(int sig, int code)
{
    switch (sig) {
    case SIGFPE: return 0;
    case SIGTRAP: return 3;
    case SIGILL: return 6;
    case SIGBUS: return 17;
    case SIGSEGV: return code == SI_KERNEL ? 13 : 14;
    default: return 0;
    }
}

/*
 * Linux reports the first PTRACE_SINGLESTEP after the exec stop as soon as
 * execve returns, before the program's first instruction ran: without this,
 * that instruction would be recorded twice (a phantom first record). Steps
 * once and checks that nothing moved; if the kernel did run an instruction
 * (no such trap), it cannot be undone, so that is an error rather than a
 * silently shorter trace. 0, or -1.
 */
static int absorb_exec_trap(pid_t pid)
{
    struct user_regs_struct before, after;
    if (ptrace(PTRACE_GETREGS, pid, 0, &before) != 0 || ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0)
        return -1;
    int status = wait_child(pid);
    if (status < 0 || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP ||
        ptrace(PTRACE_GETREGS, pid, 0, &after) != 0)
        return -1;
    return before.rip == after.rip && before.rsp == after.rsp ? 0 : -1;
}

static int write_header(struct tracer *t, bool fault, uint32_t vector)
{
    uint8_t header[NB_TRACE_HEADER_SIZE];
    mica_capture_file_header(&t->cap, header, t->fs_base, t->gs_base, fault, vector);
    if (fseek(t->out, 0, SEEK_SET) != 0 || fwrite(header, 1, sizeof(header), t->out) != sizeof(header))
        return -1;
    return 0;
}

int mica_ptrace_run(char *const *argv, const char *trace_path, const struct mica_ptrace_options *o,
                    struct mica_ptrace_result *res, char *err, size_t errlen)
{
    struct tracer t = { .mem = -1 };
    bool pushf_before = false, fault = false, at_marker = false;
    uint32_t vector = 0;
    memset(res, 0, sizeof(*res));
    uint8_t *buf = malloc(BUF_BYTES);
    struct mica_seen *seen = calloc(SEEN_ENTRIES, sizeof(*seen));
    int rc = -1;
    if (!buf || !seen) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    t.out = fopen(trace_path, "wb");
    if (!t.out) {
        snprintf(err, errlen, "%s: %s", trace_path, strerror(errno));
        goto out;
    }
    uint8_t zero[NB_TRACE_HEADER_SIZE] = { 0 };
    fwrite(zero, 1, sizeof(zero), t.out); /* the real header once the counts are known */
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    t.pid = fork();
    if (t.pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (t.pid == 0) {
        close(ready[0]);
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0) {
            raise(SIGSTOP);
            execvp(argv[0], argv);
        }
        int e = errno;
        if (write(ready[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(127);
    }
    close(ready[1]);
    int status = wait_child(t.pid);
    if (status < 0 || !WIFSTOPPED(status)) {
        snprintf(err, errlen, "%s: cannot be traced (ptrace: %s)", argv[0], strerror(errno));
        close(ready[0]);
        goto out;
    }
    ptrace(PTRACE_SETOPTIONS, t.pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT);
    ptrace(PTRACE_CONT, t.pid, 0, 0);
    status = wait_child(t.pid);
    int child_errno = 0;
    if (read(ready[0], &child_errno, sizeof(child_errno)) == (ssize_t)sizeof(child_errno) && child_errno) {
        close(ready[0]);
        if (status >= 0 && WIFSTOPPED(status))
            run_to_end(&t, status, res);
        snprintf(err, errlen, "%s: cannot run it: %s", argv[0], strerror(child_errno));
        goto out;
    }
    close(ready[0]);
    if (status < 0 || !WIFSTOPPED(status) || (status >> 16) != PTRACE_EVENT_EXEC) {
        snprintf(err, errlen, "%s: did not stop after exec", argv[0]);
        goto out;
    }
    char mem_path[64];
    snprintf(mem_path, sizeof(mem_path), "/proc/%d/mem", (int)t.pid);
    t.mem = open(mem_path, O_RDWR | O_CLOEXEC);
    if (t.mem < 0) {
        snprintf(err, errlen, "%s: %s", mem_path, strerror(errno));
        goto out;
    }
    mica_capture_begin(&t.cap, buf, BUF_BYTES, seen, SEEN_ENTRIES, 0, 0, o->max_instructions);
    if (o->int3_markers) {
        /* Full speed up to the first INT3. */
        for (;;) {
            ptrace(PTRACE_CONT, t.pid, 0, signal_to_deliver(status));
            status = wait_child(t.pid);
            if (status < 0 || !WIFSTOPPED(status) || (status >> 16) == PTRACE_EVENT_EXIT)
                break;
            if (is_int3_stop(t.pid, status))
                break;
        }
        if (status < 0 || !WIFSTOPPED(status) || (status >> 16) == PTRACE_EVENT_EXIT) {
            res->markers_missing = true;
            if (status >= 0)
                run_to_end(&t, status, res);
            goto finish;
        }
        status = 0; /* the INT3's SIGTRAP is not delivered */
    } else if (absorb_exec_trap(t.pid) < 0) {
        snprintf(err, errlen, "%s: did not step after exec", argv[0]);
        goto out;
    }
    uint64_t last_rip = 0;
    for (;;) {
        struct user_regs_struct u;
        if (ptrace(PTRACE_GETREGS, t.pid, 0, &u) != 0)
            break;
        uint64_t regs[NB_TRACE_NREGS];
        regs_from_user(&u, regs);
        t.fs_base = u.fs_base;
        t.gs_base = u.gs_base;
        last_rip = u.rip;
        if (pushf_before) {
            /* PUSHF stored the TF that ptrace set; the program would have seen it clear. */
            uint16_t low;
            if (pread(t.mem, &low, sizeof(low), (off_t)regs[NB_TRACE_RSP]) == (ssize_t)sizeof(low)) {
                low &= (uint16_t)~RFLAGS_TF;
                if (pwrite(t.mem, &low, sizeof(low), (off_t)regs[NB_TRACE_RSP]) != (ssize_t)sizeof(low))
                    break;
            }
            pushf_before = false;
        }
        uint8_t bytes[NB_TRACE_MAX_INSN_BYTES];
        read_bytes(&t, u.rip, bytes);
        if (o->int3_markers && bytes[0] == INT3) {
            t.cap.end_rip = u.rip; /* the second marker: not traced */
            at_marker = true;
            break;
        }
        if (o->max_instructions && t.cap.count >= o->max_instructions) {
            res->too_long = true;
            t.cap.end_rip = u.rip;
            break;
        }
        if (t.cap.cap - t.cap.len < MICA_CAPTURE_RECORD_MAX + MICA_CAPTURE_END_RECORD_SIZE)
            flush(&t);
        bool is_pushf;
        mica_untraceable(bytes, &is_pushf);
        mica_capture_append(&t.cap, u.rip, regs, bytes);
        pushf_before = is_pushf;
        if (ptrace(PTRACE_SINGLESTEP, t.pid, 0, 0) != 0)
            break;
        status = wait_child(t.pid);
        if (status < 0)
            break;
        if (WIFEXITED(status) || WIFSIGNALED(status))
            break;
        if ((status >> 16) == PTRACE_EVENT_EXIT) {
            /* exit_group: RIP is past the SYSCALL. */
            struct user_regs_struct e;
            if (ptrace(PTRACE_GETREGS, t.pid, 0, &e) == 0)
                last_rip = e.rip;
            t.cap.end_rip = last_rip;
            break;
        }
        int sig;
        while ((sig = signal_to_deliver(status)) != 0) {
            /*
             * The recorded instruction faulted (kept in the trace, as the image
             * keeps it) or a signal arrived before it ran: hand the signal on
             * now, without recording the same state again. Then the handler's
             * first instruction, the instruction itself (signal ignored), or
             * the end (killed) follows. An asynchronous signal that a handler
             * catches leaves one record of an instruction that ran only after
             * the handler (and is recorded again then).
             */
            siginfo_t si;
            memset(&si, 0, sizeof(si));
            ptrace(PTRACE_GETSIGINFO, t.pid, 0, &si);
            vector = vector_of(sig, si.si_code);
            if (ptrace(PTRACE_SINGLESTEP, t.pid, 0, sig) != 0 || (status = wait_child(t.pid)) < 0 ||
                !WIFSTOPPED(status) || (status >> 16) == PTRACE_EVENT_EXIT)
                break;
        }
        if (status < 0 || !WIFSTOPPED(status))
            break;
        if ((status >> 16) == PTRACE_EVENT_EXIT) {
            struct user_regs_struct e;
            t.cap.end_rip = ptrace(PTRACE_GETREGS, t.pid, 0, &e) == 0 ? e.rip : last_rip;
            break;
        }
    }
    if (t.cap.end_rip == 0)
        t.cap.end_rip = last_rip;
    if (status >= 0)
        run_to_end(&t, status, res);
    if (o->int3_markers && !at_marker && !res->too_long && !res->killed)
        res->markers_missing = true;
    fault = res->killed;
    if (fault && !vector)
        vector = vector_of(res->signal, 0);
    if (!fault)
        vector = 0;
finish:
    res->instructions = t.cap.count;
    t.cap.stopped = MICA_STOPPED;
    flush(&t);
    if (t.cap.cap < MICA_CAPTURE_END_RECORD_SIZE || !mica_capture_finish(&t.cap)) {
        snprintf(err, errlen, "%s: cannot end the trace", trace_path);
        goto out;
    }
    flush(&t);
    if (t.write_failed || write_header(&t, fault, vector) != 0 || fflush(t.out) != 0) {
        snprintf(err, errlen, "%s: %s", trace_path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (t.mem >= 0)
        close(t.mem);
    if (t.out && fclose(t.out) != 0 && rc == 0) {
        snprintf(err, errlen, "%s: %s", trace_path, strerror(errno));
        rc = -1;
    }
    free(buf);
    free(seen);
    return rc;
}
