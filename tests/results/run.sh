#!/usr/bin/env bash
# tests/results/run.sh — the results pages in headless Chromium
# (tests/results/test_pages.py; part of make test as results-test).
#
# usage: tests/results/run.sh [filter]
#        SCREENSHOTS=docs/img tests/results/run.sh   also refreshes the docs' screenshots
#        KEEP_TMP=1 keeps the pages and screenshots for a look
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nb-results-test.XXXXXX")
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$TMP"' EXIT
[[ -n ${KEEP_TMP:-} ]] && echo "results-test: files in $TMP"
python3 "$ROOT/tests/results/test_pages.py" "$TMP" "${1:-}"
