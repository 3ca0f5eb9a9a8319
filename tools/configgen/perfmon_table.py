#!/usr/bin/env python3
"""perfmon_table.py - reduce one vendor event list to our event-table format.

Run by hand on the host (not by make); its output is committed under
configs/tables/ and read by tools/gen_configs (configs/README.md, "Event tables").

    tools/configgen/perfmon_table.py intel PERFMON_DIR REL_PATH [--tma METRICS_REL_PATH] > configs/tables/NAME.txt
        Intel perfmon event file, e.g. SKL/events/skylake_core.json in a checkout of
        github.com/intel/perfmon (the commit is read with git when PERFMON_DIR is one).
        --tma: also the counter-mask / edge / invert variants (EVENT:c1, :e1, :i1) that
        the top-down formulas of that perfmon metric file use (the metrics
        tools/configgen/tma_table.py keeps) and the event file does not list under a name
        of its own: e.g. UOPS_DECODED.DEC0:c1 of Ice Lake's Heavy_Operations becomes
        "56.01.CMSK=1 UOPS_DECODED.DEC0.CMSK1 0-3 tma:UOPS_DECODED.DEC0:c1", placed after
        its event, with its event's counters.
    tools/configgen/perfmon_table.py amd LINUX_COMMIT DIR_LABEL FILE.json... > configs/tables/NAME.txt
        The AMD PPR event lists as carried in Linux tools/perf/pmu-events/arch/x86/amdzenN.

Only facts are kept (event name, event select, umask, cmask, inv, edge, AnyThread,
extra MSR values, allowed counters); descriptions are never copied.

Table line:  CODE NAME COUNTERS [FLAG...]
  CODE      nanoBench encoding without .CTR (configs/README.md, "Format")
  COUNTERS  allowed general-purpose counters ("0-3", "0,1", "2"), "any" when the source
            names none, or "fixed:N" for an event only fixed counter N counts
  FLAG      offcore (programs MSR_OFFCORE_RSP_x), merge (AMD: exact only with the
            MergeEvent pairing), skip:WHY (kept for the record, not written to configs),
            tma:EVENT:MODS (a variant of EVENT that TMA's formulas use, see --tma)
"""
import json
import os
import re
import subprocess
import sys


def num(s):
    s = str(s).strip()
    return int(s, 0) if s else 0


def counters(text):
    """'0,1,2,3' -> [0,1,2,3]; 'Fixed counter 1' -> 'fixed:1'."""
    text = text.strip()
    if text.lower().startswith("fixed counter"):
        return "fixed:%d" % int(text.split()[-1])
    return sorted({int(x) for x in text.replace(" ", "").split(",") if x != ""})


def ranges(ctrs):
    """[0,1,2,3,5] -> '0-3,5' (the counter-set syntax of configs/README.md)."""
    out, i = [], 0
    while i < len(ctrs):
        j = i
        while j + 1 < len(ctrs) and ctrs[j + 1] == ctrs[j] + 1:
            j += 1
        out.append(str(ctrs[i]) if i == j else "%d-%d" % (ctrs[i], ctrs[j]))
        i = j + 1
    return ",".join(out)


MSR_NAMES = {0x1A6: "MSR_RSP0", 0x1A7: "MSR_RSP1", 0x3F6: "MSR_3F6H", 0x3F7: "MSR_PF"}


def intel_line(e):
    name = e["EventName"].strip().upper()
    code = num(e["EventCode"].split(",")[0])
    umask = num(e["UMask"].split(",")[0])  # offcore pairs: the first (RSP0) event
    skip = []
    if num(e.get("UMaskExt", "0")):
        skip.append("UMaskExt (PERFEVTSEL[47:40])")
    if num(e.get("Equal", "0")):
        skip.append("Equal (cmask equality)")
    if code > 0xFF:
        skip.append("event code above FFH")
    enc = "%02X.%02X" % (code & 0xFF, umask)
    cmask = num(e.get("CounterMask", "0"))
    if cmask:
        enc += ".CMSK=%d" % cmask
    if num(e.get("AnyThread", "0")):
        enc += ".AnyT"
    if num(e.get("EdgeDetect", "0")):
        enc += ".EDG"
    if num(e.get("Invert", "0")):
        enc += ".INV"
    if num(e.get("TakenAlone", "0")):
        enc += ".TakenAlone"
    flags = []
    msrs = [m for m in e.get("MSRIndex", "0").replace(" ", "").split(",") if num(m)]
    if msrs:
        msr = num(msrs[0])  # offcore pairs 1A6H,1A7H: either register, RSP0 written
        if msr not in MSR_NAMES:
            skip.append("MSR %s" % msrs[0])
        else:
            enc += ".%s=0x%X" % (MSR_NAMES[msr], num(e.get("MSRValue", "0")))
            if msr in (0x1A6, 0x1A7):
                flags.append("offcore")
    ctr = counters(e.get("Counter", ""))
    ht_off = e.get("CounterHTOff")
    if isinstance(ctr, list) and ht_off and not ht_off.lower().startswith("fixed"):
        # Without Hyper-Threading the core has more counters; the wider list is the
        # constraint (the HT-on list is always its part below the HT-on count).
        ctr = sorted(set(ctr) | set(counters(ht_off)))
    ctext = ctr if isinstance(ctr, str) else (ranges(ctr) if ctr else "any")
    for s in skip:
        flags.append("skip:" + s.replace(" ", "_"))
    return "%s %s %s%s" % (enc, name, ctext, "".join(" " + f for f in flags))


