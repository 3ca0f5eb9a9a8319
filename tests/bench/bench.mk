# tests/bench/bench.mk — `make bench`: the speed figures docs/speed.md quotes,
# measured as ratios within one run (tests/bench/run.sh says how).
#
#   make bench     build the yardstick app and print the figures

BENCH_BUILD := build/bench
BARE_APP    := $(BENCH_BUILD)/bare/EFI/BOOT/BOOTX64.EFI

.PHONY: bench

$(BENCH_BUILD)/bare_boot.so: tests/bench/bare_boot.c
	@mkdir -p $(@D)
	$(EFI_CC) $(EFI_CPPFLAGS) $(EFI_CFLAGS) -c $< -o $(BENCH_BUILD)/bare_boot.o
	$(EFI_LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $(BENCH_BUILD)/bare_boot.o \
		-L$(GNUEFI_LIB) -lefi -lgnuefi $(EFI_LIBGCC) -o $@

$(BARE_APP): $(BENCH_BUILD)/bare_boot.so
	@mkdir -p $(@D)
	$(EFI_OBJCOPY) $(EFI_SECTIONS) --target efi-app-x86_64 --subsystem=10 $< $@

bench: deps all $(BARE_APP)
	tests/bench/run.sh $(BENCH_BUILD)
