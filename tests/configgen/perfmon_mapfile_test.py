#!/usr/bin/env python3
"""tests/configgen/perfmon_mapfile_test.py - configs/cpu_map.txt against Intel's mapfile.

configs/cpu_map.txt promises an entry for every model Intel's perfmon mapfile.csv
assigns a core event file. The mapfile's core rows are kept as data in
tests/configgen/perfmon_mapfile/mapfile_core.csv (with the commit they are from).
For each row (GenuineIntel-FAMILY-MODEL[-STEPPINGS], event file, hybrid core type
and native model ID) this test wants the exact cpu_map.txt line of that family and
model, naming the config generated from that event file (configs/tables/<NAME>.txt
says which file it was reduced from): the P-core prefix for core type 0x40 or a
non-hybrid part, the E-core prefix for 0x20.

The mapfile tells two parts apart by stepping (6-55-[01234] Skylake-SP, 6-55-[5-F]
Cascade Lake) and by native model ID (the 6-C5 E-cores with 000002H are low-power
Crestmont): the map's stepping= and native= qualifiers must pick the same table for
every stepping and native model ID of a row (the most qualified line that applies wins,
as pmu/pmu_config_map.c decides). Run by make test.
"""
import csv
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DATA = os.path.join(ROOT, "tests", "configgen", "perfmon_mapfile", "mapfile_core.csv")
TABLES = os.path.join(ROOT, "configs", "tables")
CPU_MAP = os.path.join(ROOT, "configs", "cpu_map.txt")

def tables_by_source():
    """'/SKL/events/skylake_core.json' -> 'Skylake' from the tables' source lines."""
    out = {}
    for name in sorted(os.listdir(TABLES)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(TABLES, name)) as f:
            for line in f:
                m = re.match(r"# source: intel/perfmon (\S+)", line)
                if m:
                    out["/" + m.group(1)] = name[:-len(".txt")]
                    break
    return out


def read_map():
    """(family, model) -> [(P prefix, E prefix or None, {qualifier: value})]."""
    out = {}
    with open(CPU_MAP) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) < 4 or w[0] != "intel":
                continue
            quals = dict(x.split("=", 1) for x in w[4:] if "=" in x)
            rest = [x for x in w[4:] if "=" not in x]
            out.setdefault((int(w[1], 0), int(w[2], 0)), []).append((w[3], rest[0] if rest else None, quals))
    return out


def applies(quals, stepping, native):
    """Number of qualifiers the processor satisfies, or -1 (pmu/pmu_config_map.c)."""
    for k, v in quals.items():
        if k == "stepping":
            lo, _, hi = v.partition("-")
            if not int(lo, 0) <= stepping <= int(hi or lo, 0):
                return -1
        elif k == "native":
            if native is None or int(v, 0) != native:
                return -1
        else:
            return -1
    return len(quals)


def choose(lines, stepping, native, ecore):
    best, score = None, -1
    for p, e, quals in lines:
        n = applies(quals, stepping, native)
        if n > score:
            best, score = (e if ecore and e else p), n
    return best


def main():
    src = tables_by_source()
    cmap = read_map()
    rows = problems = 0
    with open(DATA) as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(lines):
        fm, path, ctype = r["Family-model"], r["Filename"], r["Core Type"]
        rows += 1
        m = re.match(r"GenuineIntel-([0-9A-F]+)-([0-9A-F]+)(-.*)?$", fm)
        if not m:
            print("perfmon_mapfile_test: %s: unreadable Family-model" % fm)
            problems += 1
            continue
        key = (int(m.group(1), 10), int(m.group(2), 16))
        table = src.get(path)
        entry = cmap.get(key)
        if table is None:
            print("perfmon_mapfile_test: %s: no table in configs/tables/ is reduced from %s" % (fm, path))
            problems += 1
            continue
        if entry is None:
            print("perfmon_mapfile_test: %s (%s): no cpu_map.txt line for family %d model 0x%02X"
                  % (fm, path, key[0], key[1]))
            problems += 1
            continue
        want_e = ctype.lower() == "0x20"
        native = int(r["Native Model ID"], 16) if r.get("Native Model ID") else None
        steppings = [int(c, 16) for c in re.sub(r"[^0-9A-F]", "", m.group(3))] if m.group(3) else [0]
        for stepping in steppings:
            got = choose(entry, stepping, native, want_e)
            if got != table:
                print("perfmon_mapfile_test: %s %s(%s), stepping %d%s: cpu_map.txt gives %s, not %s"
                      % (fm, "E-core " if want_e else "", path, stepping,
                         ", native model ID 0x%06X" % native if native is not None else "", got, table))
                problems += 1
    if problems:
        print("perfmon_mapfile_test: %d of %d mapfile rows wrong" % (problems, rows))
        return 1
    print("perfmon_mapfile_test: %d mapfile core rows, each with its exact cpu_map.txt entry "
          "(steppings and native model IDs included)" % rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
