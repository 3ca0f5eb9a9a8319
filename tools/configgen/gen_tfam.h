/*
 * gen_tfam — generate the configs of one event-table family: cfg_<NAME>_all.txt
 * (or _all_core.txt + _all_offcore.txt when the offcore-response part is large, as
 * nanoBench splits them) and cfg_<NAME>_common.txt with nanoBench's short names and
 * order from configs/tables/common.txt, then our additions (gen_common.c).
 */
#ifndef GEN_TFAM_H
#define GEN_TFAM_H

#include <stdbool.h>
#include <stddef.h>

/* Offcore-response events in a table from which they get a file of their own. */
#define GEN_OFFCORE_SPLIT 40

struct gen_tfam {
    const char *prefix; /* cfg_<prefix>_*.txt */
    const char *table;  /* configs/tables/<table>.txt */
    const char *alias;  /* older name of the common file, also written, or NULL */
    bool split;         /* _all_core + _all_offcore whatever the offcore count, as
                           nanoBench ships them; the combined _all.txt is written too */
};

struct gen_table;

/*
 * cfg_<prefix>_common.txt from the entries of t (a table, or a libpfm4 PMU's entries
 * wrapped as one): the named section of tables_dir/common.txt (nanoBench's names;
 * the vendor's section when there is none), then our additions.
 */
int gen_tfam_write_common(const char *prefix, const char *section, const struct gen_table *t,
                          const char *tables_dir, const char *out_dir, const char *source,
                          const char *regen, size_t *ncommon);

/* Generate into out_dir from tables_dir; prints one summary line. 0 on success. */
int gen_tfam_generate(const struct gen_tfam *f, const char *tables_dir, const char *out_dir);

#endif /* GEN_TFAM_H */
