/*
 * test_msr_config.c — nanoBench's MSR config format (uncore / RAPL counters
 * read with RDMSR): addresses in every spelling nanoBench accepts, write
 * lists, and bad lines reported with their number and skipped.
 */
#include "nb_test.h"
#include "pmu_msr_config.h"

#include <stdio.h>
#include <string.h>

struct msr_log {
    char text[1024];
};

static void log_error(void *arg, unsigned line, const char *message)
{
    struct msr_log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

NB_TEST(msr_config_readme_example)
{
    /* The nanoBench README's Skylake C-Box example. */
    const char *text = "msr_0xE01=0x20000000.msr_700=0x408F34 msr_706 LLC_LOOKUP_CBO_0\n";
    struct msr_event ev[2];
    struct msr_log log = { "" };
    REQUIRE(msr_config_parse(text, strlen(text), ev, 2, log_error, &log) == 1);
    CHECK_EQ_STR(log.text, "");
    CHECK_EQ_STR(ev[0].name, "LLC_LOOKUP_CBO_0");
    CHECK_EQ_INT(ev[0].n_writes, 2);
    CHECK_EQ_U64(ev[0].write_msr[0], 0xE01);
    CHECK_EQ_U64(ev[0].write_value[0], 0x20000000);
    CHECK_EQ_U64(ev[0].write_msr[1], 0x700);
    CHECK_EQ_U64(ev[0].write_value[1], 0x408F34);
    CHECK_EQ_U64(ev[0].read_msr, 0x706);
}

NB_TEST(msr_config_spellings_and_errors)
{
    const char *text = "# RAPL\n"
                       "msr_611 PKG_ENERGY\n"
                       "msr_0x611h PKG_ENERGY_H\n"
                       "msr_E7=12.msr_E8=0AFh msr_E8 APERF_AFTER_WRITES\n"
                       "msr_zz BAD_ADDRESS\n"
                       "msr_611\n"
                       "msr_E7 msr_E8 EXTRA WORDS\n"
                       "msr_E7=x msr_E8 BAD_VALUE\n"
                       "E7=1 msr_E8 NO_PREFIX\n"
                       "msr_E7=1.msr_E8 msr_E8 NO_VALUE\n";
    struct msr_event ev[16];
    struct msr_log log = { "" };
    size_t n = msr_config_parse(text, strlen(text), ev, 16, log_error, &log);
    REQUIRE(n == 3);
    CHECK_EQ_U64(ev[0].read_msr, 0x611);
    CHECK_EQ_INT(ev[0].n_writes, 0);
    CHECK_EQ_INT(ev[0].line, 2);
    CHECK_EQ_U64(ev[1].read_msr, 0x611);
    CHECK_EQ_U64(ev[2].write_value[0], 12);     /* decimal */
    CHECK_EQ_U64(ev[2].write_value[1], 0xAF);   /* 'h' suffix: hex */
    CHECK_EQ_STR(log.text, "5: bad MSR address in 'msr_zz' (hex)\n"
                           "6: 'msr_611' needs a name\n"
                           "7: unexpected text after the name: 'WORDS'\n"
                           "8: bad MSR value 'x'\n"
                           "9: 'E7' is not of the form msr_ADDRESS\n"
                           "10: 'msr_E8' needs msr_ADDRESS=VALUE\n");
}

NB_TEST(msr_config_limits)
{
    char text[2048] = "";
    /* 11 writes: one more than nanoBench allows. */
    for (int i = 0; i < 11; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%smsr_%x=1", i ? "." : "", 0x700 + i);
    strcat(text, " msr_706 TOO_MANY\n");
    struct msr_event ev[2];
    struct msr_log log = { "" };
    CHECK_EQ_INT(msr_config_parse(text, strlen(text), ev, 2, log_error, &log), 0);
    CHECK_EQ_STR(log.text, "1: more than 10 MSR writes\n");
}
