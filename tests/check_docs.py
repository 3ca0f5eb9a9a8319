#!/usr/bin/env python3
"""tests/check_docs.py — the documents' links, and the README's shape.

Every Markdown file of the repository (README.md, docs/*.md, the folders'
README.md files) is read, fenced code blocks and `code spans` left out, and
every link [text](target), <a href="target"> and [label]: target is checked:

  - a relative target must name a file or folder that exists;
  - it must stay inside the repository (no ../shared, no absolute /path);
  - a #anchor must be a heading of the target file, slugged as GitHub does
    (lower case; everything but letters, digits, spaces, - and _ dropped;
    each space a -; a repeated heading gets -1, -2, ...).

The text outside code must not cite a path outside the repository either
(../something, /work/...): users only have the repository. A file of the
repository named in the text or in a `code span` (a path under one of its
top folders, with an extension: `lib/nb_platform.h`, `configs/cpu_map.txt`)
must exist, so a moved or renamed file cannot leave a stale name behind;
names with a placeholder (`cfg_<NAME>_common.txt`, `PREFIX.txt`,
`run-NNNN.csv`) are not files and are left alone.

README.md must have at most 250 lines and a table of contents (a heading
"Contents" or "Documentation") that links every docs/*.md page.

Usage: tests/check_docs.py [ROOT]   (default: the repository holding this file)
Exit status 0 when every check holds, 1 otherwise, with one line per fault:
FILE:LINE: what is wrong.
"""
import os
import re
import sys

README_MAX_LINES = 250
TOC_HEADINGS = ("contents", "documentation")

LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HREF = re.compile(r"<a\s[^>]*href=\"([^\"]*)\"", re.I)
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
# A path that leaves the repository, cited in prose: ../x, or /work/, /tmp/... folders of this machine.
OUTSIDE = re.compile(r"(?<![\w./-])(\.\./[\w.-]|/work/|/home/)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
# A file of the repository cited by name: a top folder, then a path ending in an extension.
TOP_FOLDERS = ("boot", "kernel", "pmu", "lib", "tools", "tests", "configs", "images", "docs", "python", "lava")
CITED = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*\.[A-Za-z0-9]+)(?![\w/<*-])" % "|".join(TOP_FOLDERS))
PLACEHOLDER = re.compile(r"NNNN|PREFIX|NAME|ARCH|<|\*")


def markdown_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("build", "node_modules")]
        for f in files:
            if f.endswith(".md"):
                out.append(os.path.join(d, f))
    return sorted(out)


def prose_lines(text, keep_spans=False):
    """(line number, line) outside fenced code, with `code spans` blanked unless keep_spans."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line if keep_spans else re.sub(r"(`+)(.+?)\1", lambda s: " " * len(s.group(0)), line)


def slug(heading):
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, out = {}, set()
        fence = None
        with open(path, encoding="utf-8") as f:
            for line in f.read().split("\n"):
                m = FENCE.match(line)
                if fence:
                    if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                        fence = None
                    continue
                if m:
                    fence = m.group(1)
                    continue
                h = HEADING.match(line)
                if h:
                    s = slug(h.group(2))
                    k = seen.get(s, 0)
                    seen[s] = k + 1
                    out.add(s if k == 0 else "%s-%d" % (s, k))
                for a in re.findall(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"", line, re.I):
                    out.add(a)
        _anchors[path] = out
    return _anchors[path]


def check_target(root, path, target):
    """None when target is fine, else why not."""
    if not target or SCHEME.match(target):
        return None
    file_part, _, anchor = target.partition("#")
    if file_part.startswith("/"):
        return "link to an absolute path %s (outside the repository)" % file_part
    dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
    if os.path.relpath(dest, root).startswith(".."):
        return "link to %s leaves the repository" % file_part
    if not os.path.exists(dest):
        return "link to %s: no such file" % file_part
    if anchor:
        if os.path.isdir(dest) or not dest.endswith(".md"):
            return "link to #%s in %s, which is not a Markdown file" % (anchor, file_part)
        if anchor not in anchors(dest):
            return "link to #%s: %s has no such heading" % (anchor, os.path.relpath(dest, root))
    return None


def check_file(root, path):
    faults = []
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for n, line in prose_lines(text, keep_spans=True):
        for m in CITED.finditer(line):
            cited = m.group(1).rstrip(".")
            if not PLACEHOLDER.search(cited) and not os.path.exists(os.path.join(root, cited)):
                faults.append((n, 0, "%s:%d: cites %s, which is not in the repository" % (rel, n, cited)))
    for n, line in prose_lines(text):
        targets = [m.group(2) for m in LINK.finditer(line)] + HREF.findall(line)
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            why = check_target(root, path, t)
            if why:
                faults.append((n, 1, "%s:%d: %s" % (rel, n, why)))
        stripped = LINK.sub(lambda m: m.group(1), line)
        for m in OUTSIDE.finditer(stripped):
            faults.append((n, 2, "%s:%d: cites a path outside the repository: %s" %
                           (rel, n, stripped[m.start():].split()[0].rstrip(".,;:)"))))
    return [f for _, _, f in sorted(faults, key=lambda f: f[:2])]


def check_readme(root):
    path = os.path.join(root, "README.md")
    faults = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if len(lines) > README_MAX_LINES:
        faults.append("README.md: %d lines, at most %d" % (len(lines), README_MAX_LINES))
    toc, in_toc = set(), False
    for n, line in prose_lines(text):
        h = HEADING.match(line)
        if h:
            in_toc = h.group(2).strip().lower() in TOC_HEADINGS
            continue
        if in_toc:
            for m in LINK.finditer(line):
                toc.add(os.path.normpath(m.group(2).partition("#")[0]))
    if not toc:
        faults.append("README.md: no table of contents (a 'Contents' or 'Documentation' heading with links)")
    docs = os.path.join(root, "docs")
    for f in sorted(os.listdir(docs)) if os.path.isdir(docs) else []:
        if f.endswith(".md") and os.path.join("docs", f) not in toc:
            faults.append("README.md: the table of contents does not link docs/%s" % f)
    return faults


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = markdown_files(root)
    faults = []
    for path in files:
        faults += check_file(root, path)
    faults += check_readme(root)
    for f in faults:
        print(f)
    if faults:
        print("check_docs: %d fault(s) in %d Markdown files" % (len(faults), len(files)))
        return 1
    print("check_docs: %d Markdown files, every link, anchor and cited file resolves, README.md is one page" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
