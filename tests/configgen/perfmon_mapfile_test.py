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

Two distinctions of the mapfile the map cannot express yet (no stepping column, no
native-model-ID column) are listed in KNOWN_GAPS with the config the map gives
instead; the test fails if such a row starts to match (then the gap is closed and
must leave the list) or if any other row does not. Run by make test.
"""
import csv
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DATA = os.path.join(ROOT, "tests", "configgen", "perfmon_mapfile", "mapfile_core.csv")
TABLES = os.path.join(ROOT, "configs", "tables")
CPU_MAP = os.path.join(ROOT, "configs", "cpu_map.txt")

# (Family-model, event file) -> why the map gives another config.
KNOWN_GAPS = {
    ("GenuineIntel-6-55-[56789ABCDEF]", "/CLX/events/cascadelakex_core.json"):
        "Cascade Lake is 6-55 stepping 5-F; cpu_map.txt has no stepping column (SkylakeX for both)",
    ("GenuineIntel-6-C5", "/ARL/events/arrowlake_crestmont_core.json"):
        "the low-power Crestmont E-cores of 6-C5 differ from Skymont only in the native model ID "
        "(CPUID.1AH:EAX[23:0]); cpu_map.txt has no column for it (Skymont for both)",
}


def tables_by_source():
    """'/SKL/events/skylake_core.json' -> 'Skylake' from the tables' source lines."""
    out = {}
    for name in sorted(os.listdir(TABLES)):
        with open(os.path.join(TABLES, name)) as f:
            for line in f:
                m = re.match(r"# source: intel/perfmon (\S+)", line)
                if m:
                    out["/" + m.group(1)] = name[:-len(".txt")]
                    break
    return out


def read_map():
    """(family, model) -> [P prefix, E prefix or None]."""
    out = {}
    with open(CPU_MAP) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) >= 4 and w[0] == "intel":
                out[(int(w[1], 0), int(w[2], 0))] = (w[3], w[4] if len(w) > 4 else None)
    return out


def main():
    src = tables_by_source()
    cmap = read_map()
    rows = problems = gaps = 0
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
        got = entry[1] if want_e else entry[0]
        ok = got == table
        gap = KNOWN_GAPS.get((fm, path))
        if gap:
            gaps += 1
            if ok:
                print("perfmon_mapfile_test: %s (%s) now maps to %s: remove it from KNOWN_GAPS"
                      % (fm, path, table))
                problems += 1
            continue
        if not ok:
            print("perfmon_mapfile_test: %s %s(%s): cpu_map.txt gives %s, not %s"
                  % (fm, "E-core " if want_e else "", path, got, table))
            problems += 1
    if problems:
        print("perfmon_mapfile_test: %d of %d mapfile rows wrong" % (problems, rows))
        return 1
    print("perfmon_mapfile_test: %d mapfile core rows, each with its exact cpu_map.txt entry "
          "(%d known gaps: stepping, native model ID)" % (rows, gaps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
