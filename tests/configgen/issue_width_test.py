#!/usr/bin/env python3
"""tests/configgen/issue_width_test.py - the slot-based top-down needs issue_width.

A metric file whose formulas use `issue_width` prints every such metric n/a unless it
sets `const issue_width`. WIDTHS holds the pipeline widths Intel's TMA gives (E-core
TMA #Pipeline_Width; METRICS-FACTS 2a): each listed file must set exactly that value.
Any other file that uses issue_width must set it too, or say in its
"# issue_width: not in ..." comment that no width is published for the core. (Files
whose top-down comes from a TMA file have the width inside the formulas.)
Run by make test.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
METRICS = os.path.join(ROOT, "configs", "metrics")
WIDTHS = {
    "ArrowLakeE_Skymont": 8, "LunarLakeE_Skymont": 8,              # Skymont
    "MeteorLakeE_Crestmont": 6, "SierraForest": 6,                  # Crestmont
    "Tremont": 4, "SnowRidgeX": 4,                                  # Tremont
    "AlderLakeE": 5,                                                # Gracemont
}


def main():
    problems = 0
    for name in sorted(os.listdir(METRICS)):
        prefix, text = name[:-4], open(os.path.join(METRICS, name)).read()
        body = "\n".join(l.split("#", 1)[0] for l in text.splitlines())
        m = re.search(r"^const issue_width = (\d+)", body, re.M)
        uses = re.search(r"=.*\bissue_width\b", body) is not None
        want = WIDTHS.get(prefix)
        if want is not None and (not m or int(m.group(1)) != want):
            print("issue_width_test: %s: issue_width %s, TMA's pipeline width is %d"
                  % (name, m.group(1) if m else "not set", want))
            problems += 1
        elif uses and not m and "# issue_width: not in" not in text:
            print("issue_width_test: %s uses issue_width without setting it or saying why" % name)
            problems += 1
    if problems:
        return 1
    print("issue_width_test: %d files checked, %d with TMA's widths" % (len(os.listdir(METRICS)), len(WIDTHS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
