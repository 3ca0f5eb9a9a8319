# boot/boot.mk — builds the UEFI application build/efi/BOOTX64.EFI from boot/
# and the freestanding engine, with gnu-efi 3.0.15 (Debian paths).
#
# Include it from the top-level Makefile and run make from the repository root:
#     include boot/boot.mk
# Targets:   efi        build/efi/BOOTX64.EFI
#            efi-check  PE sections are W^X, no undefined dynamic symbols,
#                       only R_X86_64_RELATIVE relocations (boot/check_pe.sh)
#            efi-clean  remove build/efi
# Inputs:    ENGINE_SRCS (default: lib/*.c, KERNEL_SRCS, pmu/*.c), KERNEL_INC
#            (the Makefile's: -I for kernel/ and each of its rooms), EFI_CC, EFI_LD,
#            EFI_OBJCOPY, NASM, GNUEFI_INC, GNUEFI_LIB.

EFI_BUILD     := build/efi
EFI_OBJDIR    := $(EFI_BUILD)/obj
EFI_APP       := $(EFI_BUILD)/BOOTX64.EFI
EFI_SO        := $(EFI_BUILD)/BOOTX64.so

BOOT_SRCS     := $(wildcard boot/*.c)
BOOT_ASM_SRCS := $(wildcard boot/*.asm)
ENGINE_SRCS   ?= $(wildcard lib/*.c) $(KERNEL_SRCS) $(wildcard pmu/*.c)

GNUEFI_INC    ?= /usr/include/efi
GNUEFI_LIB    ?= /usr/lib
EFI_CC        ?= $(CC)
EFI_LD        ?= ld
EFI_OBJCOPY   ?= objcopy
NASM          ?= nasm
EFI_LIBGCC    := $(shell $(EFI_CC) -print-libgcc-file-name)

# -mno-red-zone: firmware interrupt handlers run on our stack.
# GNU_EFI_USE_MS_ABI: call firmware pointers directly as ms_abi functions;
# Debian's libefi is built the same way.
EFI_CPPFLAGS  := -I$(GNUEFI_INC) -I$(GNUEFI_INC)/x86_64 -Ilib $(KERNEL_INC) -Ipmu \
                 -DGNU_EFI_USE_MS_ABI
EFI_CFLAGS    := -ffreestanding -fno-stack-protector -fpic -fshort-wchar \
                 -mno-red-zone -maccumulate-outgoing-args \
                 -fno-asynchronous-unwind-tables -Wall -Wextra -O2 -MMD -MP
EFI_LDFLAGS   := -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined \
                 -z noexecstack -T $(GNUEFI_LIB)/elf_x86_64_efi.lds
EFI_SECTIONS  := -j .text -j .sdata -j .data -j .sbat -j .dynamic -j .dynsym -j .rel \
                 -j .rela -j .rel.* -j .rela.* -j .reloc

EFI_OBJS      := $(patsubst %.c,$(EFI_OBJDIR)/%.o,$(BOOT_SRCS) $(ENGINE_SRCS)) \
                 $(patsubst %.asm,$(EFI_OBJDIR)/%.asm.o,$(BOOT_ASM_SRCS))

.PHONY: efi efi-check efi-clean

efi: $(EFI_APP)

$(EFI_OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(EFI_CC) $(EFI_CPPFLAGS) $(EFI_CFLAGS) -c $< -o $@

$(EFI_OBJDIR)/%.asm.o: %.asm
	@mkdir -p $(@D)
	$(NASM) -f elf64 -MD $(@:.o=.d) -MP -o $@ $<

# memmove/memcmp are plain loops; keep GCC from compiling them into calls to themselves.
$(EFI_OBJDIR)/boot/efi_libc.o: EFI_CFLAGS += -fno-tree-loop-distribute-patterns

$(EFI_SO): $(EFI_OBJS)
	$(EFI_LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $(EFI_OBJS) \
		-L$(GNUEFI_LIB) -lefi -lgnuefi $(EFI_LIBGCC) -o $@

# The second objcopy drops the COFF symbol table that the first leaves after
# the last section: nothing at run time reads it, and sbsign (-sign_key)
# would otherwise hash it as "data remaining ... gaps between sections".
$(EFI_APP): $(EFI_SO)
	$(EFI_OBJCOPY) $(EFI_SECTIONS) --target efi-app-x86_64 --subsystem=10 $< $@
	$(EFI_OBJCOPY) --strip-all $@

efi-check: $(EFI_APP)
	boot/check_pe.sh $(EFI_APP) $(EFI_SO)

efi-clean:
	rm -rf $(EFI_BUILD)

-include $(EFI_OBJS:.o=.d)
