#!/usr/bin/env python3
"""tests/check_rooms.py — the rooms of kernel/ (and of tools/ where it has
them) stay what kernel/rooms.txt says they are.

A tree (kernel/, tools/) with a rooms.txt lists its rooms, lowest first; the
line "." names the only .c/.h files allowed directly in the tree. Checked:

  * every .c/.h file of the tree sits in a listed room, one level deep, and a
    file directly in the tree is one of those named on the "." line;
  * every room of the list exists, and no folder of the tree is unlisted
    (only folders holding .c/.h files count);
  * the tree and each room have a README.md;
  * no two headers of the tree share a name (the build puts every room on
    the include path, so "name.h" must mean one file);
  * no file includes a header of a room listed after its own (a lower room
    never depends on a higher one).

Before the real tree, the checker runs on a copy of it with one deliberate
violation of each kind and fails unless it reports every one (--no-self-test
skips that). --graph prints the room-level include graph and the file-level
edges that cross rooms.
"""
import os
import re
import shutil
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TREES = ["kernel", "tools"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_rooms(tree_dir):
    """(rooms lowest first, files allowed in the tree itself) or None without rooms.txt."""
    path = os.path.join(tree_dir, "rooms.txt")
    if not os.path.isfile(path):
        return None
    rooms, top = [], set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == ".":
                top.update(line[1:])
            else:
                rooms.append(line[0])
    return rooms, top


def sources(tree_dir):
    """Every .c/.h under tree_dir as a path relative to it."""
    out = []
    for dirpath, _, files in os.walk(tree_dir):
        for name in files:
            if name.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(dirpath, name), tree_dir))
    return sorted(out)


def room_of(rel):
    """The room of a tree-relative path: "." for a file in the tree itself."""
    parts = rel.split(os.sep)
    return "." if len(parts) == 1 else parts[0]


def check_tree(tree_dir, tree, graph=None):
    """The problems of one tree, as lines naming the file and the rule."""
    spec = read_rooms(tree_dir)
    if spec is None:
        return []
    rooms, top = spec
    order = {room: i for i, room in enumerate(rooms)}
    order["."] = len(rooms)  # the tree itself is above every room
    problems = []
    files = sources(tree_dir)

    if not os.path.isfile(os.path.join(tree_dir, "README.md")):
        problems.append(f"{tree}/: no README.md")
    for room in rooms:
        if not os.path.isdir(os.path.join(tree_dir, room)):
            problems.append(f"{tree}/rooms.txt: room {room}/ does not exist")
        elif not os.path.isfile(os.path.join(tree_dir, room, "README.md")):
            problems.append(f"{tree}/{room}/: no README.md (what it does, what it may include, what includes it)")

    headers = {}
    for rel in files:
        room = room_of(rel)
        if len(rel.split(os.sep)) > 2:
            problems.append(f"{tree}/{rel}: rooms are one level deep")
        elif room == "." and os.path.basename(rel) not in top:
            allowed = f"only {' '.join(sorted(top))} may stay in {tree}/" if top else f"no .c/.h may stay in {tree}/"
            problems.append(f"{tree}/{rel}: not in a room ({allowed})")
        elif room != "." and room not in order:
            problems.append(f"{tree}/{rel}: {room}/ is not a room of {tree}/rooms.txt")
        if rel.endswith(".h"):
            name = os.path.basename(rel)
            if name in headers:
                problems.append(f"{tree}/{rel}: a second {name} (also {tree}/{headers[name]}); "
                                "every room is on the include path")
            else:
                headers[name] = rel

    for rel in files:
        room = room_of(rel)
        if room not in order:
            continue
        with open(os.path.join(tree_dir, rel), errors="replace") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            target = headers.get(os.path.basename(name))
            if target is None:
                continue  # lib/, pmu/, another tree: tests/check_layers.sh
            troom = room_of(target)
            if troom not in order:
                continue
            if graph is not None and troom != room:
                graph.setdefault((f"{tree}/{room}", f"{tree}/{troom}"), []).append(
                    f"{tree}/{rel} -> {tree}/{target}")
            if order[troom] > order[room]:
                where = f"{tree}/ itself" if troom == "." else f"{troom}/"
                problems.append(f"{tree}/{rel} includes \"{name}\" of {where}, a higher room than "
                                f"{'the tree' if room == '.' else room + '/'} ({tree}/rooms.txt)")
    return problems


