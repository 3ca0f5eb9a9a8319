#!/usr/bin/env python3
"""ppr_names.py - AMD's PPR event names for one Zen family, as a table gen_configs reads.

Run by hand on the host (not by make); its output is committed as
configs/tables/zenN_ppr_names.txt and read by tools/configgen/gen_configs.c, which writes
cfg_ZenN_all.txt with these names first (configs/README.md, "AMD's PPR names").

    tools/configgen/ppr_names.py FAMILY INPUT... > configs/tables/zenN_ppr_names.txt
    (make ppr-tables runs it for Zen 2 to Zen 5)

INPUT is any mix of
  - Linux perf event lists (tools/perf/pmu-events/arch/x86/amdzenN/*.json): each event
    with an EventCode and no Unit (the core counters' events; L3PMC and data-fabric ones
    are other PMUs), Deprecated ones left out;
  - text files of "CODE NAME ..." lines (our event tables, e.g. configs/tables/Zen5.txt,
    or configs/tables/linux_amdzen/zenN.txt, "CODE linux_name" lines transcribed from those
    JSON files), where NAME is Linux's name in any letter case; lines with a skip: flag and
    '#' lines are ignored. Its "#: " lines (where the facts come from) are copied into the
    output's header.

Linux's names are AMD's PPR register mnemonics in snake case
(PMCx000 Core::X86::Pmc::Core::FpuPipeAssignment, field Total0 is
fpu_pipe_assignment.total0); this writes them back in the PPR's CamelCase: every
'_'-separated word gets a capital first letter (FpuPipeAssignment.Total0). Where the
same mnemonic is in nanoBench's Zen 1 list (configs/tables/zen_ppr_names.txt, compared
ignoring case and '_'), nanoBench's spelling wins: for the event part, and for the whole
name when the whole name matches and nanoBench writes it in CamelCase
(LsL1DTlbMiss.TlbReload4KL2Miss, not ...4kL2Miss; but LsRefillsFromSys.LsMabrespLclCache,
not nanoBench's LsRefillsFromSys.LS_MABRESP_LCL_CACHE). An encoding alone never picks a
Zen 1 name: the PPR renamed some unit-mask fields (045H bit 5: Zen 1 TlbReload32KL2Miss,
later TlbReloadCoalescedPageMiss).

Output: "CODE PprName" lines sorted by encoding, one per encoding (a later name for an
encoding already listed is dropped and reported in the header).
"""
import json
import os
import re
import sys

ZEN1_TABLE = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "tables",
                          "zen_ppr_names.txt")
CODE = re.compile(r"^([0-9A-Fa-f]{1,3})\.([0-9A-Fa-f]{2})((?:\.[A-Za-z0-9_=]+)*)$")


def squash(s):
    return s.replace("_", "").lower()


def load_zen1(path):
    """nanoBench's spellings: squashed event part -> spelling, squashed name -> spelling."""
    events, names = {}, {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#") or len(parts) < 2:
                continue
            name = parts[1]
            names[squash(name)] = name
            events.setdefault(squash(name.split(".")[0]), name.split(".")[0])
    return events, names


def camel(part):
    return "".join(w[:1].upper() + w[1:] for w in part.split("_") if w)


def ppr_name(linux, zen1):
    zen1_events, zen1_names = zen1
    linux = linux.lower()
    event, _, rest = linux.partition(".")
    if squash(linux) in zen1_names and "_" not in zen1_names[squash(linux)]:
        return zen1_names[squash(linux)]
    out = zen1_events.get(squash(event), camel(event))
    for sub in rest.split(".") if rest else []:
        out += "." + camel(sub)
    return out


def norm_code(code):
    m = CODE.match(code)
    if not m:
        raise ValueError("bad encoding %r" % code)
    return "%03X.%02X%s" % (int(m.group(1), 16), int(m.group(2), 16), m.group(3))


def read_input(path, notes):
    """[(code, linux_name)] from one JSON event list or one text table; its source lines
    are appended to notes."""
    out = []
    if path.endswith(".json"):
        notes.append("Source: Linux event list %s" % os.path.basename(path))
        with open(path) as f:
            for e in json.load(f):
                if "EventCode" not in e or "EventName" not in e or "Unit" in e:
                    continue
                if "MetricExpr" in e or str(e.get("Deprecated", "0")) == "1":
                    continue
                code = int(str(e["EventCode"]), 0)
                umask = int(str(e.get("UMask", "0")), 0)
                out.append(("%03X.%02X" % (code, umask), e["EventName"].strip()))
        return out
    first = len(notes)
    with open(path) as f:
        for line in f:
            if line.startswith("#: "):
                notes.append(line[3:].rstrip("\n"))
            parts = line.split()
            if not parts or parts[0].startswith("#") or parts[0] in ("vendor", "gp"):
                continue
            if any(p.startswith("skip:") for p in parts[2:]):
                continue
            out.append((norm_code(parts[0]), parts[1]))
    if len(notes) == first:
        notes.append("Source: %s (its header names where its facts come from)" % path)
    return out


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    family, inputs = argv[1], argv[2:]
    zen1 = load_zen1(ZEN1_TABLE)
    rows, seen, dropped, names, notes = [], {}, [], set(), []
    for path in inputs:
        for code, linux in read_input(path, notes):
            name = ppr_name(linux, zen1)
            if code in seen:
                dropped.append("%s %s (%s has it)" % (code, linux.lower(), seen[code]))
                continue
            if name in names:
                raise SystemExit("ppr_names: %s: two encodings named %s" % (path, name))
            seen[code] = linux.lower()
            names.add(name)
            rows.append((code, name, linux.lower()))
    rows.sort(key=lambda r: (int(r[0].split(".")[0], 16), int(r[0].split(".")[1], 16), r[0]))
    print("# AMD %s core events under AMD's PPR names (register mnemonics in CamelCase), one" % family)
    print("# per encoding, sorted by encoding: CODE NAME per line, as data. Read by")
    print("# tools/configgen/gen_configs.c: cfg_%s_all.txt starts with these lines, the" % family)
    print("# source's name of the same encoding noted as its alias.")
    for line in notes:
        print("# " + line)
    print("# Made by tools/configgen/ppr_names.py (Linux's snake_case names back to the PPR's")
    print("# CamelCase; nanoBench's Zen 1 spellings where the mnemonic is the same).")
    for d in dropped:
        print("# dropped, same encoding as an earlier name: " + d)
    for code, name, _ in rows:
        print("%s %s" % (code, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
