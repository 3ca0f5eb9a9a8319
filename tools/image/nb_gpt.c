/*
 * nb_gpt.c — writes and reads the GUID partition table of a nanoBench-EFI
 * disk image, without sgdisk (which sleeps a second after every write to
 * let the kernel re-read a partition table, even for a plain file).
 *
 *   nb_gpt write IMG FIRST_LBA SIZE_LBA NAME   one EFI System Partition
 *   nb_gpt first-lba IMG                       where partition 1 starts
 *
 * IMG must already have its final size (a multiple of 512 bytes). The layout
 * is the one UEFI 2.10 section 5.3 describes: a protective MBR in LBA 0, the
 * primary header in LBA 1 and its 128 entries in LBAs 2-33, the backup
 * entries in the 32 LBAs before the last one and the backup header in the
 * last LBA. GUIDs are random (version 4, RFC 4122), so two sticks differ.
 * `sgdisk -v` accepts the result (tests/qemu/run.sh image_layout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTOR 512u
#define GPT_ENTRIES 128u
#define GPT_ENTRY_SIZE 128u
#define GPT_ENTRY_LBAS (GPT_ENTRIES * GPT_ENTRY_SIZE / SECTOR) /* 32 */
#define GPT_HEADER_SIZE 92u
#define GPT_REVISION_1_0 0x00010000u
#define MBR_TYPE_GPT_PROTECTIVE 0xEE
#define MBR_PARTITION_TABLE 446
#define PARTITION_NAME_UNITS 36 /* UTF-16 code units */

/* EFI System Partition type, C12A7328-F81F-11D2-BA4B-00A0C93EC93B, as stored. */
static const uint8_t ESP_TYPE_GUID[16] = { 0x28, 0x73, 0x2A, 0xC1, 0x1F, 0xF8, 0xD2, 0x11,
                                           0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B };

/* The CRC-32 GPT uses (IEEE 802.3, reflected, as zlib's crc32). */
static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "nb_gpt: %s: %s%s%s\n", path, what, errno ? ": " : "", errno ? strerror(errno) : "");
    exit(1);
}

static void random_guid(uint8_t guid[16])
{
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(guid, 1, 16, f) != 16)
        die("cannot read", "/dev/urandom");
    fclose(f);
    guid[7] = (uint8_t)((guid[7] & 0x0F) | 0x40); /* version 4 (time_hi is little-endian) */
    guid[8] = (uint8_t)((guid[8] & 0x3F) | 0x80); /* RFC 4122 variant */
}

static void write_at(FILE *f, const char *path, uint64_t lba, const void *data, size_t len)
{
    if (fseeko(f, (off_t)(lba * SECTOR), SEEK_SET) != 0 || fwrite(data, 1, len, f) != len)
        die("cannot write", path);
}

/* A header for a copy at `my_lba` whose entries start at `entries_lba`. */
static void make_header(uint8_t *h, uint64_t my_lba, uint64_t alternate_lba, uint64_t last_lba,
                        uint64_t entries_lba, const uint8_t disk_guid[16], uint32_t entries_crc)
{
    memset(h, 0, SECTOR);
    memcpy(h, "EFI PART", 8);
    put32(h + 8, GPT_REVISION_1_0);
    put32(h + 12, GPT_HEADER_SIZE);
    put64(h + 24, my_lba);
    put64(h + 32, alternate_lba);
    put64(h + 40, 2 + GPT_ENTRY_LBAS);             /* first usable LBA */
    put64(h + 48, last_lba - 1 - GPT_ENTRY_LBAS);  /* last usable LBA */
    memcpy(h + 56, disk_guid, 16);
    put64(h + 72, entries_lba);
    put32(h + 80, GPT_ENTRIES);
    put32(h + 84, GPT_ENTRY_SIZE);
    put32(h + 88, entries_crc);
    put32(h + 16, crc32(h, GPT_HEADER_SIZE)); /* computed with the field zero */
}