def check_all(root, graph=None):
    problems = []
    for tree in TREES:
        problems += check_tree(os.path.join(root, tree), tree, graph)
    return problems


def self_test():
    """One deliberate violation of each kind on a copy of kernel/; all must be reported."""
    kernel = os.path.join(ROOT, "kernel")
    rooms, top = read_rooms(kernel)
    low, high = rooms[0], rooms[-1]
    low_c = next(f for f in sources(kernel) if room_of(f) == low and f.endswith(".c"))
    high_h = next(f for f in sources(kernel) if room_of(f) == high and f.endswith(".h"))
    mid = rooms[len(rooms) // 2]
    cases = [
        ("upward include", lambda d: open(os.path.join(d, low_c), "a").write(
            f'#include "{os.path.basename(high_h)}"\n'), f"{low_c} includes"),
        ("file outside the rooms", lambda d: open(os.path.join(d, "stray.c"), "w").write("\n"),
         "stray.c: not in a room"),
        ("room without README", lambda d: os.remove(os.path.join(d, mid, "README.md")),
         f"{mid}/: no README.md"),
        ("unlisted folder", lambda d: (os.mkdir(os.path.join(d, "attic")),
                                       open(os.path.join(d, "attic", "old.c"), "w").write("\n")),
         "attic/ is not a room"),
        ("same header twice", lambda d: shutil.copy(os.path.join(d, high_h), os.path.join(d, low)),
         f"a second {os.path.basename(high_h)}"),
    ]
    failed = 0
    for what, damage, expect in cases:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "kernel")
            shutil.copytree(kernel, copy)
            for room in rooms:  # the baseline has every README, whatever the tree has now
                readme = os.path.join(copy, room, "README.md")
                if not os.path.exists(readme):
                    open(readme, "w").write("\n")
            before = check_tree(copy, "kernel")
            damage(copy)
            after = [p for p in check_tree(copy, "kernel") if p not in before]
            if not any(expect in p for p in after):
                print(f"rooms: self-test: {what} not reported (wanted '{expect}', got {after})")
                failed += 1
    return failed, len(cases)


def room_lines(graph, counts=True):
    """The room-level part of the graph: one line per room, whom it includes (and how often)."""
    rooms_edges = {}
    for (a, b), edges in graph.items():
        rooms_edges.setdefault(a, []).append(f"{b} ({len(edges)})" if counts else b)
    return [f"{room} -> {', '.join(sorted(rooms_edges[room]))}" for room in sorted(rooms_edges)]


# docs/layout.md shows the room-level graph as an indented block after this sentence.
LAYOUT_DOC = "docs/layout.md"
LAYOUT_MARK = "so it cannot go stale:"


def check_layout_doc(root, graph):
    """The graph docs/layout.md shows must be this tree's (a sample that cannot go stale)."""
    path = os.path.join(root, LAYOUT_DOC)
    if not os.path.isfile(path):
        return []
    lines = open(path, encoding="utf-8").read().split("\n")
    at = next((i for i, l in enumerate(lines) if LAYOUT_MARK in l), None)
    if at is None:
        return [f"{LAYOUT_DOC}: no '{LAYOUT_MARK}' sample of the graph"]
    i = at + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    shown = []
    while i < len(lines) and lines[i].startswith("    "):
        shown.append(lines[i][4:])
        i += 1
    actual = room_lines(graph, counts=False)  # which rooms, not how many includes: stable across edits
    if shown != actual:
        return [f"{LAYOUT_DOC}: the room graph it shows is not this tree's; "
                f"it is:\n" + "\n".join("    " + l for l in actual)]
    return []


def print_graph(graph):
    for line in room_lines(graph):
        print(line)
    print()
    for key in sorted(graph):
        for edge in graph[key]:
            print(f"  {edge}")


def main(argv):
    graph = {} if "--graph" in argv else None
    passed = failed = 0
    if "--no-self-test" not in argv and graph is None:
        bad, total = self_test()
        failed += bad
        passed += total - bad
    want_graph = graph is not None
    graph = {} if graph is None else graph
    problems = check_all(ROOT, graph)
    problems += check_layout_doc(ROOT, graph)
    if want_graph:
        print_graph(graph)
    for p in problems:
        print(f"rooms: {p}")
    if problems:
        failed += 1
    else:
        passed += 1
    print(f"rooms: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
