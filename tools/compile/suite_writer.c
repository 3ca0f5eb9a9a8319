/*
 * suite_writer.c — canonical compiled-suite lines (see suite_writer.h).
 */
#include "suite_writer.h"

static const char *aggregate_option(enum aggregate a)
{
    switch (a) {
    case AGG_MEDIAN: return " -median";
    case AGG_MIN: return " -min";
    case AGG_MAX: return " -max";
    default: return " -avg";
    }
}

void suite_write_benchmark(FILE *f, const char *name, const struct bench_options *o,
                           const char *const code_paths[PART_COUNT], const char *config_path,
                           const char *msr_config_path)
{
    fprintf(f, "%s:", name);
    for (int part = 0; part < PART_COUNT; part++) {
        if (code_paths[part])
            fprintf(f, " %s %s", code_part_code_option((enum code_part)part), code_paths[part]);
    }
    fprintf(f,
            " -n_measurements %lld -unroll_count %lld -loop_count %lld -warm_up_count %lld"
            " -initial_warm_up_count %lld -alignment_offset %lld%s",
            (long long)o->n_measurements, (long long)o->unroll_count, (long long)o->loop_count,
            (long long)o->warm_up_count, (long long)o->initial_warm_up_count,
            (long long)o->alignment_offset, aggregate_option(o->aggregate));
    if (o->basic_mode)
        fprintf(f, " -basic_mode");
    if (o->no_normalization)
        fprintf(f, " -no_normalization");
    if (o->drain_frontend)
        fprintf(f, " -df");
    if (o->verbose)
        fprintf(f, " -verbose");
    if (o->range)
        fprintf(f, " -range");
    if (config_path)
        fprintf(f, " -config %s", config_path);
    if (msr_config_path)
        fprintf(f, " -msr_config %s", msr_config_path);
    if (o->fixed_counters)
        fprintf(f, " -fixed_counters");
    if (o->metrics)
        fprintf(f, " -metrics %s", o->metrics);
    if (o->no_mem)
        fprintf(f, " -no_mem");
    if (o->calibrate)
        fprintf(f, " -calibrate");
    if (o->timeout != OPT_TIMEOUT_DEFAULT)
        fprintf(f, " -timeout %lld", (long long)o->timeout);
    if (o->cpu >= 0)
        fprintf(f, " -cpu %lld", (long long)o->cpu);
    if (o->remove_empty_events)
        fprintf(f, " -remove_empty_events");
    if (o->lava_results)
        fprintf(f, " -lava_results");
    static const char *const area_options[5] = { "-r14_size", "-rdi_size", "-rsi_size", "-rbp_size",
                                                 "-rsp_size" };
    for (int a = 0; a < 5; a++)
        if (o->area_size[a])
            fprintf(f, " %s %lld", area_options[a], (long long)o->area_size[a]);
    for (unsigned i = 0; i < o->n_expect; i++) {
        /* Double quotes group the words; \" and \\ inside them (suite.h). */
        fputs(" -expect \"", f);
        for (const char *c = o->expect[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                fputc('\\', f);
            fputc(*c, f);
        }
        fputc('"', f);
    }
    if (o->expect_restore)
        fprintf(f, " -expect_restore");
    if (o->mica)
        fprintf(f, " -mica %s", o->mica);
    if (o->mica_max_instructions != OPT_MICA_MAX_INSTRUCTIONS_DEFAULT)
        fprintf(f, " -mica_max_instructions %lld", (long long)o->mica_max_instructions);
    if (o->cycle_by_cycle)
        fprintf(f, " -cycle_by_cycle");
    if (o->end_to_end)
        fprintf(f, " -end_to_end");
    /* -debug block */
    if (o->debug)
        fprintf(f, " -debug_at %lld:%s:%lld", (long long)o->debug_group, o->debug_run ? "main" : "base",
                (long long)o->debug_index);
    if (o->debug_trace)
        fprintf(f, " -debug_trace");
    if (o->debug_gdb)
        fprintf(f, " -debug_gdb");
    if (o->debug_port != OPT_DEBUG_PORT_DEFAULT)
        fprintf(f, " -debug_port 0x%llx", (long long)o->debug_port);
    if (o->debug_wait != OPT_DEBUG_WAIT_DEFAULT)
        fprintf(f, " -debug_wait %lld", (long long)o->debug_wait);
    if (o->debug_max_instructions != OPT_DEBUG_MAX_INSTRUCTIONS_DEFAULT)
        fprintf(f, " -debug_max_instructions %lld", (long long)o->debug_max_instructions);
    if (o->qemu_icount >= 0)
        fprintf(f, " -qemu_icount %lld", (long long)o->qemu_icount);
    fprintf(f, "\n");
}
