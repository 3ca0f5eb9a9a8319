# tests/unit/unit.mk — host unit tests: tests/unit/*.c linked with the same
# kernel/ (every room) and pmu/ sources the image uses, built with gcc and the
# address and undefined-behaviour sanitizers, and run on the Linux host.
#
# Include it from the top-level Makefile and run make from the repository root:
#     include tests/unit/unit.mk
# Targets:   unit-test        build build/host/unit_tests and run every test
#            unit-build       only build it
#            unit-clean       remove build/host/unit and the binary
# Inputs:    UNIT_CC (gcc), UNIT_FILTER (run only tests whose name contains it),
#            NASM must be on PATH at run time (tests assemble references with it).

UNIT_CC      ?= gcc
UNIT_BUILD   := build/host
UNIT_OBJDIR  := $(UNIT_BUILD)/unit
UNIT_BIN     := $(UNIT_BUILD)/unit_tests
# The suite compiler's assembler front end (tools/) is host code tested here too.
UNIT_TOOL_SRCS := tools/compile/asm_statements.c tools/compile/asm_translate.c tools/compile/nasm_batch.c tools/compile/asm_job.c tools/common/host_file.c \
                  tools/compile/gas_source.c tools/compile/gas_batch.c tools/readers/steps_list.c \
                  $(MICA_LIB_SRCS)
UNIT_SRCS    := $(wildcard tests/unit/*.c) $(wildcard lib/*.c) $(KERNEL_SRCS) $(wildcard pmu/*.c) \
                $(UNIT_TOOL_SRCS)
UNIT_OBJS    := $(patsubst %.c,$(UNIT_OBJDIR)/%.o,$(UNIT_SRCS))
# -fno-sanitize-recover: a sanitizer report fails the test instead of scrolling by.
UNIT_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -fsanitize=address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer \
                -Ilib $(KERNEL_INC) -Ipmu $(TOOLS_INC) -Itests/unit -MMD -MP

.PHONY: unit-test unit-build unit-clean

# The tests run as root in CI: one that lets nasm delete its output could take
# /dev/null with it (nasm removes the output file after an error).
unit-test: $(UNIT_BIN)
	$(UNIT_BIN) $(UNIT_FILTER)
	@test -c /dev/null || { echo "unit-test: /dev/null is no longer a device; a test removed it" >&2; exit 1; }

unit-build: $(UNIT_BIN)

$(UNIT_BIN): $(UNIT_OBJS)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(UNIT_OBJS) $(MICA_LIBS)

$(UNIT_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -c $< -o $@

unit-clean:
	rm -rf $(UNIT_OBJDIR) $(UNIT_BIN)

-include $(UNIT_OBJS:.o=.d)