def git_commit(d):
    if os.environ.get("PERFMON_COMMIT"):  # an exported tree (git archive) has no .git
        return os.environ["PERFMON_COMMIT"]
    try:
        return subprocess.run(["git", "-C", d, "log", "-1", "--format=%H"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# TMA's event modifiers (perf's syntax) -> the event-file fields that express them
TMA_MODS = {"e1": ("EdgeDetect", "1"), "i1": ("Invert", "1")}


def tma_variants(perfmon_dir, metrics_rel, events):
    """{event name: [(TMA's name, the variant as an event-file entry)]} for the modified
    events (EVENT:cN / :e1 / :i1) of the metrics tma_table.py keeps from metrics_rel whose
    encoding no event of `events` has. Other modifiers (:perf_metrics, :percore, ...) are
    no encodings and are passed over."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tma_table
    with open(os.path.join(perfmon_dir, metrics_rel)) as f:
        kept = tma_table.kept(json.load(f))
    by_name = {e["EventName"].strip().upper(): e for e in events}
    have = {intel_line(e).split()[0] for e in events}
    out, seen = {}, set()
    for m in kept.values():
        for ev in m.get("Events", []):
            parts = ev["Name"].split(":")
            base, mods = parts[0].upper(), [p.lower() for p in parts[1:]]
            if not mods or base not in by_name or ev["Name"] in seen:
                continue
            if not all(re.fullmatch(r"c\d+", x) or x in TMA_MODS for x in mods):
                continue
            seen.add(ev["Name"])
            v = dict(by_name[base])
            suffix = ""
            for x in mods:
                if x in TMA_MODS:
                    v[TMA_MODS[x][0]] = TMA_MODS[x][1]
                else:
                    v["CounterMask"] = x[1:]
            cm, ed, inv = num(v.get("CounterMask", "0")), num(v.get("EdgeDetect", "0")), num(v.get("Invert", "0"))
            suffix = (".CMSK%d" % cm if cm else "") + (".EDG" if ed else "") + (".INV" if inv else "")
            v["EventName"] = base + suffix
            if intel_line(v).split()[0] in have:
                continue  # the event file names this encoding already
            have.add(intel_line(v).split()[0])
            out.setdefault(base, []).append((ev["Name"], v))
    return out


def intel(perfmon_dir, rel, metrics_rel=None):
    with open(os.path.join(perfmon_dir, rel)) as f:
        data = json.load(f)
    hdr = data.get("Header", {})
    events = data["Events"]
    live = [e for e in events if not num(e.get("Deprecated", "0"))]
    variants = tma_variants(perfmon_dir, metrics_rel, live) if metrics_rel else {}
    gp = set()
    lines, dropped, added = [], 0, 0
    for e in events:
        if num(e.get("Deprecated", "0")):
            dropped += 1
            continue
        line = intel_line(e)
        c = counters(e.get("Counter", ""))
        if isinstance(c, list):
            gp |= set(c)
            if e.get("CounterHTOff") and not e["CounterHTOff"].lower().startswith("fixed"):
                gp |= set(counters(e["CounterHTOff"]))
        lines.append(line)
        for tma_name, v in variants.pop(e["EventName"].strip().upper(), []):
            lines.append("%s tma:%s" % (intel_line(v), tma_name))
            added += 1
    print("# Event table (facts only, no descriptions) reduced by tools/configgen/perfmon_table.py")
    print("# source: intel/perfmon %s version %s (commit %s)" %
          (rel, hdr.get("Version", "?"), git_commit(perfmon_dir)))
    if metrics_rel:
        print("# command: tools/configgen/perfmon_table.py intel PERFMON_DIR %s --tma %s" % (rel, metrics_rel))
        print("# %d variants (flag tma:) of events that the top-down formulas of intel/perfmon %s use"
              % (added, metrics_rel))
    else:
        print("# command: tools/configgen/perfmon_table.py intel PERFMON_DIR %s" % rel)
    print("# %d deprecated events left out" % dropped)
    print("vendor intel")
    print("gp %d" % (max(gp) + 1 if gp else 0))
    for line in lines:
        print(line)


def amd_line(e):
    name = e["EventName"].strip().upper()
    code = num(e["EventCode"])
    umask = num(e.get("UMask", "0"))
    enc = "%03X.%02X" % (code, umask)
    cmask = num(e.get("CounterMask", "0"))
    if cmask:
        enc += ".CMSK=%d" % cmask
    if num(e.get("EdgeDetect", "0")):
        enc += ".EDG"
    if num(e.get("Invert", "0")):
        enc += ".INV"
    return enc, name


def amd(commit, label, files):
    lines, seen = [], set()
    for path in files:
        with open(path) as f:
            for e in json.load(f):
                if "EventCode" not in e or "EventName" not in e:
                    continue  # metric groups and the like
                if "MetricExpr" in e or str(e.get("Deprecated", "0")) == "1":
                    continue
                enc, name = amd_line(e)
                if name in seen:
                    continue
                seen.add(name)
                # PMCx003 counts up to 15 a cycle: Linux pairs it with the MergeEvent
                # (arch/x86/events/amd/core.c amd_is_pair_event_code).
                merge = " merge" if num(e["EventCode"]) == 0x003 else ""
                lines.append("%s %s any%s" % (enc, name, merge))
    print("# Event table (facts only, no descriptions) reduced by tools/configgen/perfmon_table.py")
    print("# source: Linux %s (commit %s), files %s" %
          (label, commit, " ".join(os.path.basename(p) for p in files)))
    print("# command: tools/configgen/perfmon_table.py amd %s %s FILE..." % (commit, label))
    print("vendor amd")
    print("gp 6")
    for line in lines:
        print(line)


def main(argv):
    if len(argv) == 4 and argv[1] == "intel":
        intel(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "intel" and argv[4] == "--tma":
        intel(argv[2], argv[3], argv[5])
    elif len(argv) >= 5 and argv[1] == "amd":
        amd(argv[2], argv[3], argv[4:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
