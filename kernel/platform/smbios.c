/*
 * smbios.c — reads the SMBIOS structure table (DMTF DSP0134 3.7).
 *
 * Each structure is a formatted area (type, length, handle, then fields at
 * fixed offsets) followed by its strings, each NUL-terminated, the set ended
 * by an extra NUL; a string field holds the 1-based number of its string, 0
 * for none. Fields beyond a structure's length (older SMBIOS versions) are
 * treated as absent.
 */
#include "smbios.h"

#include "nb_text.h"

enum {
    SMBIOS_TYPE_BIOS = 0,          /* 7.1 */
    SMBIOS_TYPE_SYSTEM = 1,        /* 7.2 */
    SMBIOS_TYPE_BASEBOARD = 2,     /* 7.3 */
    SMBIOS_TYPE_PROCESSOR = 4,     /* 7.5 */
    SMBIOS_TYPE_MEMORY_DEVICE = 17, /* 7.18 */
    SMBIOS_TYPE_END = 127,         /* 7.45 */
};

/* Field offsets in the formatted area. */
#define BIOS_VENDOR 0x04
#define BIOS_VERSION 0x05
#define BIOS_RELEASE_DATE 0x08
#define SYSTEM_MANUFACTURER 0x04       /* also baseboard */
#define SYSTEM_PRODUCT 0x05            /* also baseboard */
#define PROCESSOR_MAX_SPEED 0x14       /* word, MHz, 0 unknown */
#define PROCESSOR_CURRENT_SPEED 0x16   /* word, MHz, 0 unknown */
#define MEMORY_TYPE 0x12               /* byte */
#define MEMORY_SIZE 0x0C               /* word: 0 none installed, FFFFh unknown, bit 15 KiB units, 7FFFh: extended */
#define MEMORY_SPEED 0x15              /* word, MT/s, 0 unknown, FFFFh: extended speed */
#define MEMORY_EXTENDED_SIZE 0x1C      /* dword, MiB in bits 30:0 (2.7+) */
#define MEMORY_EXTENDED_SPEED 0x54     /* dword, MT/s (3.3+) */

struct structure {
    const uint8_t *data;   /* formatted area */
    uint8_t length;
    const char *strings;   /* first string */
    const char *end;       /* end of the string set */
};

static uint8_t byte_at(const struct structure *s, unsigned off)
{
    return off < s->length ? s->data[off] : 0;
}

static uint32_t word_at(const struct structure *s, unsigned off)
{
    return off + 2 <= s->length ? (uint32_t)s->data[off] | (uint32_t)s->data[off + 1] << 8 : 0;
}

static uint32_t dword_at(const struct structure *s, unsigned off)
{
    return off + 4 <= s->length ? word_at(s, off) | word_at(s, off + 2) << 16 : 0;
}

/* String number `byte_at(off)` as printable ASCII, trailing blanks removed; "" when absent. */
static void string_at(const struct structure *s, unsigned off, char *out)
{
    unsigned index = byte_at(s, off);
    out[0] = '\0';
    const char *p = s->strings;
    for (unsigned i = 1; index && p < s->end && *p; i++) {
        if (i == index) {
            size_t n = 0;
            for (; p < s->end && *p && n + 1 < SMBIOS_TEXT_MAX; p++)
                out[n++] = *p >= 0x20 && *p < 0x7F ? *p : '?';
            while (n && out[n - 1] == ' ')
                n--;
            out[n] = '\0';
            return;
        }
        while (p < s->end && *p)
            p++;
        p++;
    }
}

static void memory_device(const struct structure *s, struct smbios_facts *out)
{
    uint32_t size = word_at(s, MEMORY_SIZE);
    if (size == 0 || out->n_memory == SMBIOS_MAX_MEMORY_DEVICES)
        return; /* empty slot */
    struct smbios_memory_device *d = &out->memory[out->n_memory++];
    if (size == 0xFFFF)
        d->size_mib = 0;
    else if (size == 0x7FFF)
        d->size_mib = dword_at(s, MEMORY_EXTENDED_SIZE) & 0x7FFFFFFFu;
    else if (size & 0x8000)
        d->size_mib = (size & 0x7FFF) / 1024u; /* KiB units */
    else
        d->size_mib = size;
    uint32_t speed = word_at(s, MEMORY_SPEED);
    d->speed_mts = speed == 0xFFFF ? dword_at(s, MEMORY_EXTENDED_SPEED) : speed;
    d->type = byte_at(s, MEMORY_TYPE);
}

