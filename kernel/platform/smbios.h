/*
 * smbios.h — the facts the platform report takes from the SMBIOS structure
 * table (DMTF DSP0134): BIOS, system, baseboard, processor speeds and the
 * installed memory devices. Freestanding, so the host tests feed it tables.
 */
#ifndef SMBIOS_H
#define SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMBIOS_TEXT_MAX 64
#define SMBIOS_MAX_MEMORY_DEVICES 32

struct smbios_memory_device {
    uint64_t size_mib;       /* 0: the size field said "unknown" */
    uint32_t speed_mts;      /* 0: unknown */
    uint8_t type;            /* DSP0134 7.18.2 Memory Type */
};

struct smbios_facts {
    bool bios_found, system_found, board_found, processor_found;
    char bios_vendor[SMBIOS_TEXT_MAX], bios_version[SMBIOS_TEXT_MAX], bios_date[SMBIOS_TEXT_MAX];
    char system_manufacturer[SMBIOS_TEXT_MAX], system_product[SMBIOS_TEXT_MAX];
    char board_manufacturer[SMBIOS_TEXT_MAX], board_product[SMBIOS_TEXT_MAX];
    uint32_t processor_current_mhz, processor_max_mhz; /* of the first type 4 structure; 0 unknown */
    unsigned n_memory;       /* installed devices (type 17 with a non-zero size) */
    struct smbios_memory_device memory[SMBIOS_MAX_MEMORY_DEVICES];
    bool truncated;          /* the table ended inside a structure */
};

/* Parses `len` bytes of structures; stops at the end-of-table structure (type 127). */
void smbios_parse(const void *table, size_t len, struct smbios_facts *out);
/* "DDR4", "RAM", ...; NULL for a value this table does not name. */
const char *smbios_memory_type_name(uint8_t type);

#endif
