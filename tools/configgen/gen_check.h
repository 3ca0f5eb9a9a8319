/*
 * gen_check — `gen_configs check DIR`: the generated configs against the facts.
 *
 * Known values: configs/tables/known.txt lists events with the encoding the vendor's
 * file gives them (written out separately from the converter); each must appear with
 * exactly that encoding in cfg_<PREFIX>_all*.txt. Constraints: every event line of
 * every file of a table family carries the counter set its table gives it (.CTR), and
 * no other.
 */
#ifndef GEN_CHECK_H
#define GEN_CHECK_H

/* Both return the number of problems, each reported on stderr. */
int gen_check_known(const char *known_path, const char *dir);
int gen_check_constraints(const char *prefix, const char *table_path, const char *dir);

/*
 * Every CPU line of dir/cpu_map.txt, looked up through the image's own code
 * (pmu/pmu_config_map.c) as a P-core and as an E-core: an exact match naming that
 * line's config, and the config exists in dir.
 */
int gen_check_cpu_map(const char *dir);

/* Every msr_*.txt of dir parses with the image's parser (pmu/pmu_msr_config.c), no
 * line rejected, at least one event each. */
int gen_check_msr(const char *dir, const char *const *names, int count);

#endif /* GEN_CHECK_H */