static void take(const struct structure *s, uint8_t type, struct smbios_facts *out)
{
    switch (type) {
    case SMBIOS_TYPE_BIOS:
        if (out->bios_found)
            return;
        out->bios_found = true;
        string_at(s, BIOS_VENDOR, out->bios_vendor);
        string_at(s, BIOS_VERSION, out->bios_version);
        string_at(s, BIOS_RELEASE_DATE, out->bios_date);
        return;
    case SMBIOS_TYPE_SYSTEM:
        if (out->system_found)
            return;
        out->system_found = true;
        string_at(s, SYSTEM_MANUFACTURER, out->system_manufacturer);
        string_at(s, SYSTEM_PRODUCT, out->system_product);
        return;
    case SMBIOS_TYPE_BASEBOARD:
        if (out->board_found)
            return;
        out->board_found = true;
        string_at(s, SYSTEM_MANUFACTURER, out->board_manufacturer);
        string_at(s, SYSTEM_PRODUCT, out->board_product);
        return;
    case SMBIOS_TYPE_PROCESSOR:
        if (out->processor_found)
            return;
        out->processor_found = true;
        out->processor_max_mhz = word_at(s, PROCESSOR_MAX_SPEED);
        out->processor_current_mhz = word_at(s, PROCESSOR_CURRENT_SPEED);
        return;
    case SMBIOS_TYPE_MEMORY_DEVICE:
        memory_device(s, out);
        return;
    default:
        return;
    }
}

void smbios_parse(const void *table, size_t len, struct smbios_facts *out)
{
    nb_memset(out, 0, sizeof(*out));
    const uint8_t *p = table, *end = p + len;
    while (p && p + 4 <= end) {
        struct structure s = { .data = p, .length = p[1] };
        if (s.length < 4 || p + s.length > end) {
            out->truncated = true;
            return;
        }
        /* The string set ends at the first double NUL after the formatted area. */
        const uint8_t *q = p + s.length;
        while (q + 1 < end && !(q[0] == 0 && q[1] == 0))
            q++;
        if (q + 1 >= end) {
            out->truncated = true;
            return;
        }
        s.strings = (const char *)(p + s.length);
        s.end = (const char *)q + 1;
        if (p[0] == SMBIOS_TYPE_END)
            return;
        take(&s, p[0], out);
        p = q + 2;
    }
}

const char *smbios_memory_type_name(uint8_t type)
{
    /* DSP0134 7.18.2, Memory Device - Type. */
    static const struct { uint8_t value; const char *name; } names[] = {
        { 0x01, "Other" }, { 0x02, "Unknown" }, { 0x03, "DRAM" }, { 0x04, "EDRAM" },
        { 0x05, "VRAM" }, { 0x06, "SRAM" }, { 0x07, "RAM" }, { 0x08, "ROM" }, { 0x09, "Flash" },
        { 0x0A, "EEPROM" }, { 0x0B, "FEPROM" }, { 0x0C, "EPROM" }, { 0x0D, "CDRAM" },
        { 0x0E, "3DRAM" }, { 0x0F, "SDRAM" }, { 0x10, "SGRAM" }, { 0x11, "RDRAM" },
        { 0x12, "DDR" }, { 0x13, "DDR2" }, { 0x14, "DDR2 FB-DIMM" }, { 0x18, "DDR3" },
        { 0x19, "FBD2" }, { 0x1A, "DDR4" }, { 0x1B, "LPDDR" }, { 0x1C, "LPDDR2" },
        { 0x1D, "LPDDR3" }, { 0x1E, "LPDDR4" }, { 0x1F, "Logical non-volatile device" },
        { 0x20, "HBM" }, { 0x21, "HBM2" }, { 0x22, "DDR5" }, { 0x23, "LPDDR5" }, { 0x24, "HBM3" },
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].value == type)
            return names[i].name;
    return 0;
}
