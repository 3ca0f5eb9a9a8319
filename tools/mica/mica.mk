# tools/mica/mica.mk — build/host/nb_mica, the host side of MICA (issue 9):
# trace reader, Zydis decoding, the analyses of ../shared/MICA-SPEC.md.
# Include it from the top-level Makefile before tests/unit/unit.mk (the unit
# tests link MICA_LIB_SRCS too).
#
#   make build/host/nb_mica   (part of host-tools)
#   make mica-bench           time `all` on a 10-million-instruction trace

MICA_LIB_SRCS := $(filter-out tools/mica/nb_mica.c tools/mica/mica_ptrace.c tools/mica/mica_dbt.c \
                   tools/mica/mica_dbt_plugin.c,$(wildcard tools/mica/*.c))
# The ptrace capture (nb_mica -- PROGRAM) writes records with the image's encoder.
MICA_PTRACE_SRCS := tools/mica/mica_ptrace.c kernel/mica/mica_capture.c lib/nb_text.c
# The DBT capture (nb_mica -dbt -- PROGRAM): qemu-x86_64 with the plugin
# below streams records into the analyses, which run on worker threads.
MICA_DBT_SRCS := tools/mica/mica_dbt.c
MICA_LIBS     := -lZydis -pthread
MICA_BIN      := build/host/nb_mica
MICA_PLUGIN   := build/host/mica_dbt.so

$(MICA_BIN): tools/mica/nb_mica.c tools/common/host_file.c $(MICA_LIB_SRCS) $(MICA_PTRACE_SRCS) $(MICA_DBT_SRCS) \
             $(wildcard tools/mica/*.h) lib/nb_trace_format.h kernel/mica/mica_capture.h | $(MICA_PLUGIN)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itools/mica -o $@ tools/mica/nb_mica.c tools/common/host_file.c $(MICA_LIB_SRCS) \
		$(MICA_PTRACE_SRCS) $(MICA_DBT_SRCS) \
		$(MICA_LIBS)

# QEMU loads it with -plugin; it links with nothing (QEMU provides the API).
$(MICA_PLUGIN): tools/mica/mica_dbt_plugin.c tools/mica/qemu_plugin_api.h tools/mica/mica_dbt_stream.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -shared -fPIC -fvisibility=hidden -pthread -Itools/mica \
		-o $@ tools/mica/mica_dbt_plugin.c

# The synthetic trace generator of the speed benchmark and the CLI test.
MICA_GEN := build/bench/mica_gen_trace

$(MICA_GEN): tests/bench/mica_gen_trace.c tests/unit/host_trace_writer.c tests/unit/host_trace_writer.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -o $@ tests/bench/mica_gen_trace.c tests/unit/host_trace_writer.c

# Benchmark code run on the host between INT3 markers (nb_mica -int3_markers -- ...).
MICA_RUNNER := build/host/mica_runner

$(MICA_RUNNER): tests/mica/mica_runner.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $<

# Five small static programs (nasm, no libc) run by both host captures
# (ptrace and DBT) for the comparison of tests/mica_dbt_test.sh.
MICA_PROGS := $(patsubst tests/mica/progs/%.asm,build/host/mica_progs/%,$(wildcard tests/mica/progs/*.asm))

build/host/mica_progs/%: tests/mica/progs/%.asm
	@mkdir -p $(@D)
	nasm -f elf64 -o $@.o $<
	ld -o $@ $@.o

.PHONY: mica-bench mica-test mica-dbt-test mica-dbt-bench

mica-bench: $(MICA_BIN) $(MICA_GEN)
	tests/bench/mica_speed.sh build/bench

# nb_mica end to end on generated and damaged traces (tests/mica_cli_test.sh).
mica-test: $(MICA_BIN) $(MICA_GEN) $(MICA_RUNNER) mica-dbt-test
	tests/mica_cli_test.sh build/bench/mica_gen_trace build/host/nb_mica $(MICA_RUNNER)

# The program of the DBT benchmark: 10^9 + 9 instructions.
build/bench/mica_gig: tests/bench/mica_gig.asm
	@mkdir -p $(@D)
	nasm -f elf64 -o $@.o $<
	ld -o $@ $@.o

# 10^9 instructions through the DBT capture and every analysis (not a test: minutes).
mica-dbt-bench: $(MICA_BIN) $(MICA_PLUGIN) build/bench/mica_gig
	tests/bench/mica_dbt_speed.sh $(MICA_BIN) build/bench/mica_gig

# The DBT capture against the ptrace capture (also run by tests/qemu/run.sh).
mica-dbt-test: $(MICA_BIN) $(MICA_PLUGIN) $(MICA_PROGS)
	tests/mica_dbt_test.sh build/host/nb_mica build/host/mica_progs
