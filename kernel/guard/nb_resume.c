/*
 * nb_resume.c — the state file that lets a run continue after a reset (see nb_resume.h).
 */
#include "nb_resume.h"
#include "nb_text.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define STATE_MAX 512

uint64_t resume_hash(const void *data, size_t len)
{
    const uint8_t *b = data;
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* Finds "key value" on its own line and parses the value (decimal or 0x-hex). */
static bool field(const char *text, const char *key, uint64_t *out)
{
    size_t klen = nb_strlen(key);
    for (const char *line = text; line && *line;) {
        if (nb_strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            char value[24];
            size_t n = 0;
            for (const char *v = line + klen + 1; *v && *v != '\n' && n + 1 < sizeof(value); v++)
                value[n++] = *v;
            value[n] = '\0';
            int64_t signed_value;
            if (nb_starts_with(value, "0x"))
                return nb_parse_hex_u64(value, out);
            if (!nb_parse_i64(value, &signed_value) || signed_value < 0)
                return false;
            *out = (uint64_t)signed_value;
            return true;
        }
        while (*line && *line != '\n')
            line++;
        if (*line)
            line++;
    }
    return false;
}

bool resume_read(const struct nb_platform *p, struct resume_state *st)
{
    void *data;
    size_t size;
    if (p->read_file(p->ctx, NB_STATE_PATH, &data, &size) != NB_OK)
        return false;
    char text[STATE_MAX + 1];
    size_t n = size < STATE_MAX ? size : STATE_MAX;
    nb_memcpy(text, data, n);
    text[n] = '\0';
    p->free_file(p->ctx, data, size);
    uint64_t run, hash, next, benchmarks, errors, done;
    if (!nb_starts_with(text, "nanobench-state 1\n") || !field(text, "run", &run) ||
        !field(text, "suite", &hash) || !field(text, "next", &next) ||
        !field(text, "benchmarks", &benchmarks) || !field(text, "errors", &errors) ||
        !field(text, "done", &done) || run == 0 || run > 9999)
        return false;
    st->run = (unsigned)run;
    st->suite_hash = hash;
    st->next = (size_t)next;
    st->n_benchmarks = (unsigned)benchmarks;
    st->n_errors = (unsigned)errors;
    st->done = done != 0;
    /* Optional (states written before the durability window): safe mode, sizes unknown. */
    uint64_t batched = 0;
    st->batched = field(text, "batched", &batched) && batched != 0;
    if (!field(text, "txt", &st->txt_size))
        st->txt_size = ~0ull;
    if (!field(text, "csv", &st->csv_size))
        st->csv_size = ~0ull;
    return true;
}

int resume_write(const struct nb_platform *p, const struct resume_state *st)
{
    char text[STATE_MAX];
    size_t n = nb_snprintf(text, sizeof(text),
                           "nanobench-state 1\nrun %u\nsuite 0x%llx\nnext %llu\nbenchmarks %u\n"
                           "errors %u\ndone %u\nbatched %u\ntxt %llu\ncsv %llu\n",
                           st->run, (unsigned long long)st->suite_hash,
                           (unsigned long long)st->next, st->n_benchmarks, st->n_errors,
                           st->done ? 1u : 0u, st->batched ? 1u : 0u,
                           (unsigned long long)st->txt_size, (unsigned long long)st->csv_size);
    struct nb_file *f;
    int rc = p->create_file(p->ctx, NB_STATE_PATH, &f);
    if (rc != NB_OK)
        return rc;
    rc = p->write_file(p->ctx, f, text, n);
    if (rc == NB_OK)
        rc = p->flush_file(p->ctx, f);
    p->close_file(p->ctx, f);
    return rc;
}
