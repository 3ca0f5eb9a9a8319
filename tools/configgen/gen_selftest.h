/*
 * gen_selftest — built-in checks of the config generator's encoding and grammar code
 * (`gen_configs selftest`), so `make gen-configs-check` tests it without a PMU.
 */
#ifndef GEN_SELFTEST_H
#define GEN_SELFTEST_H

/* Run every check; prints "N passed, M failed" and returns 0 when all pass. */
int gen_selftest(void);

#endif /* GEN_SELFTEST_H */
