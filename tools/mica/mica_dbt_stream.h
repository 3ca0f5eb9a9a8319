/*
 * mica_dbt_stream.h — what the QEMU plugin (mica_dbt_plugin.c) writes into
 * its pipe and nb_mica (mica_dbt.c) reads: 64-bit words in host order. The
 * top two bits say what a word is:
 *
 *   LOAD  | vaddr          a load made by the instruction of the last EXEC
 *   STORE | vaddr          a store made by it (a locked read-modify-write
 *                          gives a LOAD and a STORE)
 *   EXEC  | id             the static instruction `id` starts executing
 *   DEF   | len << 32 | id, then vaddr, then 2 words of instruction bytes:
 *                          defines `id` (sent once, before its first EXEC;
 *                          an address whose bytes changed gets a new id)
 *
 *   EXEC  | MICA_DBT_STOP  max=N was reached: nothing more is recorded
 *
 * Guest user-space addresses are below 2^57, so they fit in 62 bits. The
 * end of the program is the end of the pipe.
 */
#ifndef MICA_DBT_STREAM_H
#define MICA_DBT_STREAM_H

#include <stdint.h>

#define MICA_DBT_TAG_SHIFT 62
#define MICA_DBT_LOAD (0ull << MICA_DBT_TAG_SHIFT)
#define MICA_DBT_STORE (1ull << MICA_DBT_TAG_SHIFT)
#define MICA_DBT_DEF (2ull << MICA_DBT_TAG_SHIFT)
#define MICA_DBT_EXEC (3ull << MICA_DBT_TAG_SHIFT)
#define MICA_DBT_TAG_MASK (3ull << MICA_DBT_TAG_SHIFT)
#define MICA_DBT_ADDR_MASK ((1ull << MICA_DBT_TAG_SHIFT) - 1)
#define MICA_DBT_DEF_WORDS 4
#define MICA_DBT_MAX_BYTES 16
#define MICA_DBT_STOP 0xffffffffull

#endif
