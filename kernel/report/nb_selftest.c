/*
 * nb_selftest.c — check lines and the selftest summary (see nb_selftest.h).
 */
#include "nb_selftest.h"
#include "nb_text.h"
#include "pmu_restore_check.h"

#define RESTORE_CHECK_NAME "counter restore"

static void on_value(void *arg, const char *event, const char *value)
{
    struct nb_selftest *t = arg;
    expect_values_add(&t->values, event, value);
}

static void on_error(void *arg, const char *message)
{
    struct nb_selftest *t = arg;
    expect_values_error(&t->values, message);
}

void nb_selftest_init(struct nb_selftest *t, struct report *r)
{
    nb_memset(t, 0, sizeof(*t));
    r->on_value = on_value;
    r->on_error = on_error;
    r->observer_arg = t;
}

void nb_selftest_begin(struct nb_selftest *t)
{
    expect_values_reset(&t->values);
}

/* "configs/cfg_Skylake_common.txt" -> "Skylake" (the name cpu_map.txt gave this CPU). */
static void uarch_of(const char *config, char *out, size_t cap)
{
    out[0] = '\0';
    const char *start = config;
    for (const char *c = config; *c; c++) {
        if (nb_starts_with(c, "cfg_"))
            start = c + 4;
    }
    const char *end = NULL;
    for (const char *c = start; *c; c++) {
        if (*c == '_')
            end = c;
    }
    if (start == config || !end || (size_t)(end - start) >= cap)
        return;
    nb_memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
}

void nb_selftest_check(struct nb_selftest *t, struct report *r, const char *benchmark,
                       const struct bench_options *o, const struct nb_selftest_machine *m)
{
    if (o->expect_restore) {
        t->expect_restore = true;
        t->any_check = true;
    }
    char uarch[EXPECT_NAME_LEN];
    uarch_of(m->default_config ? m->default_config : "", uarch, sizeof(uarch));
    struct expect_facts facts = { &t->values, m->pmu_usable, m->no_pmu_why, m->tsc_invariant,
                                  o->qemu_icount, m->n_cpus, o->cpu, uarch };
    for (unsigned i = 0; i < o->n_expect; i++) {
        struct expectation e;
        char line[EXPECT_LINE_MAX], event[EXPECT_NAME_LEN];
        t->any_check = true;
        if (!expect_parse(o->expect[i], &e, line, sizeof(line))) {
            /* The option parser already refused this; never pass a check we cannot read. */
            report_line(r, "check: FAIL %s: -expect \"%s\": %s", benchmark, o->expect[i], line);
            report_lava_check(r, "unreadable", "fail");
            selftest_add(&t->tally, CHECK_FAIL, benchmark, "-expect");
            continue;
        }
        enum check_status st = expect_evaluate(&e, &facts, benchmark, line, sizeof(line), event,
                                               sizeof(event));
        report_line(r, "check: %s", line);
        report_lava_check(r, event, st == CHECK_PASS ? "pass" : st == CHECK_FAIL ? "fail" : "skip");
        selftest_add(&t->tally, st, benchmark, event);
    }
}

void nb_selftest_finish(struct nb_selftest *t, struct report *r, const struct pmu_session *saved,
                        const char *why)
{
    if (!t->any_check)
        return;
    if (t->expect_restore) {
        struct pmu_restore_result res;
        enum check_status st;
        if (!saved) {
            report_line(r, "check: SKIPPED " RESTORE_CHECK_NAME ": no PMU (%s)", why);
            st = CHECK_SKIPPED;
        } else if (pmu_restore_check(saved, &res)) {
            report_line(r, "check: PASS " RESTORE_CHECK_NAME ": %u MSRs read back as found%s", res.n_checked,
                        res.n_running ? " (counters still counting in the restored state not compared)" : "");
            st = CHECK_PASS;
        } else {
            report_line(r, "check: FAIL " RESTORE_CHECK_NAME ": %u of %u MSRs differ after the restore; "
                           "first: %s", res.n_mismatch, res.n_checked, res.first);
            st = CHECK_FAIL;
        }
        selftest_add(&t->tally, st, "suite", RESTORE_CHECK_NAME);
    }
    char line[EXPECT_LINE_MAX + SELFTEST_FAILED_MAX];
    selftest_summary(&t->tally, line, sizeof(line));
    report_line(r, "%s", line);
}
