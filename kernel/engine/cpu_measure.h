/*
 * cpu_measure.h — -cpu N: a benchmark's whole measurement on processor N
 * in ONE firmware call there.
 *
 * Every call to another processor is a wake-up of it by the firmware; EDK
 * II's default (HLT mode) wakes an AP with INIT-SIPI-SIPI, which resets its
 * local APIC (LVT timer masked, TPR 0) and may give it the firmware's CR4
 * again (SDM vol. 3A 11.4.7.3, 10.4.3). So instead of one call per counter
 * group (or per MSR), the boot processor prepares everything that needs
 * the firmware: the config files read, the metric file loaded, the code and
 * measurement buffers grown to the largest group's needs, the NMI watcher
 * started elsewhere. Then ONE procedure on N runs counters_measure with a
 * seam local to N (cpu_local.h): every group programmed, generated, run
 * and read there, XSAVE state, DE_CFG and the local APIC checked and the
 * watchdog armed in each measurement (bench_run.c bench_cpu_procedure),
 * everything restored. Its report calls are recorded (nb_report.h
 * report_tape_start) and emitted by the boot processor after the call, in
 * the same order, a fault's or a timeout's lines and everything measured
 * before it included.
 */
#ifndef CPU_MEASURE_H
#define CPU_MEASURE_H

#include "bench_counters.h"
#include "cpu_local.h"

/* Room for the report lines of one benchmark's measurement on N (-verbose dumps included). */
#define CPU_MEASURE_TAPE_BYTES (4u * 1024u * 1024u)

/* What the calls keep from one benchmark to the next (zero it first; cpu_measure_free). */
struct cpu_measure {
    char *tape;           /* CPU_MEASURE_TAPE_BYTES, allocated at the first call */
    struct cpu_local local;
};

/*
 * Measures a benchmark with counters (counters_measure) on processor `cpu`
 * of `base`: env and bench are the ones for that processor (env->p its
 * cpu_platform); on the current processor, or with -debug, counters_measure
 * is called as it is.
 */
void cpu_measure_counters(struct cpu_measure *cm, struct counter_env *env, struct bench_context *bench,
                          const struct bench_options *o, const struct bench_code *code, struct report *r,
                          const struct nb_platform *base, unsigned cpu);
/*
 * The one call itself: fn(N's seam, arg) on processor `cpu` with the seam
 * cm->local (cpu_local_init'd, its files and blocks added, by the caller,
 * who also calls cpu_local_finish after), its report calls recorded on
 * `tape` (in cm's buffer) for the caller to replay (report_tape_replay).
 * NB_OK; NB_ENOMEM (nothing ran: no memory for the tape, nothing
 * recorded), or the firmware's refusal of the call.
 */
int cpu_measure_call(struct cpu_measure *cm, const struct nb_platform *base, unsigned cpu, struct report *r,
                     void (*fn)(const struct nb_platform *local, void *arg), void *arg, struct report_tape *tape);
/* Frees what cm kept (base: the platform it was given). */
void cpu_measure_free(struct cpu_measure *cm, const struct nb_platform *base);

#endif
