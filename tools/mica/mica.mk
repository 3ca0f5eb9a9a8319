# tools/mica/mica.mk — build/host/nb_mica, the host side of MICA (issue 9):
# trace reader, Zydis decoding, the analyses of ../shared/MICA-SPEC.md.
# Include it from the top-level Makefile before tests/unit/unit.mk (the unit
# tests link MICA_LIB_SRCS too).
#
#   make build/host/nb_mica   (part of host-tools)
#   make mica-bench           time `all` on a 10-million-instruction trace

MICA_LIB_SRCS := $(filter-out tools/mica/nb_mica.c tools/mica/mica_ptrace.c,$(wildcard tools/mica/*.c))
# The ptrace capture (nb_mica -- PROGRAM) writes records with the image's encoder.
MICA_PTRACE_SRCS := tools/mica/mica_ptrace.c kernel/mica_capture.c lib/nb_text.c
MICA_LIBS     := -lZydis
MICA_BIN      := build/host/nb_mica

$(MICA_BIN): tools/mica/nb_mica.c tools/host_file.c $(MICA_LIB_SRCS) $(MICA_PTRACE_SRCS) \
             $(wildcard tools/mica/*.h) lib/nb_trace_format.h kernel/mica_capture.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itools/mica -o $@ tools/mica/nb_mica.c tools/host_file.c $(MICA_LIB_SRCS) \
		$(MICA_PTRACE_SRCS) \
		$(MICA_LIBS)

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

.PHONY: mica-bench mica-test

mica-bench: $(MICA_BIN) $(MICA_GEN)
	tests/bench/mica_speed.sh build/bench

# nb_mica end to end on generated and damaged traces (tests/mica_cli_test.sh).
mica-test: $(MICA_BIN) $(MICA_GEN) $(MICA_RUNNER)
	tests/mica_cli_test.sh build/bench/mica_gen_trace build/host/nb_mica $(MICA_RUNNER)
