# tests/fuzz/fuzz.mk — libFuzzer targets for every parser that reads untrusted
# text (suite files, options, event configs, MSR configs, cpu_map.txt, gdb's
# remote protocol), built
# with clang and the address and undefined-behaviour sanitizers and run on the
# Linux host. Each target links only the kernel/ and pmu/ objects it needs.
#
# Include it from the top-level Makefile and run make from the repository root:
#     include tests/fuzz/fuzz.mk
# Targets:   fuzz         build, then run every target for FUZZ_SECONDS (60) each
#            fuzz-smoke   the same for 10 s each, all targets at once (for
#                         `make test`: about 10 s after the build); fails on
#                         any crash, leak, timeout or sanitizer report
#            fuzz-build   only build build/fuzz/<target>
#            fuzz-crashes run every kept input in tests/fuzz/crashes/ through
#                         its target (fails while a kept bug is unfixed)
#            fuzz-deps    install clang and libclang-rt-14-dev when missing
#            fuzz-clean   remove build/fuzz
# Inputs:    FUZZ_CC (clang), FUZZ_SECONDS (60), FUZZ_JOBS (targets run at the
#            same time: the number of CPUs), FUZZ_FLAGS (extra libFuzzer flags).
# Seeds come from tests/fuzz/corpus/<target>/ (copied to build/fuzz/corpus/
# first, so the repository is never modified), dictionaries from
# tests/fuzz/<target>.dict; findings land in build/fuzz/artifacts/<target>/.

FUZZ_CC      ?= clang
FUZZ_AR      ?= ar
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_BUILD   := build/fuzz
FUZZ_OBJDIR  := $(FUZZ_BUILD)/obj
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer -Wall -Wextra \
                -Ilib $(KERNEL_INC) -Ipmu -Itools/mica -Itests/fuzz

FUZZ_TARGETS := fuzz_suite fuzz_options fuzz_pmu_config fuzz_config_map fuzz_msr_config fuzz_smbios fuzz_metric_file fuzz_ctr_rules \
                fuzz_mica_trace fuzz_mica_itypes fuzz_serve fuzz_gas_source fuzz_gdb

# Every kernel/ and pmu/ source goes into one archive; the linker takes from it
# only the objects a target references (fuzz_options gets bench_options.o and
# nb_text.o, nothing else), and a file split in two needs no edit here.
FUZZ_LIB_SRCS := $(wildcard lib/*.c) $(KERNEL_SRCS) $(wildcard pmu/*.c)
FUZZ_LIB      := $(FUZZ_BUILD)/libnb_fuzz.a

FUZZ_BINS := $(addprefix $(FUZZ_BUILD)/,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-crashes fuzz-deps fuzz-clean

fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

# All targets at once: 10 s of wall time in total, whatever the number of CPUs.
fuzz-smoke: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run_fuzzers.sh 10 $(words $(FUZZ_TARGETS)) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BINS)

# Kept crash inputs are named after their target: tests/fuzz/crashes/<target>-<what>.
fuzz-crashes: fuzz-build
	@status=0; for f in tests/fuzz/crashes/*; do \
	    [ -f "$$f" ] || continue; t=; \
	    for c in $(FUZZ_TARGETS); do case "$${f##*/}" in $$c-*|$$c) t=$$c;; esac; done; \
	    if [ -z "$$t" ]; then echo "fuzz-crashes: $$f: no target of that name"; status=1; \
	    elif $(FUZZ_BUILD)/$$t "$$f" >$(FUZZ_BUILD)/crash.log 2>&1; then echo "fuzz-crashes: $$f: passes"; \
	    else echo "fuzz-crashes: $$f: still fails (log $(FUZZ_BUILD)/crash.log)"; status=1; fi; \
	done; exit $$status

fuzz-deps:
	@tools/install-deps.sh clang libclang-rt-14-dev

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_OBJDIR)/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^

# The GNU as front end of -asm* text (tools/compile/gas_source.c) is host code.
$(FUZZ_BUILD)/fuzz_gas_source: $(FUZZ_OBJDIR)/tests/fuzz/fuzz_gas_source.o $(FUZZ_OBJDIR)/tools/compile/gas_source.o \
                               $(FUZZ_OBJDIR)/tools/compile/asm_statements.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^
$(FUZZ_OBJDIR)/tests/fuzz/fuzz_gas_source.o: FUZZ_CFLAGS += $(TOOLS_INC)

# The MICA host side (tools/mica/, from tools/mica/mica.mk) has its own
# archive and needs Zydis; the more specific pattern wins for fuzz_mica_*.
FUZZ_MICA_LIB := $(FUZZ_BUILD)/libnb_mica_fuzz.a

$(FUZZ_BUILD)/fuzz_mica_%: $(FUZZ_OBJDIR)/tests/fuzz/fuzz_mica_%.o $(FUZZ_MICA_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(MICA_LIBS)

$(FUZZ_MICA_LIB): $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(MICA_LIB_SRCS))
	rm -f $@
	$(FUZZ_AR) rcs $@ $^

$(FUZZ_LIB): $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(FUZZ_LIB_SRCS))
	rm -f $@
	$(FUZZ_AR) rcs $@ $^

$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(FUZZ_OBJDIR)/*/*.d $(FUZZ_OBJDIR)/*/*/*.d $(FUZZ_OBJDIR)/*/*/*/*.d)

fuzz-clean:
	rm -rf $(FUZZ_BUILD)
