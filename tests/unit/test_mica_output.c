/*
 * test_mica_output.c — what nb_mica writes from a run: CSV rows with the
 * issue's event names, the report lines, and MICA's own files (names, line
 * layout, trailer), checked on the E1/E3 records of MICA-SPEC §13.
 */
#include "nb_test.h"

#include "mica_output.h"
#include "mica_record.h"
#include "mica_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct mica_run *e1_run(const char *list, uint64_t interval)
{
    struct mica_options o;
    char err[200];
    mica_options_default(&o);
    if (mica_options_set_list(&o, list, err, sizeof(err)) != 0)
        return NULL;
    o.interval = interval;
    struct mica_run *r = mica_run_new(&o);
    for (unsigned i = 0; i < 1000; i++) {
        struct mica_rec x;
        memset(&x, 0, sizeof(x));
        x.pc = 0x400000 + 5 * i;
        x.len = 5;
        x.category = MICA_CAT_DATAXFER;
        x.iclass = "MOV";
        x.n_reg_operands = 1;
        x.counts_hpc = true;
        x.regs_written[x.n_regs_written++] = 1;
        mica_run_record(r, &x);
    }
    mica_run_finish(r);
    return r;
}

/* Everything f received, as a string (caller frees). */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = 0;
    fclose(f);
    return s;
}

NB_TEST(mica_output_csv)
{
    struct mica_run *full = e1_run("all", 0), *phases = e1_run("all", 400);
    REQUIRE(full && phases);
    FILE *f = tmpfile();
    mica_csv_rows(f, "e1", full, phases);
    char *s = slurp(f);
    CHECK(strstr(s, "e1,mica.itypes.instructions,1000\n") != NULL);
    CHECK(strstr(s, "e1,mica.itypes.arith,1000\n") != NULL);
    CHECK(strstr(s, "e1,mica.itypes.other,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.ilp.cycles_32,31\n") != NULL);
    CHECK(strstr(s, "e1,mica.ilp.cycles_256,3\n") != NULL);
    CHECK(strstr(s, "e1,mica.reg.values,999\n") != NULL);
    CHECK(strstr(s, "e1,mica.reg.age_le_64,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.stride.read_local_le_262144,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.stride.write_global_le_0,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.memfootprint.instr_blocks,79\n") != NULL);
    CHECK(strstr(s, "e1,mica.memstackdist.b18,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.fullmemstackdist.cold,0\n") != NULL);
    /* Every distance d0 ... d2048 on every run and interval, zero or not, so
     * every benchmark and interval has the same events (issue 23). */
    CHECK(strstr(s, "e1,mica.fullmemstackdist.d0,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.fullmemstackdist.d2048,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.fullmemstackdist.d2048.3,0\n") != NULL);
    size_t full_rows = 0;
    for (const char *p = s; (p = strstr(p, ",mica.fullmemstackdist.")) != NULL; p++)
        full_rows++;
    CHECK_EQ_INT(full_rows, 4 * 2051); /* whole run + 3 intervals, 2 + 2049 fields each */
    CHECK(strstr(s, "e1,mica.ppm.GAg_12,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.ppm.PAs_4,0\n") != NULL);
    CHECK(strstr(s, "e1,mica.ppm.taken,0\n") != NULL);
    /* Intervals: the same rows with .k appended, k from 1. */
    CHECK(strstr(s, "e1,mica.itypes.instructions.1,400\n") != NULL);
    CHECK(strstr(s, "e1,mica.itypes.instructions.3,200\n") != NULL);
    CHECK(strstr(s, "e1,mica.ilp.cycles_32.2,12\n") != NULL);
    CHECK(strstr(s, "e1,mica.memfootprint.instr_pages.3,2\n") != NULL);
    CHECK(strstr(s, ".4,") == NULL);
    free(s);
    f = tmpfile();
    mica_report(f, full);
    s = slurp(f);
    CHECK(strstr(s, "MICA itypes: 1000 0 0 0 1000 0 0 0 0 0 0 0 0\n") != NULL);
    CHECK(strstr(s, "MICA ilp: 1000 31 15 7 3\n") != NULL);
    CHECK(strstr(s, "ILP W32 32.26 W64 66.67 W128 142.86 W256 333.33") != NULL);
    free(s);
    mica_run_free(full);
    mica_run_free(phases);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("(missing)");
    fseek(f, 0, SEEK_END);
    return slurp(f);
}

NB_TEST(mica_output_files)
{
    char dir[] = "/tmp/mica_files_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    struct mica_run *phases = e1_run("itypes,ilp,fullmemstackdist", 400);
    char err[200], path[300];
    REQUIRE(mica_write_files(dir, phases, err, sizeof(err)) == 0);
    snprintf(path, sizeof(path), "%s/itypes_phases_int_pin.out", dir);
    char *s = read_file(path);
    CHECK_EQ_STR(s, "400 0 0 0 400 0 0 0 0 0 0 0 0\n400 0 0 0 400 0 0 0 0 0 0 0 0\n"
                    "200 0 0 0 200 0 0 0 0 0 0 0 0\nnumber of instructions: 1000\n");
    free(s);
    snprintf(path, sizeof(path), "%s/ilp_phases_int_pin.out", dir);
    s = read_file(path);
    CHECK_EQ_STR(s, "400 6 3 1 0\n400 12 6 3 2\n200 13 6 3 1\nnumber of instructions: 1000\n");
    free(s);
    snprintf(path, sizeof(path), "%s/fullmemstackdist_phases_int_pin.out", dir);
    s = read_file(path);
    CHECK(strncmp(s, "0 0\n 0 0 0", 10) == 0);
    free(s);
    snprintf(path, sizeof(path), "%s/itypes_other_group_categories.txt", dir);
    s = read_file(path);
    CHECK_EQ_STR(s, "");
    free(s);
    mica_run_free(phases);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}
