# nanoBench-EFI — build, image, run and test.
#
#   make run    install what is missing, build, boot configs/default.suite under QEMU
#   make test   install what is missing, build, run every test
#   make image  build images/nanobench.img from configs/default.suite (for dd to a USB stick)
#   make fuzz   run every libFuzzer target for FUZZ_SECONDS (default 60) each
#   make bench  the speed figures docs/speed.md quotes (tests/bench/run.sh)
#   make python-test  the Python API against QEMU serve mode (pytest, -icount: no KVM)
#
# Only Debian packages are needed; tools/install-deps.sh installs the missing ones.

SHELL := /bin/bash
CC ?= gcc

# kernel/ is split into rooms by role (kernel/README.md, kernel/rooms.txt). Every
# room is on the include path, so a file includes "name.h" whichever room holds it.
KERNEL_DIRS := kernel $(patsubst %/,%,$(sort $(dir $(wildcard kernel/*/*.[ch]))))
KERNEL_INC  := $(addprefix -I,$(KERNEL_DIRS))
KERNEL_SRCS := $(wildcard $(addsuffix /*.c,$(KERNEL_DIRS)))
KERNEL_HDRS := $(wildcard $(addsuffix /*.h,$(KERNEL_DIRS)))
# The host tools' C sources are in rooms of tools/ too (tools/rooms.txt); all but
# configgen/ (built on its own by tools/configgen/gen_configs.mk) are on their path.
TOOLS_DIRS  := $(filter-out tools/configgen,$(patsubst %/,%,$(sort $(dir $(wildcard tools/*/*.h)))))
TOOLS_INC   := $(addprefix -I,$(TOOLS_DIRS))

HOST_BUILD := build/host
HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Ilib $(KERNEL_INC) -Ipmu $(TOOLS_INC)
# Target sources the host tools share (same parsers as the image).
SHARED_SRCS := lib/nb_text.c kernel/suite/nb_arena.c kernel/suite/bench_options.c kernel/suite/bench_expect.c kernel/suite/suite.c \
               kernel/codegen/x86_emit.c pmu/pmu_event.c pmu/pmu_config_parse.c pmu/pmu_ctr_rules.c pmu/freq_pin.c pmu/pmu_schedule.c pmu/pmu_session.c \
               pmu/pmu_intel.c pmu/pmu_amd.c pmu/pmu_detect.c pmu/pmu_arch_events.c \
               pmu/pmu_config_map.c pmu/pmu_msr_config.c pmu/power.c kernel/report/serial_frame.c \
               pmu/config_lines.c pmu/pmu_describe.c pmu/pmu_models.c pmu/machine.c \
               pmu/metric_expr.c pmu/metric_file.c kernel/engine/bench_metrics.c kernel/report/nb_report.c pmu/pmu_freeze.c
COMPILER_SRCS := tools/compile/nb_compile.c tools/compile/asm_statements.c tools/compile/asm_translate.c tools/compile/nasm_batch.c tools/compile/asm_job.c \
                 tools/compile/gas_source.c tools/compile/gas_batch.c tools/compile/host_checks.c tools/compile/plan_cpu_names.c \
                 tools/mica/mica_itypes.c tools/mica/mica_lines.c tools/mica/mica_category.c \
                 tools/common/host_file.c tools/compile/suite_writer.c tools/compile/nb_plan.c tools/compile/config_check.c \
                 $(SHARED_SRCS)

DEFAULT_SUITE := configs/default.suite
IMAGE := images/nanobench.img

.PHONY: all deps host-tools image run test qemu-test python-test metrics-plan-sweep docs-check clean

all: efi host-tools

deps:
	@tools/install-deps.sh

include boot/boot.mk
include tools/mica/mica.mk
include tests/unit/unit.mk
include tools/configgen/gen_configs.mk
include tests/fuzz/fuzz.mk
include tests/bench/bench.mk
include tools/results/results.mk

host-tools: $(HOST_BUILD)/nb_compile $(HOST_BUILD)/nb_serial $(HOST_BUILD)/nb_gpt $(MICA_BIN) $(HOST_BUILD)/nb_steps results-vendor

# -debug_trace's listing (tools/readers/steps_list.h), with nb_mica's trace reader and decoder.
$(HOST_BUILD)/nb_steps: tools/readers/nb_steps.c tools/readers/steps_list.c tools/readers/steps_list.h tools/common/host_file.c $(MICA_LIB_SRCS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itools/mica -o $@ tools/readers/nb_steps.c tools/readers/steps_list.c tools/common/host_file.c $(MICA_LIB_SRCS) \
		$(MICA_LIBS)

$(HOST_BUILD)/nb_gpt: tools/image/nb_gpt.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ tools/image/nb_gpt.c

NB_SERIAL_SRCS := tools/readers/nb_serial.c tools/common/host_file.c kernel/report/serial_frame.c lib/nb_text.c kernel/suite/suite.c \
                  kernel/suite/nb_arena.c
$(HOST_BUILD)/nb_serial: $(NB_SERIAL_SRCS) kernel/report/serial_frame.h kernel/suite/suite.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $(NB_SERIAL_SRCS)

$(HOST_BUILD)/nb_compile: $(COMPILER_SRCS) $(KERNEL_HDRS) $(wildcard pmu/*.h) $(wildcard $(addsuffix /*.h,$(TOOLS_DIRS)))
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itools/mica -o $@ $(COMPILER_SRCS)

image: deps all
	tools/nanobench -suite $(DEFAULT_SUITE) -image $(IMAGE)

run: deps all
	STREAM=1 tools/nanobench -suite $(DEFAULT_SUITE)

qemu-test: deps all
	tests/qemu/run.sh

# Debian's python3 (python3-pytest), not one a version manager puts first on PATH.
PYTHON3 ?= $(firstword $(wildcard /usr/bin/python3) python3)
python-test: deps all
	$(PYTHON3) -m pytest -q -s tests/python

test: deps all efi-check
	tests/check_layers.sh
	$(MAKE) --no-print-directory docs-check
	$(PYTHON3) tests/include_cycles.py
	tests/check_rooms.py
	$(MAKE) --no-print-directory gen-configs-check
	$(MAKE) --no-print-directory metric-files-check
	tests/check_nanobench_names.sh
	tests/configgen/perfmon_table_test.sh
	tests/configgen/nanobench_common_test.sh
	tests/configgen/zen_ppr_test.py
	tests/configgen/perfmon_mapfile_test.py
	tests/configgen/tma_formulas_test.py
	tests/configgen/issue_width_test.py
	$(MAKE) --no-print-directory metrics-plan-sweep
	$(MAKE) --no-print-directory unit-test
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory results-test
	$(MAKE) --no-print-directory qemu-test
	$(MAKE) --no-print-directory python-test

# The documents' links and anchors resolve inside the repository; README.md is one page
# with a table of contents of docs/ (tests/check_docs.py; tests/check_docs_test.sh checks the checker).
docs-check:
	tests/check_docs_test.sh
	$(PYTHON3) tests/check_docs.py

# Every group of every configs/metrics file through -plan on a processor that uses it.
metrics-plan-sweep: $(HOST_BUILD)/nb_compile
	tests/metrics_plan_sweep.sh

clean:
	rm -rf build $(IMAGE)
