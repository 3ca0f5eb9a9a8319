/*
 * bench_fault.c — exception descriptions (see bench_fault.h).
 */
#include "bench_fault.h"
#include "nb_text.h"

static const char *const VECTOR_NAMES[CODEGEN_IDT_VECTORS] = {
    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#CSO", "#TS",
    "#NP", "#SS", "#GP", "#PF", "#15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
    "#22", "#23", "#24", "#25", "#26", "#27", "#HV", "#VC", "#SX", "#31",
};

const char *fault_vector_name(unsigned vector)
{
    return vector < CODEGEN_IDT_VECTORS ? VECTOR_NAMES[vector] : "?";
}

/* Vectors that push an error code worth showing. */
static bool has_error_code(unsigned v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

static bool inside(uintptr_t rip, uintptr_t start, size_t len)
{
    return len > 0 && rip >= start && rip < start + len;
}

void fault_describe(char *buf, size_t cap, const struct codegen_data *data,
                    const struct codegen_layout *layout, const char *run)
{
    unsigned v = (unsigned)data->fault_vector;
    uintptr_t rip = (uintptr_t)data->fault_rip;
    /* #BP and #OF are traps: the saved RIP is after INT3 / INTO (one byte each). */
    if (v == 3 || v == 4)
        rip--;
    char what[48], where[96], extra[48] = "";
    if (has_error_code(v))
        nb_snprintf(what, sizeof(what), "%s(0x%llx)", fault_vector_name(v),
                    (unsigned long long)data->fault_error);
    else
        nb_snprintf(what, sizeof(what), "%s", fault_vector_name(v));
    if (v == 14)
        nb_snprintf(extra, sizeof(extra), ", address 0x%llx", (unsigned long long)data->fault_cr2);

    size_t main_len = layout->len[PART_MAIN];
    size_t copies_len = main_len * (size_t)layout->copies;
    if (inside(rip, layout->start[PART_MAIN], copies_len)) {
        size_t off = rip - layout->start[PART_MAIN];
        nb_snprintf(where, sizeof(where), "main code+0x%llx (copy %llu of %lld, %s)",
                    (unsigned long long)(off % main_len), (unsigned long long)(off / main_len + 1),
                    (long long)layout->copies, run);
    } else {
        where[0] = '\0';
        static const enum code_part others[] = { PART_ONE_TIME_INIT, PART_INIT, PART_LATE_INIT };
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
            enum code_part part = others[i];
            if (inside(rip, layout->start[part], layout->len[part]))
                nb_snprintf(where, sizeof(where), "%s code+0x%llx (%s)", code_part_name(part),
                            (unsigned long long)(rip - layout->start[part]), run);
        }
        if (!where[0] && rip >= layout->code_start && rip < layout->code_end)
            nb_snprintf(where, sizeof(where), "the generated code around the benchmark (+0x%llx, %s; "
                        "a counter read or the register setup)",
                        (unsigned long long)(rip - layout->code_start), run);
        else if (!where[0])
            nb_snprintf(where, sizeof(where), "0x%llx, outside the benchmark's code (%s)",
                        (unsigned long long)rip, run);
    }
    nb_snprintf(buf, cap, "%s at %s%s", what, where, extra);
}
