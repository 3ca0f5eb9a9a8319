/*
 * efi_sbat.c — the image's SBAT section (".sbat"), which shim and the
 * distributions' boot chains read to revoke vulnerable generations of a
 * signed EFI binary without revoking its signing key (shim's SBAT.md).
 *
 * A CSV text: the SBAT format's own line, then one line per component:
 * name, generation, vendor, package, version, where to learn more. Raise
 * the generation of "nanobench-efi" when a released, signed image must no
 * longer boot (a security fix in the image itself); the version follows
 * kernel/nb_version.h.
 */
#include "nb_version.h"

#define SBAT_FORMAT_LINE "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
#define SBAT_GENERATION "1"

__attribute__((section(".sbat"), used, aligned(1))) static const char sbat[] =
    SBAT_FORMAT_LINE
    "nanobench-efi," SBAT_GENERATION ",nanoBench-EFI,nanobench-efi," NB_VERSION ",README.md\n";
