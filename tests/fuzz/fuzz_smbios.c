/*
 * fuzz_smbios.c — libFuzzer target for the SMBIOS structure parser
 * (kernel/platform/smbios.h): the table comes from the firmware of whatever machine
 * the stick boots, so a malformed one must not make the image read past it.
 *
 * Input: the whole input is the structure table, in a heap block of exactly
 * that size (ASan catches a read past the end).
 *
 * Invariants (a failure traps): every string is NUL-terminated inside its
 * field and printable ASCII; at most SMBIOS_MAX_MEMORY_DEVICES devices.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "smbios.h"

static void check_text(const char *s)
{
    size_t n = strnlen(s, SMBIOS_TEXT_MAX);
    FUZZ_CHECK(n < SMBIOS_TEXT_MAX);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7F);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *table = malloc(size ? size : 1);
    if (!table)
        return 0;
    memcpy(table, data, size);
    struct smbios_facts f;
    smbios_parse(table, size, &f);
    check_text(f.bios_vendor);
    check_text(f.bios_version);
    check_text(f.bios_date);
    check_text(f.system_manufacturer);
    check_text(f.system_product);
    check_text(f.board_manufacturer);
    check_text(f.board_product);
    FUZZ_CHECK(f.n_memory <= SMBIOS_MAX_MEMORY_DEVICES);
    for (unsigned i = 0; i < f.n_memory; i++)
        smbios_memory_type_name(f.memory[i].type);
    free(table);
    return 0;
}
