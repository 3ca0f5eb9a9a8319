#!/usr/bin/env python3
"""tests/include_cycles.py — no two parts of the target code depend on each other.

A unit is a pair foo.c + foo.h of lib/, pmu/ or kernel/ (or of any folder in
them: every one is on the include path, so a unit is named by its file name):
a file of unit A that includes a header of unit B (a quoted include) makes an
edge A -> B.
Any cycle in that graph (A -> B -> ... -> A, two units or more: two files that
include each other's headers, or a longer ring) is reported with one path
through it, and the test fails. ALLOWED below names the edges that closed the
cycles which existed when this test was written: they are left out of the
graph, so those cycles pass while any new one fails. An allowed edge that no
longer exists, or no longer closes a cycle, fails too (the test says to remove
it), so the list only shrinks; empty is the goal.

Usage: tests/include_cycles.py [ROOT]   (exit 0: no cycle beyond ALLOWED)
"""
import os
import re
import sys

DIRS = ("lib", "pmu", "kernel")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# (from, to): edges that close a cycle known when the test was added.
ALLOWED = []


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
    """unit -> set of units it includes (itself left out). Every folder is on the
    include path, so a header is known by its file name."""
    headers = {os.path.basename(f) for files in files_of.values() for f in files if f.endswith(".h")}
    edges = {}
    for unit, files in files_of.items():
        targets = set()
        for path in files:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                name = os.path.basename(header)
                target = os.path.splitext(name)[0]
                if name in headers and target != unit:
                    targets.add(target)
        edges[unit] = targets
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
    """One cycle through the component's first unit, as 'a -> b -> a'."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & members):
            if w == start:
                chain = [v]
                while prev[chain[-1]] is not None:
                    chain.append(prev[chain[-1]])
                return " -> ".join(list(reversed(chain)) + [start])
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return " -> ".join(comp)


def reaches(edges, start, goal):
    """True when goal can be reached from start."""
    seen, todo = {start}, [start]
    while todo:
        v = todo.pop()
        if v == goal:
            return True
        for w in edges[v] - seen:
            seen.add(w)
            todo.append(w)
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    edges = graph(root, units(root))
    status = 0
    for a, b in ALLOWED:
        if b not in edges.get(a, set()):
            print(f"include-cycles: allowed edge {a} -> {b} no longer exists: remove it from ALLOWED")
            status = 1
        elif not reaches(edges, b, a):
            print(f"include-cycles: allowed edge {a} -> {b} no longer closes a cycle: remove it from ALLOWED")
            status = 1
    kept = {u: {t for t in ts if (u, t) not in ALLOWED} for u, ts in edges.items()}
    found = cycles(kept)
    for comp in found:
        print(f"include-cycles: cycle: {path_through(kept, comp)} ({len(comp)} units)")
        status = 1
    print(f"include-cycles: {len(edges)} units, {len(found)} cycle(s) beyond the {len(ALLOWED)} allowed "
          f"edge(s): {'passed' if status == 0 else 'FAILED'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
