# tools/results/results.mk — the results pages (tools/nb_html, tools/nb_compare).
#
# Targets:  results-vendor  the pinned uPlot in build/vendor (npm pack, sha256
#                           checked against tools/results/uplot.lock)
#           results-test    the pages in headless Chromium (tests/results/run.sh)

VENDOR_DIR := build/vendor
VENDOR_FILES := $(VENDOR_DIR)/uPlot.iife.min.js $(VENDOR_DIR)/uPlot.min.css $(VENDOR_DIR)/uPlot.version

.PHONY: results-vendor results-test

results-vendor: $(VENDOR_DIR)/uPlot.version

$(VENDOR_DIR)/uPlot.version: tools/results/uplot.lock tools/results/fetch_uplot.sh
	tools/results/fetch_uplot.sh $(VENDOR_DIR)

results-test: results-vendor $(HOST_BUILD)/nb_serial
	tests/results/run.sh
