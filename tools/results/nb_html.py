#!/usr/bin/env python3
"""nb_html.py — the results page of a nanoBench-EFI run: one self-contained
HTML file (data, page code and the pinned uPlot inlined; no network fetch).

    nb_html.py RUN.csv|RESULTS_DIR ... [-o OUT.html]   a page per run
    nb_html.py -compare RUN_A RUN_B [-o OUT.html]       two runs side by side

A run is its CSV (run-NNNN.csv, or nb_serial's OUT.csv) with what lies beside
it: the text report (same name, .txt: the machine lines and the -verbose
tables), MICA's rows (NAME-mica.csv) and the cycle-by-cycle tables
(NAME-<benchmark>-cycles.csv). A results folder stands for all its runs
(run-NNNN.csv); each page goes beside its CSV as NAME.html unless -o says
otherwise (one run only). Exit status 0, 1 when a run could not be read,
2 on usage errors.
"""
import csv
import glob
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENDOR = os.environ.get("NB_VENDOR", os.path.join(ROOT, "build", "vendor"))

VALUE_RE = re.compile(r"^(-?[0-9]+(?:\.[0-9]+)?)(?: \[(-?[0-9]+(?:\.[0-9]+)?);(-?[0-9]+(?:\.[0-9]+)?)\])?$")
TITLE_RE = re.compile(r"^(.*) results \(unroll_count=(-?[0-9]+), loop_count=(-?[0-9]+)\):$")
RUN_RE = re.compile(r"^\trun +([0-9]+): (.*)$")
NAME_RE = re.compile(r"^verbose: Ctr([0-9]+) = (.*)$")
HEADER_RE = re.compile(r"^\[([A-Za-z0-9_.-]+)\]$")
# The machine lines of the report head worth showing (the platform: rows come from the CSV).
MACHINE_RE = re.compile(r"^(cpu|tsc|hypervisor|xsave|lfence|power|smi|pmu|watchdog|frequency): ")


class RunError(Exception):
    pass


def parse_value(text):
    """'32.00 [31.00;33.00]' -> (32.0, 31.0, 33.0); other text -> (None, None, None)."""
    m = VALUE_RE.match(text.strip())
    if not m:
        return None, None, None
    lo = float(m.group(2)) if m.group(2) is not None else None
    hi = float(m.group(3)) if m.group(3) is not None else None
    return float(m.group(1)), lo, hi


def read_csv_rows(path):
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise RunError(f"{path}: {e.strerror}")
    if not rows or rows[0][:3] != ["benchmark", "event", "value"]:
        raise RunError(f"{path}:1: not a results CSV (header benchmark,event,value expected)")
    out = []
    for lineno, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) < 3:
            raise RunError(f"{path}:{lineno}: {len(row)} fields, 3 expected")
        # -range: min and max in their own columns (benchmark,event,value,min,max);
        # the page reads them as the text prints them, "value [min;max]".
        if len(row) >= 5 and row[3] and row[4]:
            out.append([row[0], row[1], f"{row[2]} [{row[3]};{row[4]}]"])
        else:
            out.append(row[:3])
    return out


def verbose_tables(lines):
    """A benchmark's -verbose tables -> {event: [per-measurement values]} (main - base, raw)."""
    names, tables, cur = {}, [], None
    out = {}
    for line in lines:
        m = NAME_RE.match(line)
        if m:
            if m.group(1) == "0":
                names = {}
            names[int(m.group(1))] = m.group(2)
            continue
        m = TITLE_RE.match(line)
        if m:
            cur = {"title": m.group(1), "copies": int(m.group(2)), "loops": int(m.group(3)),
                   "names": dict(names), "rows": []}
            tables.append(cur)
            continue
        m = RUN_RE.match(line)
        if m and cur is not None:
            try:
                cur["rows"].append([int(v) for v in m.group(2).split()])
            except ValueError:
                pass
    # Tables come in pairs: the base run, then the main run.
    for base, main in zip(tables[0::2], tables[1::2]):
        if not base["rows"] or not main["rows"]:
            continue
        cols = min(len(base["rows"][0]), len(main["rows"][0]))
        for c in range(cols):
            name = main["names"].get(c)
            if name is None:
                name = "RDTSC" if c == 0 and main["title"].startswith("RDTSC") else f"Ctr{c}"
            if name in out:
                continue
            diffs = [m[c] - b[c] for b, m in zip(base["rows"], main["rows"]) if len(m) > c and len(b) > c]
            divisor = (main["copies"] - base["copies"]) * max(main["loops"], 1)
            out[name] = {"diffs": diffs, "divisor": divisor if divisor > 0 else 1}
    return out


