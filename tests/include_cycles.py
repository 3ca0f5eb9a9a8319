#!/usr/bin/env python3
"""tests/include_cycles.py — no two parts of the target code depend on each other.

A unit is a pair foo.c + foo.h of lib/, pmu/ or kernel/ (or of any folder in
them: every one is on the include path, so a unit is named by its file name).
Unit A depends on unit B (an edge A -> B) when
  - a file of A includes a header of B (a quoted include), or
  - a .c file of A names a function that a .c file of B defines (calls it or
    takes its address). The include says so too when the function is declared
    in B's header; the call counts on its own when the declaration lives in a
    third unit's header (pmu.h declares the functions of pmu_detect.c,
    pmu_describe.c, ...) or in a .c file.
Any cycle in that graph (A -> B -> ... -> A, two units or more: two files that
include each other's headers or call each other, or a longer ring) is
reported with one path through it, each step saying why, and the test fails.
There is no list of allowed cycles.

Before looking at the tree the test checks itself on small made-up trees (a
clean one, an include cycle, a cycle made by calls alone).

Usage: tests/include_cycles.py [ROOT]   (exit 0: no cycle)
"""
import os
import re
import sys
import tempfile

DIRS = ("lib", "pmu", "kernel")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Comments, and string and character literals (their words are not names).
NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# A function definition at the start of a line, not static: its name, the
# parameters (one level of parentheses inside) and the opening brace.
DEFINITION = re.compile(
    r'^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^;{}()]*\))*\)\s*\{',
    re.M)
# A name that is not a member (after . or ->) or part of a longer word.
NAME = re.compile(r'(?<![\w.>])([A-Za-z_]\w*)\b')


def units(root):
    """unit name (file name without .c/.h) -> list of its files, from every folder of DIRS."""
    out = {}
    for d in DIRS:
        for folder, subdirs, names in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for name in sorted(names):
                base, ext = os.path.splitext(name)
                if ext in (".c", ".h"):
                    out.setdefault(base, []).append(os.path.relpath(os.path.join(folder, name), root))
    return out


def graph(root, files_of):
    """unit -> {unit it depends on: why} (itself left out). Every folder is on
    the include path, so a header is known by its file name."""
    headers = {os.path.basename(f) for files in files_of.values() for f in files if f.endswith(".h")}
    text = {}
    for files in files_of.values():
        for path in files:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                text[path] = f.read()
    # Where each function is defined (comments and strings left out).
    code = {path: NOISE.sub(" ", t) for path, t in text.items() if path.endswith(".c")}
    home = {}
    for unit, files in sorted(files_of.items()):
        for path in files:
            if path in code:
                for m in DEFINITION.finditer(code[path]):
                    home.setdefault(m.group(1), unit)
    edges = {}
    for unit, files in files_of.items():
        why = {}
        for path in files:
            for header in INCLUDE.findall(text[path]):
                name = os.path.basename(header)
                target = os.path.splitext(name)[0]
                if name in headers and target != unit:
                    why.setdefault(target, f"{os.path.basename(path)} includes {name}")
        for path in files:
            if path in code:
                for name in sorted(set(NAME.findall(code[path]))):
                    target = home.get(name)
                    if target is not None and target != unit:
                        why.setdefault(target, f"{os.path.basename(path)} calls {name}")
        edges[unit] = why
    return edges


def cycles(edges):
    """Strongly connected components of two units or more (Tarjan), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def path_through(edges, comp):
    """One cycle through the component's first unit, as 'a -> b (why) -> a (why)'."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(set(edges[v]) & members):
            if w == start:
                chain = [v]
                while prev[chain[-1]] is not None:
                    chain.append(prev[chain[-1]])
                chain = list(reversed(chain)) + [start]
                steps = [f"{b} ({edges[a][b]})" for a, b in zip(chain, chain[1:])]
                return " -> ".join([start] + steps)
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return " -> ".join(comp)


def check(root):
    """(number of units, list of cycle descriptions) for the tree at root."""
    edges = graph(root, units(root))
    return len(edges), [f"{path_through(edges, comp)} ({len(comp)} units)" for comp in cycles(edges)]


# Made-up trees: path -> text, and the cycles the check must find in them.
SELF_TESTS = [
    ("clean", {
        "lib/a.h": '#include "b.h"\nint a(void);\n',
        "lib/a.c": '#include "a.h"\nint a(void)\n{\n    return b();\n}\n',
        "lib/b.h": "int b(void);\n",
        "lib/b.c": '#include "b.h"\n/* a() in a comment is no call */\nint b(void)\n{\n    return 1;\n}\n',
    }, []),
    ("include ring", {
        "pmu/x.h": '#include "y.h"\n',
        "kernel/sub/y.h": "",
        "kernel/sub/y.c": '#include "z.h"\n',
        "kernel/z.h": '#include "x.h"\n',
    }, ["x -> y (x.h includes y.h) -> z (y.c includes z.h) -> x (z.h includes x.h) (3 units)"]),
    ("call cycle through a shared header", {
        "pmu/api.h": "int p_run(void);\nint q_run(void);\n",
        "pmu/p.c": '#include "api.h"\nint p_run(void)\n{\n    return q_run();\n}\n',
        "pmu/q.c": '#include "api.h"\nstatic int quiet(void) { return 0; }\n'
                   'int q_run(void)\n{\n    const char *s = "p_run()";\n    return s[0] + quiet() + p_run();\n}\n',
    }, ["p -> q (p.c calls q_run) -> p (q.c calls p_run) (2 units)"]),
]


def self_test():
    """Runs the check on SELF_TESTS; returns the list of failures."""
    failures = []
    for name, files, want in SELF_TESTS:
        with tempfile.TemporaryDirectory() as root:
            for path, body in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                    f.write(body)
            got = check(root)[1]
        if got != want:
            failures.append(f"{name}: found {got}, expected {want}")
    return failures


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    broken = self_test()
    for failure in broken:
        print(f"include-cycles: self-test {failure}")
    n_units, found = check(root)
    for cycle in found:
        print(f"include-cycles: cycle: {cycle}")
    status = 1 if broken or found else 0
    print(f"include-cycles: {n_units} units, {len(found)} cycle(s) of includes and calls: "
          f"{'passed' if status == 0 else 'FAILED'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
