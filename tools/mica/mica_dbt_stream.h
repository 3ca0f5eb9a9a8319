/*
 * mica_dbt_stream.h — what the QEMU plugin (mica_dbt_plugin.c) writes and
 * nb_mica (mica_dbt.c) reads: a ring of 64-bit words in a shared memory
 * file (memfd) that nb_mica creates and QEMU inherits (fd=N). The plugin
 * writes every word straight into the ring and publishes it at once, so a
 * program killed by a signal (QEMU then runs no exit callback) loses
 * nothing. The top two bits say what a word is:
 *
 *   LOAD  | vaddr          a load made by the instruction of the last EXEC
 *   STORE | vaddr          a store made by it (a locked read-modify-write
 *                          gives a LOAD and a STORE)
 *   EXEC  | id             the static instruction `id` starts executing
 *   DEF   | len << 32 | id, then vaddr, then 2 words of instruction bytes:
 *                          defines `id` (sent once, before its first EXEC;
 *                          an address whose bytes changed gets a new id)
 *
 *   EXEC  | MICA_DBT_STOP, then vaddr
 *                          max=N was reached: nothing more is recorded;
 *                          vaddr is the instruction that was about to run
 *
 * Guest user-space addresses are below 2^57, so they fit in 62 bits. The
 * end of the program is the end of the QEMU process.
 *
 * The ring: a header page, then size_words words. head counts the words
 * written (only the plugin stores it), tail the words consumed (only
 * nb_mica stores it); word k lives at k % size_words. Each side waits
 * (briefly sleeping) while the ring is full or empty.
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

struct mica_dbt_ring {
    _Alignas(64) uint64_t head;
    _Alignas(64) uint64_t tail;
    _Alignas(64) uint64_t size_words;   /* a power of two */
};

#define MICA_DBT_RING_HEADER 4096
#define MICA_DBT_RING_WORDS (1u << 21)  /* 16 MiB */

#endif
