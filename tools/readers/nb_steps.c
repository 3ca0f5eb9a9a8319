/*
 * nb_steps — lists a -debug_trace file (run-NNNN-<benchmark>-steps.trace):
 * every executed instruction with its bytes, disassembly, the registers it
 * changed and the memory it wrote (tools/readers/steps_list.h).
 *
 *   nb_steps TRACE [-csv FILE]
 *
 * Exit status: 0, 1 for an unreadable or damaged trace, 2 for bad usage.
 */
#include "host_file.h"
#include "steps_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *trace = NULL, *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else if (argv[i][0] != '-' && !trace)
            trace = argv[i];
        else {
            fprintf(stderr, "usage: nb_steps TRACE [-csv FILE]\n");
            return 2;
        }
    }
    if (!trace) {
        fprintf(stderr, "usage: nb_steps TRACE [-csv FILE]\n");
        return 2;
    }
    size_t size;
    char *buf = host_read_file(trace, &size);
    if (!buf) {
        fprintf(stderr, "nb_steps: cannot read %s\n", trace);
        return 1;
    }
    FILE *csv = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "nb_steps: cannot write %s\n", csv_path);
        return 1;
    }
    char err[300];
    uint64_t steps;
    int rc = steps_list(trace, (const uint8_t *)buf, size, stdout, csv, &steps, err, sizeof(err));
    if (csv)
        fclose(csv);
    free(buf);
    if (rc < 0) {
        fprintf(stderr, "nb_steps: %s\n", err);
        return 1;
    }
    return 0;
}
