#!/usr/bin/env python3
"""tma_table.py - the top-down (TMA) metrics of one Intel perfmon metric file, as data.

Run by hand on the host (not by make), like perfmon_table.py; the output is committed
as configs/tables/tma/<PREFIX>.json and read by tools/configgen/gen_metrics.py (which
translates the formulas into our metric files) and by tests/configgen/tma_formulas_test.py
(which evaluates them on synthetic counts and compares with our metric files).

    tools/configgen/tma_table.py PERFMON_DIR REL_PATH > configs/tables/tma/PREFIX.json
        e.g. ICL/metrics/icelake_metrics.json in a checkout of github.com/intel/perfmon
        (the commit is read with git when PERFMON_DIR is one).

Kept: the TMA tree's level-1 and level-2 nodes (Category "TMA", not the Bottleneck_*
and Info_* views), the Info metrics named in EXTRA, and every metric their formulas
refer to (tma_<name>). Per metric only facts: name, level, parent, the formula in
metric names (BaseFormula) and in event aliases (Formula, Events), unit. Descriptions
are never copied.
"""
import json
import os
import re
import subprocess
import sys

# Info metrics we carry besides the tree (issue 20: DSB coverage, misses per kilo-instruction;
# FLOPs per cycle, which tests/configgen/tma_formulas_test.py holds our FLOP_PER_CYCLE to).
EXTRA = ("Info_Frontend_DSB_Coverage", "Info_Memory_L1MPKI", "Info_Memory_L2MPKI", "Info_Memory_L3MPKI",
         "Info_Core_FLOPc")


def wanted(m):
    name = m["MetricName"]
    if name in EXTRA:
        return True
    return (m.get("Category") == "TMA" and m.get("Level") in (1, 2)
            and not name.startswith(("Bottleneck", "Info_")))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    top, rel = argv[1], argv[2]
    with open(os.path.join(top, rel)) as f:
        data = json.load(f)
    try:
        commit = subprocess.run(["git", "-C", top, "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    by_ref = {"tma_" + m["MetricName"].lower(): m for m in data["Metrics"]}
    keep, todo = {}, [m for m in data["Metrics"] if wanted(m)]
    while todo:
        m = todo.pop(0)
        if m["MetricName"] in keep:
            continue
        keep[m["MetricName"]] = m
        for ref in re.findall(r"\btma_[a-z0-9_]+", m.get("BaseFormula", "")):
            if ref in by_ref and by_ref[ref]["MetricName"] not in keep:
                todo.append(by_ref[ref])
    h = data.get("Header", {})
    out = {
        "source": "intel/perfmon %s" % rel,
        "commit": commit,
        "version": h.get("Version"),
        "tma_version": h.get("TmaVersion"),
        "published": h.get("DatePublished"),
        "command": "tools/configgen/tma_table.py PERFMON_DIR %s" % rel,
        "metrics": [
            {k: m[k] for k in ("MetricName", "Level", "ParentCategory", "BaseFormula", "Formula",
                               "Events", "Constants", "UnitOfMeasure") if k in m}
            for m in data["Metrics"] if m["MetricName"] in keep
        ],
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