static int write_gpt(const char *path, uint64_t first, uint64_t size, const char *name)
{
    FILE *f = fopen(path, "r+b");
    if (!f || fseeko(f, 0, SEEK_END) != 0)
        die("cannot open", path);
    off_t bytes = ftello(f);
    if (bytes <= 0 || bytes % SECTOR)
        die("size is not a multiple of 512 bytes", path);
    uint64_t last_lba = (uint64_t)bytes / SECTOR - 1;
    if (first < 2 + GPT_ENTRY_LBAS || size == 0 || first + size > last_lba - GPT_ENTRY_LBAS) {
        errno = 0;
        die("the partition does not fit between the primary and the backup table", path);
    }

    static uint8_t mbr[SECTOR], entries[GPT_ENTRIES * GPT_ENTRY_SIZE], header[SECTOR];
    uint8_t *pe = mbr + MBR_PARTITION_TABLE;
    pe[1] = 0x00; pe[2] = 0x02; pe[3] = 0x00;          /* CHS start 0/0/2 */
    pe[4] = MBR_TYPE_GPT_PROTECTIVE;
    pe[5] = pe[6] = pe[7] = 0xFF;                      /* CHS end: not representable */
    put32(pe + 8, 1);
    put32(pe + 12, last_lba > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)last_lba);
    mbr[510] = 0x55;
    mbr[511] = 0xAA;

    memcpy(entries, ESP_TYPE_GUID, 16);
    random_guid(entries + 16);
    put64(entries + 32, first);
    put64(entries + 40, first + size - 1); /* inclusive */
    for (int i = 0; i < PARTITION_NAME_UNITS - 1 && name[i]; i++)
        put16(entries + 56 + 2 * i, (uint8_t)name[i]);
    uint32_t entries_crc = crc32(entries, sizeof(entries));

    uint8_t disk_guid[16];
    random_guid(disk_guid);
    write_at(f, path, 0, mbr, sizeof(mbr));
    make_header(header, 1, last_lba, last_lba, 2, disk_guid, entries_crc);
    write_at(f, path, 1, header, sizeof(header));
    write_at(f, path, 2, entries, sizeof(entries));
    write_at(f, path, last_lba - GPT_ENTRY_LBAS, entries, sizeof(entries));
    make_header(header, last_lba, 1, last_lba, last_lba - GPT_ENTRY_LBAS, disk_guid, entries_crc);
    write_at(f, path, last_lba, header, sizeof(header));
    if (fclose(f) != 0)
        die("cannot write", path);
    return 0;
}

/* Reads the primary header and entry 1; checks both CRCs. */
static int print_first_lba(const char *path)
{
    FILE *f = fopen(path, "rb");
    static uint8_t header[SECTOR], entries[GPT_ENTRIES * GPT_ENTRY_SIZE];
    if (!f || fseeko(f, SECTOR, SEEK_SET) != 0 || fread(header, 1, SECTOR, f) != SECTOR)
        die("cannot read the GPT header", path);
    errno = 0;
    uint32_t stored = (uint32_t)header[16] | (uint32_t)header[17] << 8 | (uint32_t)header[18] << 16 |
                      (uint32_t)header[19] << 24;
    memset(header + 16, 0, 4);
    if (memcmp(header, "EFI PART", 8) != 0 || crc32(header, GPT_HEADER_SIZE) != stored)
        die("no valid GPT header in LBA 1", path);
    uint64_t entries_lba = get64(header + 72);
    if (fseeko(f, (off_t)(entries_lba * SECTOR), SEEK_SET) != 0 ||
        fread(entries, 1, GPT_ENTRY_SIZE, f) != GPT_ENTRY_SIZE)
        die("cannot read the partition entries", path);
    fclose(f);
    static const uint8_t unused[16];
    if (memcmp(entries, unused, 16) == 0) {
        errno = 0;
        die("partition 1 is not in use", path);
    }
    printf("%llu\n", (unsigned long long)get64(entries + 32));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "write") == 0) {
        char *end1, *end2;
        unsigned long long first = strtoull(argv[3], &end1, 0), size = strtoull(argv[4], &end2, 0);
        if (*end1 || *end2 || !*argv[3] || !*argv[4]) {
            fprintf(stderr, "nb_gpt: FIRST_LBA and SIZE_LBA must be numbers\n");
            return 2;
        }
        return write_gpt(argv[2], first, size, argv[5]);
    }
    if (argc == 3 && strcmp(argv[1], "first-lba") == 0)
        return print_first_lba(argv[2]);
    fprintf(stderr, "usage: nb_gpt write IMG FIRST_LBA SIZE_LBA NAME | nb_gpt first-lba IMG\n");
    return 2;
}
