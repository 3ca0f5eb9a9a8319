#!/usr/bin/env python3
"""zen_ppr_test.py - each Zen family's _all file against its table of AMD's PPR names.

configs/tables/zen_ppr_names.txt (Zen 1, nanoBench's list) and zenN_ppr_names.txt (Zen 2
to Zen 5, from Linux's names) hold "CODE NAME" lines. For each table, cfg_<FAMILY>_all.txt
must
  - start with exactly the table's names, in the table's order;
  - write every one of them with the table's encoding;
  - name no event twice;
  - give each alias ("# NAME: AMD's PPR name (...); X calls it ALIAS") to the line right
    after it, that line being NAME, and use an alias for one event only and never as
    another line's name (so the host tools resolve it to exactly one event).
Run by make test; `zen_ppr_test.py DIR` checks the configs in DIR instead of configs/.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TABLES = os.path.join(ROOT, "configs", "tables")
ALIAS = re.compile(r"^# (\S+): AMD's PPR name \([^)]*\); (?:libpfm4|Linux) calls it (\S+)$")
TABLE_NAME = re.compile(r"^zen(\d?)_ppr_names\.txt$")


def table_lines(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                out.append((w[0], w[1]))
    return out


def config_lines(path):
    """[(code, name)] of the entries and [(alias comment's PPR name, alias, next entry)]."""
    entries, aliases, pending = [], [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                m = ALIAS.match(line)
                if m:
                    pending = (m.group(1), m.group(2))
                continue
            w = line.split()
            if len(w) != 2:
                continue
            entries.append((w[0], w[1]))
            if pending:
                aliases.append((pending[0], pending[1], w[1]))
                pending = None
    return entries, aliases


def check(family, table, cfg):
    problems = []
    want = table_lines(table)
    entries, aliases = config_lines(cfg)
    names = [n for _, n in entries]
    by_name = {}
    for code, name in entries:
        if name in by_name:
            problems.append("%s written twice" % name)
        by_name[name] = code
    if names[:len(want)] != [n for _, n in want]:
        first = next((i for i, (a, b) in enumerate(zip(names, [n for _, n in want])) if a != b),
                     min(len(names), len(want)))
        problems.append("does not start with the table's %d names in order (first difference at "
                        "entry %d: %s, table: %s)" % (len(want), first + 1,
                                                      names[first] if first < len(names) else "-",
                                                      want[first][1] if first < len(want) else "-"))
    for code, name in want:
        if name not in by_name:
            problems.append("%s (%s) missing" % (name, code))
        elif by_name[name] != code:
            problems.append("%s is %s, the table says %s" % (name, by_name[name], code))
    seen = {}
    for ppr, alias, nxt in aliases:
        if ppr != nxt:
            problems.append("alias comment of %s is followed by %s" % (ppr, nxt))
        if alias in by_name:
            problems.append("alias %s of %s is also an entry's name" % (alias, ppr))
        if alias in seen:
            problems.append("alias %s names both %s and %s" % (alias, seen[alias], ppr))
        seen[alias] = ppr
    return problems, len(want), len(aliases), len(entries) - len(want)


def main(argv):
    configs = argv[1] if len(argv) > 1 else os.path.join(ROOT, "configs")
    failed, report = 0, []
    tables = sorted(n for n in os.listdir(TABLES) if TABLE_NAME.match(n))
    if len(tables) < 5:
        print("zen_ppr_test: expected the tables of Zen 1 to Zen 5, found %s" % tables)
        return 1
    for name in tables:
        family = "Zen" + TABLE_NAME.match(name).group(1)
        cfg = os.path.join(configs, "cfg_%s_all.txt" % family)
        if not os.path.exists(cfg):
            print("zen_ppr_test: %s: no %s" % (name, cfg))
            failed += 1
            continue
        problems, n, nalias, rest = check(family, os.path.join(TABLES, name), cfg)
        for p in problems[:12]:
            print("zen_ppr_test: cfg_%s_all.txt: %s" % (family, p))
        if len(problems) > 12:
            print("zen_ppr_test: cfg_%s_all.txt: ... %d problems" % (family, len(problems)))
        failed += bool(problems)
        report.append("%s %d PPR names (%d with an alias), %d other events" % (family, n, nalias, rest))
    if failed:
        return 1
    print("zen_ppr_test: " + "; ".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
