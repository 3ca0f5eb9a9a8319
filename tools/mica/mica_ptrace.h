/*
 * mica_ptrace.h — the second capture path of MICA (issue 9): a Linux program
 * run on the host under ptrace, single-stepped (PTRACE_SINGLESTEP), every
 * step written as a record of lib/nb_trace_format.h by the image's own
 * encoder (kernel/mica/mica_capture.c, mica_capture_append). So nb_mica analyses
 * a host program exactly as it analyses an image trace: MICA without Pin.
 *
 * Per step: PTRACE_GETREGS gives RIP, the general registers, RFLAGS (TF as
 * the program sees it: Linux hides the TF it sets for stepping) and the
 * FS/GS bases; the instruction bytes come from /proc/PID/mem. Like the
 * image, a PUSHF's pushed TF is cleared in memory before the next step.
 *
 * What is traced: from the first instruction after exec (the dynamic loader
 * included) to the exit, or, with int3_markers, only what runs between the
 * first two INT3 the program executes (neither INT3 is traced; the program
 * runs at full speed before and after). Only the initial thread is traced.
 * The trace header has one FS and one GS base: the last ones seen.
 */
#ifndef MICA_PTRACE_H
#define MICA_PTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mica_ptrace_options {
    uint64_t max_instructions; /* 0: no limit; reached: the trace stops there, the program runs on */
    bool int3_markers;
};

struct mica_ptrace_result {
    uint64_t instructions;
    bool too_long;        /* max_instructions stopped the trace */
    bool killed;          /* the program died of a signal (the header says "fault") */
    int signal;           /* that signal */
    int exit_status;      /* the program's exit status when it exited */
    bool markers_missing; /* int3_markers: the program ended before its second (or first) INT3 */
};

/*
 * Runs argv[0] (searched in PATH) with argv and writes the trace to
 * trace_path. 0, or -1 with a message in err (the program could not be
 * started or the file written).
 */
int mica_ptrace_run(char *const *argv, const char *trace_path, const struct mica_ptrace_options *o,
                    struct mica_ptrace_result *res, char *err, size_t errlen);

#endif
