#!/usr/bin/env bash
# tests/check_docs_test.sh — tests/check_docs.py on small trees of its own:
# each kind of fault is reported with its file and line, and a clean tree
# passes. (make docs-check runs this, then the checker on the repository.)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nb-check-docs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
status=0

fail() { echo "check_docs_test: $*"; status=1; }

# tree DIR: a README with a table of contents, and two docs pages
tree() {
    mkdir -p "$1/docs" "$1/tools"
    touch "$1/tools/nanobench"
    cat > "$1/README.md" <<'EOF'
# Project

Run [the tool](tools/nanobench); see [Options](docs/a.md#the-options--o).

## Documentation

| page | what |
|---|---|
| [docs/a.md](docs/a.md) | a |
| [docs/b.md](docs/b.md) | b |
EOF
    cat > "$1/docs/a.md" <<'EOF'
# A

## The options (`-o`)

## Twice

## Twice

See [b](b.md#b), [the second](#twice-1) and [the README](../README.md#documentation).

```
a path in code is not a link: [x](nope.md), ../shared/notes.md, kernel/gone.c
```

The page `docs/b.md` and `configs/cfg_<NAME>_common.txt`, `docs/run-NNNN.csv`.
EOF
    printf '# B\n\nBack to [A](a.md).\n' > "$1/docs/b.md"
}

tree "$TMP/good"
out=$(python3 "$ROOT/tests/check_docs.py" "$TMP/good") || fail "a clean tree fails: $out"

tree "$TMP/bad"
cat >> "$TMP/bad/docs/b.md" <<'EOF'
[gone](c.md) [no heading](a.md#twice-2) [up](../../outside.md) [abs](/etc/passwd)
The notes are in ../shared/DESIGN.md. The parser is `kernel/gone.c`.
EOF
for i in $(seq 1 250); do echo "line $i" >> "$TMP/bad/README.md"; done
printf '# Extra\n' > "$TMP/bad/docs/extra.md"
sed -i 's/(docs\/a.md#the-options--o)/(docs\/a.md#the-options-o)/' "$TMP/bad/README.md"
out=$(python3 "$ROOT/tests/check_docs.py" "$TMP/bad")
rc=$?
[[ $rc -eq 1 ]] || fail "a broken tree: exit status $rc, expected 1"
expected="README.md:3: link to #the-options-o: docs/a.md has no such heading
docs/b.md:4: link to c.md: no such file
docs/b.md:4: link to #twice-2: docs/a.md has no such heading
docs/b.md:4: link to ../../outside.md leaves the repository
docs/b.md:4: link to an absolute path /etc/passwd (outside the repository)
docs/b.md:5: cites kernel/gone.c, which is not in the repository
docs/b.md:5: cites a path outside the repository: ../shared/DESIGN.md
README.md: 260 lines, at most 250
README.md: the table of contents does not link docs/extra.md
check_docs: 9 fault(s) in 4 Markdown files"
[[ $out == "$expected" ]] || fail "a broken tree: expected:
$expected
actual:
$out"

[[ $status -eq 0 ]] && echo "check_docs_test: ok"
exit $status
