#!/usr/bin/env python3
"""tma_table.py - the top-down (TMA) metrics of one Intel perfmon metric file, as data.

Run by hand on the host (not by make), like perfmon_table.py; the output is committed
as configs/tables/tma/<PREFIX>.json and read by tools/configgen/gen_metrics.py (which
translates the formulas into our metric files) and by tests/configgen/tma_formulas_test.py
(which evaluates them on synthetic counts and compares with our metric files).

    tools/configgen/tma_table.py PERFMON_DIR REL_PATH > configs/tables/tma/PREFIX.json
        e.g. ICL/metrics/icelake_metrics.json in a checkout of github.com/intel/perfmon
        (the commit is read with git when PERFMON_DIR is one).
    tools/configgen/tma_table.py --ecore PERFMON_DIR E-core_TMA_Metrics.csv COLUMN > ...
        one column (ARL-SKT, LNL-SKT, CMT, GRT) of Intel's E-core TMA spreadsheet, for the
        E-cores without a metric file of their own (Gracemont, Crestmont, Skymont): the
        level-1/2 tree only, in the same schema (Formula in event aliases, expanded).

Kept: the TMA tree's level-1 and level-2 nodes (Category "TMA", not the Bottleneck_*
and Info_* views), the Info metrics named in EXTRA, and every metric their formulas
refer to (tma_<name>). Per metric only facts: name, level, parent, the formula in
metric names (BaseFormula) and in event aliases (Formula, Events), unit. Descriptions
are never copied.
"""
import csv
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


def kept(data):
    """The metrics of a perfmon metric file (its parsed JSON) we keep: the wanted ones and
    every metric their formulas refer to, by name (perfmon_table.py --tma reads it too)."""
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
    return keep


# E-core_TMA_Metrics.csv: column -> what its formulas are written for
ECORE_COLUMNS = ("ARL-SKT", "LNL-SKT", "CMT", "GRT")


def git_commit(top):
    try:
        return subprocess.run(["git", "-C", top, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def ecore(top, rel, column):
    """The level-1/2 tree of one column of Intel's E-core TMA spreadsheet (CSV), in the
    metric files' schema: #SLOTS / #CLKS as Info_Thread_SLOTS / Info_Thread_CLKS,
    #Pipeline_Width as its number, a node's name in another's formula as tma_<node>."""
    with open(os.path.join(top, rel), newline="") as f:
        rows = list(csv.reader(f))
    version = rows[0][2] if len(rows[0]) > 2 else None
    hdr = rows[2]
    col = hdr.index(column)
    aux = {r[1]: r[col] for r in rows[3:] if r[0] == "Aux"}
    width = aux["#Pipeline_Width"].strip()
    tree, parent = [], None
    for r in rows[3:]:
        if r[0] not in ("FE", "BAD", "BE", "RET") or not (r[1].strip() or r[2].strip()):
            continue
        level = 1 if r[1].strip() else 2
        name = (r[1] or r[2]).strip()
        parent = name if level == 1 else parent
        tree.append((name, level, None if level == 1 else parent, r[col].strip()))
    names = {n for n, _, _, _ in tree}

    def base(text):
        text = text.replace("#SLOTS", "tma_info_thread_slots").replace("#CLKS", "tma_info_thread_clks")
        text = text.replace("#Pipeline_Width", "( %s )" % width)
        return re.sub(r"\b[A-Za-z_][A-Za-z0-9_.:]*\b", lambda mo: (
            "tma_" + mo.group(0).lower() if mo.group(0) in names else
            mo.group(0).lower() if "." in mo.group(0) else mo.group(0)), text)

    metrics = [("Info_Thread_CLKS", 1, None, base(aux["#CLKS"])),
               ("Info_Thread_SLOTS", 1, None, base(aux["#SLOTS"]))]
    metrics += [(n, lv, p, base(f)) for n, lv, p, f in tree]
    by_ref = {"tma_" + n.lower(): f for n, _, _, f in metrics}

    def expand(f):
        return re.sub(r"\btma_[a-z0-9_]+", lambda mo: "( %s )" % expand(by_ref[mo.group(0)]), f)

    out = []
    for n, lv, p, f in metrics:
        full, events = expand(f), []

        def alias(mo):
            w = mo.group(0)
            if "." not in w:
                return w
            for e in events:
                if e["Name"] == w.upper():
                    return e["Alias"]
            a = "abcdefghijklmnopqrstuvwxyz"[len(events)]
            events.append({"Name": w.upper(), "Alias": a})
            return a

        formula = re.sub(r"[A-Za-z_][A-Za-z0-9_.:]*", alias, full)
        m = {"MetricName": n, "Level": lv}
        if p:
            m["ParentCategory"] = p
        m.update({"BaseFormula": f, "Formula": formula, "Events": events, "Constants": []})
        out.append(m)
    return {
        "source": "intel/perfmon %s column %s" % (rel, column),
        "commit": git_commit(top),
        "version": None,
        "tma_version": "E-core %s" % version,
        "published": None,
        "command": "tools/configgen/tma_table.py --ecore PERFMON_DIR %s %s" % (rel, column),
        "metrics": out,
    }


def main(argv):
    if len(argv) == 5 and argv[1] == "--ecore":
        json.dump(ecore(argv[2], argv[3], argv[4]), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    top, rel = argv[1], argv[2]
    with open(os.path.join(top, rel)) as f:
        data = json.load(f)
    commit = git_commit(top)
    keep = kept(data)
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