def read_text(path):
    """The report text: machine lines and, per benchmark, its lines."""
    machine, blocks, current = [], {}, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return machine, blocks
    for line in text:
        m = HEADER_RE.match(line)
        if m:
            current = blocks.setdefault(m.group(1), [])
            continue
        if line.startswith("nanoBench-EFI "):
            current = None
            continue
        if current is not None:
            current.append(line)
        elif MACHINE_RE.match(line):
            machine.append(line)
    return machine, blocks


def stem_of(csv_path):
    return csv_path[:-4] if csv_path.endswith(".csv") else csv_path


def read_cycles(stem, names):
    """NAME-<benchmark>-cycles.csv: header cycle,EVENT...; one row per cycle."""
    out = {}
    for name in names:
        path = f"{stem}-{name}-cycles.csv"
        if not os.path.exists(path):
            continue
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = list(csv.reader(f))
        if not rows or not rows[0] or rows[0][0] != "cycle":
            raise RunError(f"{path}:1: not a cycle-by-cycle table (header cycle,EVENT... expected)")
        events = rows[0][1:]
        series = [[] for _ in events]
        cycles = []
        for lineno, row in enumerate(rows[1:], 2):
            if len(row) != len(events) + 1:
                raise RunError(f"{path}:{lineno}: {len(row)} fields, {len(events) + 1} expected")
            try:
                cycles.append(int(row[0]))
                for i, v in enumerate(row[1:]):
                    series[i].append(float(v))
            except ValueError:
                raise RunError(f"{path}:{lineno}: not a number")
        out[name] = {"cycles": cycles, "events": events, "values": series}
    return out


def read_run(source):
    """One run (its CSV or a folder with one run) -> the page's data for it."""
    if os.path.isdir(source):
        runs = sorted(glob.glob(os.path.join(source, "run-[0-9]*.csv")))
        runs = [r for r in runs if re.search(r"/run-[0-9]+\.csv$", r)]
        if not runs:
            raise RunError(f"{source}: no run-NNNN.csv in this folder")
        source = runs[-1]
    stem = stem_of(source)
    rows = read_csv_rows(source)
    machine, blocks = read_text(stem + ".txt")
    platform, order, benches = [], [], {}

    def bench(name):
        if name not in benches:
            benches[name] = {"name": name, "events": [], "error": None, "verbose": {}, "mica": {}}
            order.append(name)
        return benches[name]

    for name, event, value in rows:
        if name == "platform":
            platform.append([event, value])
            continue
        b = bench(name)
        if event == "error":
            b["error"] = value
            continue
        v, lo, hi = parse_value(value)
        b["events"].append({"event": event, "text": value, "value": v, "min": lo, "max": hi})
    mica_path = stem + "-mica.csv"
    if os.path.exists(mica_path):
        for name, event, value in read_csv_rows(mica_path):
            v, _, _ = parse_value(value)
            if v is not None and event.startswith("mica."):
                bench(name)["mica"][event[5:]] = v
    for name, lines in blocks.items():
        if name not in benches:
            continue
        b = benches[name]
        printed = {e["event"]: e["value"] for e in b["events"]}
        for event, t in verbose_tables(lines).items():
            diffs = t["diffs"]
            if not diffs:
                continue
            d = t["divisor"]
            # -no_normalization prints the raw difference: pick the divisor the printed value shows.
            shown = printed.get(event)
            med = statistics.median(diffs)
            if shown is not None and d != 1 and abs(med - shown) < abs(med / d - shown):
                d = 1
            b["verbose"][event] = [x / d for x in diffs]
    cycles = read_cycles(stem, order)
    for name, c in cycles.items():
        benches[name]["cycles"] = c
    label = os.path.basename(stem)
    return {"label": label, "source": os.path.abspath(source), "machine": machine, "platform": platform,
            "benchmarks": [benches[n] for n in order]}


