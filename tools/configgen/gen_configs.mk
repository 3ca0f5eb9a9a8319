# tools/configgen/gen_configs.mk — performance-counter configs from our event tables
# (configs/tables/, reduced from Intel perfmon / Linux's AMD event lists) and from
# libpfm4 (include from the top-level Makefile).
#
#   make configs            build build/host/gen_configs, regenerate every family of the
#                           table in tools/configgen/gen_configs.c into configs/ (cfg_<NAME>_all*.txt,
#                           cfg_<NAME>_common.txt) plus configs/cpu_map.txt, verify them and
#                           check them against configs/tables/known.txt and the tables'
#                           counter sets
#   make ppr-tables         rewrite configs/tables/zen{2,3,4,5}_ppr_names.txt (AMD's PPR names
#                           of Zen 2 to Zen 5) from Linux's names with tools/configgen/ppr_names.py
#   make gen-configs-check  self-test the generator, regenerate into a temporary directory,
#                           verify, check, and fail on any difference from configs/
#
# Needs Debian's libpfm4-dev; installed here when missing (as root, like tools/install-deps.sh).

GEN_CONFIGS := build/host/gen_configs
GEN_CONFIGS_CC ?= gcc
GEN_CONFIGS_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Itools/configgen -Ipmu -Ilib
GEN_CONFIGS_SRCS := tools/configgen/gen_configs.c tools/configgen/gen_evtsel.c tools/configgen/gen_pfm.c \
                    tools/configgen/gen_common.c tools/configgen/gen_verify.c tools/configgen/gen_selftest.c \
                    tools/configgen/gen_write.c tools/configgen/gen_table.c tools/configgen/gen_tfam.c \
                    tools/configgen/gen_check.c tools/configgen/gen_msr.c tools/configgen/gen_ctr.c \
                    tools/configgen/gen_ppr.c \
                    pmu/pmu_config_map.c \
                    pmu/pmu_msr_config.c pmu/config_lines.c lib/nb_text.c
GEN_CONFIGS_DIR := configs
GEN_CONFIGS_PFMLIB_H := /usr/include/perfmon/pfmlib.h

.PHONY: configs gen-configs-check gen-configs-deps metric-files metric-files-check ppr-tables

# AMD's PPR names per Zen family: Zen 2-4 from Linux's event lists as transcribed under
# configs/tables/linux_amdzen/, Zen 5 from its event table (Linux's names too).
PPR_TABLES_DIR := configs/tables
ppr-tables:
	for z in 2 3 4; do \
	  python3 tools/configgen/ppr_names.py Zen$$z $(PPR_TABLES_DIR)/linux_amdzen/zen$$z.txt \
	    > $(PPR_TABLES_DIR)/zen$${z}_ppr_names.txt || exit 1; \
	done
	python3 tools/configgen/ppr_names.py Zen5 $(PPR_TABLES_DIR)/Zen5.txt > $(PPR_TABLES_DIR)/zen5_ppr_names.txt

# configs/metrics/<NAME>.txt for every cfg_<NAME>_common.txt of cpu_map.txt: the
# metrics whose events that microarchitecture's configs define (gen_metrics.py).
# `make configs` rewrites them too; metric-files-check (in `make test`) fails
# with a diff when the committed files differ from the generator's output.
metric-files:
	python3 tools/configgen/gen_metrics.py

metric-files-check:
	python3 tools/configgen/gen_metrics.py --check

gen-configs-deps:
	@test -f $(GEN_CONFIGS_PFMLIB_H) || { \
	  echo "gen_configs: installing libpfm4-dev"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpfm4-dev; }

$(GEN_CONFIGS): $(GEN_CONFIGS_SRCS) $(wildcard tools/configgen/gen_*.h) pmu/pmu_config_map.h \
                pmu/pmu_msr_config.h | gen-configs-deps
	@mkdir -p $(@D)
	$(GEN_CONFIGS_CC) $(GEN_CONFIGS_CFLAGS) -o $@ $(GEN_CONFIGS_SRCS) -lpfm

configs: $(GEN_CONFIGS)
	$(GEN_CONFIGS) all $(GEN_CONFIGS_DIR)
	@$(GEN_CONFIGS) verify $(GEN_CONFIGS_DIR)/cfg_*.txt $(GEN_CONFIGS_DIR)/cpu_map.txt >/dev/null
	@$(GEN_CONFIGS) check $(GEN_CONFIGS_DIR)
	python3 tools/configgen/gen_metrics.py

# One shell: the temporary directory lives until the trap removes it.
gen-configs-check: $(GEN_CONFIGS)
	$(GEN_CONFIGS) selftest
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GEN_CONFIGS) all "$$tmp" >/dev/null && \
	$(GEN_CONFIGS) verify "$$tmp"/cfg_*.txt "$$tmp"/cpu_map.txt >/dev/null && \
	$(GEN_CONFIGS) check "$$tmp" && \
	status=0 && \
	for f in "$$tmp"/cfg_*.txt "$$tmp"/ctr_*.txt "$$tmp"/msr_*.txt "$$tmp"/cpu_map.txt; do \
	  diff -u "$(GEN_CONFIGS_DIR)/$${f##*/}" "$$f" || status=1; \
	done && \
	for f in $(GEN_CONFIGS_DIR)/cfg_*.txt $(GEN_CONFIGS_DIR)/ctr_*.txt $(GEN_CONFIGS_DIR)/msr_*.txt; do \
	  test -e "$$tmp/$${f##*/}" || { echo "gen-configs-check: $$f is no longer generated"; status=1; }; \
	done && \
	if [ $$status -ne 0 ]; then \
	  echo "gen-configs-check: $(GEN_CONFIGS_DIR)/ differs from the generator output" \
	       "($$($(GEN_CONFIGS) list | head -n 1 | cut -d' ' -f2-3)); run 'make configs'"; \
	  exit 1; \
	fi && \
	$(GEN_CONFIGS) verify $(GEN_CONFIGS_DIR)/cfg_*.txt $(GEN_CONFIGS_DIR)/cpu_map.txt >/dev/null && \
	echo "gen-configs-check: $(GEN_CONFIGS_DIR)/ matches the generator"
