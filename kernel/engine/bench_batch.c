/*
 * bench_batch.c — the measurement loop (see bench_batch.h).
 */
#include "bench_batch.h"
#include "bench_stats.h"
#include "debug_code.h"

bool run_batch_faulted(const struct codegen_data *data)
{
    return data->fault_happened != 0;
}

void run_batch_execute(void *arg)
{
    struct run_batch *b = arg;
    int64_t retries = b->n;
    for (int64_t i = -b->warm_up; i < b->n;) {
        bool stop = b->debug_slot && i == b->debug_index;
        uint64_t stops = b->debug_stops ? *b->debug_stops : 0;
        if (stop)
            *b->debug_slot = DEBUG_INT3;
        if (b->fake_run)
            b->fake_run(b->fake_arg, b->data, b->reads, b->first + b->n_reads, b->copies);
        else
            b->fn();
        if (stop) {
            *b->debug_slot = DEBUG_SLOT_NOP;
            b->debug_slot = NULL;
        }
        if (stop || (b->debug_stops && *b->debug_stops != stops)) {
            /* The readings include the stop: this execution runs again without it. */
            if (run_batch_faulted(b->data))
                return;
            continue;
        }
        if (run_batch_faulted(b->data))
            return;
        /* Slot 0 brackets everything else: an SMI stole time from this measurement. */
        if (i >= 0 && b->smi_check && b->data->m2[0] != b->data->m1[0]) {
            if (retries-- > 0) {
                b->smi_repeated++;
                continue;
            }
            b->smi_kept++;
        }
        if (i >= 0 && b->values) {
            for (size_t k = 0; k < b->n_reads; k++) {
                size_t s = b->first + k;
                unsigned width = b->reads ? b->reads[s].width : 0;
                b->values[k][i] = stats_counter_delta(b->data->m1[s], b->data->m2[s], width);
                if (b->reads && b->reads[s].metric) {
                    /* An IA32_PERF_METRICS field: slots x field / 0xFF at each read (counter_read.h). */
                    size_t t = b->first + b->reads[s].metric_slots;
                    unsigned field = b->reads[s].metric - 1u;
                    b->values[k][i] = (int64_t)(counter_metric_slots(b->data->m2[t], b->data->m2[s], field) -
                                                counter_metric_slots(b->data->m1[t], b->data->m1[s], field));
                }
            }
        }
        i++;
    }
}
