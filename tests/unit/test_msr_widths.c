/*
 * test_msr_widths.c — -msr_config counters narrower than 64 bits: the width of
 * the known RAPL, client-uncore and AMD L3 counters (SDM vol. 4 / Linux rapl.c,
 * uncore_snb.c, amd/uncore.c), a width given in the line, and deltas taken
 * modulo 2^width across a wrap.
 */
#include "bench_stats.h"
#include "nb_test.h"
#include "pmu_msr_config.h"

#include <stdio.h>
#include <string.h>

struct log {
    char text[512];
};

static void log_error(void *arg, unsigned line, const char *message)
{
    struct log *log = arg;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof(log->text) - n, "%u: %s\n", line, message);
}

NB_TEST(msr_widths_of_known_counters)
{
    /* Intel RAPL energy status: bits 31:0 (SDM vol. 3B 15.10.3, vol. 4). */
    CHECK_EQ_INT(msr_counter_width(0x611), 32); /* MSR_PKG_ENERGY_STATUS */
    CHECK_EQ_INT(msr_counter_width(0x619), 32); /* MSR_DRAM_ENERGY_STATUS */
    CHECK_EQ_INT(msr_counter_width(0x639), 32); /* MSR_PP0_ENERGY_STATUS */
    CHECK_EQ_INT(msr_counter_width(0x641), 32); /* MSR_PP1_ENERGY_STATUS */
    CHECK_EQ_INT(msr_counter_width(0x64D), 32); /* MSR_PLATFORM_ENERGY_STATUS */
    /* AMD CORE_ENERGY_STAT / PKG_ENERGY_STAT: 32 bits (PPR; Linux RAPL_CNTR_WIDTH). */
    CHECK_EQ_INT(msr_counter_width(0xC001029A), 32);
    CHECK_EQ_INT(msr_counter_width(0xC001029B), 32);
    /* Client uncore (Sandy Bridge to Comet Lake): CBo and ARB counters 44, clock 48. */
    CHECK_EQ_INT(msr_counter_width(0x706), 44);
    CHECK_EQ_INT(msr_counter_width(0x707), 44);
    CHECK_EQ_INT(msr_counter_width(0x736), 44);
    CHECK_EQ_INT(msr_counter_width(0x737), 44);
    CHECK_EQ_INT(msr_counter_width(0x3B0), 44);
    CHECK_EQ_INT(msr_counter_width(0x3B1), 44);
    CHECK_EQ_INT(msr_counter_width(0x395), 48);
    /* AMD L3 counters ChL3Pmc C001_0231H + 2n: 48 bits. */
    CHECK_EQ_INT(msr_counter_width(0xC0010231), 48);
    CHECK_EQ_INT(msr_counter_width(0xC001023B), 48);
    /* Control registers and 64-bit counters: 0 (all 64). */
    CHECK_EQ_INT(msr_counter_width(0x700), 0);
    CHECK_EQ_INT(msr_counter_width(0xC0010230), 0);
    CHECK_EQ_INT(msr_counter_width(0xE8), 0); /* IA32_APERF */
    CHECK_EQ_INT(msr_counter_width(0x10), 0);
}

NB_TEST(msr_widths_from_the_config_line)
{
    const char *text = "msr_611 PKG\n"
                       "msr_0xE01=0x2000001F.msr_0x700=0x408F34 msr_0x706 CBO_0\n"
                       "msr_E8 APERF\n"
                       "msr_0x2008:44 ADL_CBO_0\n"
                       "msr_611h:64 PKG_AS_64\n"
                       "msr_611:0 ZERO\n"
                       "msr_611:65 WIDE\n"
                       "msr_611: EMPTY\n";
    struct msr_event ev[8];
    struct log log = { "" };
    size_t n = msr_config_parse(text, strlen(text), ev, 8, log_error, &log);
    CHECK_EQ_STR(log.text, "6: bad counter width in 'msr_611:0' (1..64 bits)\n"
                           "7: bad counter width in 'msr_611:65' (1..64 bits)\n"
                           "8: bad counter width in 'msr_611:' (1..64 bits)\n");
    REQUIRE(n == 5);
    CHECK_EQ_INT(ev[0].width, 32);
    CHECK_EQ_INT(ev[1].width, 44);
    CHECK_EQ_U64(ev[1].read_msr, 0x706);
    CHECK_EQ_INT(ev[2].width, 0);
    CHECK_EQ_INT(ev[3].width, 44);
    CHECK_EQ_U64(ev[3].read_msr, 0x2008);
    CHECK_EQ_INT(ev[4].width, 64);
    CHECK_EQ_U64(ev[4].read_msr, 0x611);
}

NB_TEST(msr_widths_take_deltas_modulo_the_width)
{
    /* A 32-bit energy counter that wrapped: 0xFFFFFFF0 -> 0x10 is 0x20 units. */
    CHECK_EQ_U64(stats_counter_delta(0xFFFFFFF0ull, 0x10ull, 32), 0x20);
    /* Read as 64 bits it would be a huge negative number. */
    CHECK(stats_counter_delta(0xFFFFFFF0ull, 0x10ull, 0) < 0);
    /* 44-bit uncore counter. */
    CHECK_EQ_U64(stats_counter_delta(0xFFFFFFFFFFFull, 5, 44), 6);
    CHECK_EQ_U64(stats_counter_delta(0xFFFFFFFFFFFFull, 5, 48), 6);
}