def vendor_file(name):
    path = os.path.join(VENDOR, name)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        raise RunError(f"{path}: missing; run `make results-vendor` (tools/results/fetch_uplot.sh)")


def page(title, runs):
    data = json.dumps({"title": title, "runs": runs}, separators=(",", ":"), allow_nan=False)
    # Inside <script>: no "</" can end the element early.
    data = data.replace("</", "<\\/")
    with open(os.path.join(HERE, "page.js"), encoding="utf-8") as f:
        js = f.read()
    with open(os.path.join(HERE, "page.css"), encoding="utf-8") as f:
        css = f.read()
    version = vendor_file("uPlot.version").split()
    esc = title.replace("&", "&amp;").replace("<", "&lt;")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="nanoBench-EFI tools/results/nb_html.py; uPlot {version[1]} (MIT)">
<title>{esc}</title>
<script>
/* Console errors are counted in the DOM for the browser tests (tests/results). */
window.nbErrors = [];
window.addEventListener("error", function (e) {{ window.nbErrors.push(String(e.message)); }});
(function () {{ var err = console.error; console.error = function () {{
  window.nbErrors.push(Array.prototype.join.call(arguments, " ")); err.apply(console, arguments); }}; }})();
</script>
<style>
{vendor_file("uPlot.min.css")}
{css}
</style>
</head>
<body>
<div id="nb-page"></div>
<script id="nb-data" type="application/json">{data}</script>
<script>
{vendor_file("uPlot.iife.min.js")}
</script>
<script>
{js}
</script>
</body>
</html>
"""


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def usage():
    print("usage: nb_html RUN.csv|RESULTS_DIR ... [-o OUT.html]\n"
          "       nb_compare RUN_A RUN_B [-o OUT.html]", file=sys.stderr)
    return 2


def main(argv):
    compare, out, sources = False, None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-compare":
            compare = True
        elif a == "-o":
            if i + 1 >= len(argv):
                print("nb_html: -o needs a value (the page to write)", file=sys.stderr)
                return 2
            out = argv[i + 1]
            i += 1
        elif a.startswith("-"):
            print(f"nb_html: unknown option {a}", file=sys.stderr)
            return usage()
        else:
            sources.append(a)
        i += 1
    if compare:
        if len(sources) != 2:
            print("nb_compare: two runs needed (results folders or CSV files)", file=sys.stderr)
            return usage()
        try:
            a, b = read_run(sources[0]), read_run(sources[1])
        except RunError as e:
            print(f"nb_compare: {e}", file=sys.stderr)
            return 1
        if a["label"] == b["label"]:
            a["label"], b["label"] = "A: " + a["label"], "B: " + b["label"]
        out = out or "compare.html"
        try:
            write(out, page(f"nanoBench-EFI: {a['label']} vs {b['label']}", [a, b]))
        except RunError as e:
            print(f"nb_compare: {e}", file=sys.stderr)
            return 1
        print(f"nb_compare: wrote {out}", file=sys.stderr)
        return 0
    if not sources:
        return usage()
    csvs = []
    for s in sources:
        if os.path.isdir(s):
            found = [p for p in sorted(glob.glob(os.path.join(s, "run-[0-9]*.csv")))
                     if re.search(r"/run-[0-9]+\.csv$", p)]
            if not found:
                print(f"nb_html: {s}: no run-NNNN.csv in this folder", file=sys.stderr)
                return 1
            csvs += found
        else:
            csvs.append(s)
    if out and len(csvs) != 1:
        print(f"nb_html: -o names one page, but there are {len(csvs)} runs", file=sys.stderr)
        return 2
    status = 0
    for c in csvs:
        target = out or stem_of(c) + ".html"
        try:
            run = read_run(c)
            write(target, page(f"nanoBench-EFI {run['label']}", [run]))
        except RunError as e:
            print(f"nb_html: {e}", file=sys.stderr)
            status = 1
            continue
        print(f"nb_html: wrote {target}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
